from django.contrib import admin

from .models import Rating


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot", "value", "mu", "sigma", "played", "wins", "draws", "losses", "updated_at")
    list_filter = ("bot__game",)
