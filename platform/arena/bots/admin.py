from django.contrib import admin

from .models import Bot, BotVersion


class VersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "filename", "sha256", "status", "verdict", "uploaded_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("__str__", "game", "owner", "created_at")
    list_filter = ("game",)
    search_fields = ("name", "owner__username")
    inlines = [VersionInline]
