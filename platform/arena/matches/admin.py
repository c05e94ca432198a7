from django.contrib import admin, messages

from . import services
from .models import Match, MatchSeat


class SeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    fields = ("seat", "bot", "version", "score", "placing", "status", "detail", "rating_before", "rating_after")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "purpose", "priority", "created_by", "rated", "status", "attempts", "created_at",
                    "finished_at", "error")
    list_filter = ("status", "purpose", "priority", "game", "rated")
    # A set-aside match: filter by status "set aside", read `error` (its reason) and `fault` (the last exception
    # with its traceback), fix the cause, then re-queue it (docs/operator-guide.md).
    readonly_fields = ("claim", "replay", "winners", "attempts", "started_at", "finished_at", "deadline", "variant",
                       "error", "fault")
    inlines = [SeatInline]
    actions = ["requeue_matches", "cancel_matches"]

    @admin.action(description="Re-queue the selected matches (not finished ones), with fresh attempts")
    def requeue_matches(self, request, queryset):
        done = sum(services.requeue(match) for match in queryset)
        self.message_user(request, f"{done} match(es) re-queued; finished matches are never re-run.", messages.INFO)

    @admin.action(description="Cancel the selected queued or running matches")
    def cancel_matches(self, request, queryset):
        done = sum(services.cancel(match) for match in queryset)
        self.message_user(request, f"{done} match(es) cancelled.", messages.INFO)
