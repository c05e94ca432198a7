from django.contrib import admin

from .models import Variant


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """The model's clean() has the game check the options, so the admin refuses what the API refuses."""

    list_display = ("name", "game", "course", "created_by", "created_at")
    list_filter = ("game", "course")
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
