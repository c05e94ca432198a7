from django.contrib import admin

from .models import Entrant, Series, SeriesGame, Tournament


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    raw_id_fields = ["bot", "version"]
    readonly_fields = ["consent"]  # the bot's owner answers for it, nobody else (accounts.access.entry_consent)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "course", "game", "format", "status", "started_at", "finished_at"]
    list_filter = ["status", "format", "game"]
    inlines = [EntrantInline]
    # The status changes by the verbs (start, pause, cancel...) alone, which other apps hear of (services.change_status).
    readonly_fields = ["champion", "status"]


@admin.register(Series)
class SeriesAdmin(admin.ModelAdmin):
    list_display = ["tournament", "key", "round", "bracket", "status", "decided_at"]
    list_filter = ["status"]


@admin.register(SeriesGame)
class SeriesGameAdmin(admin.ModelAdmin):
    list_display = ["series", "index", "match"]
    raw_id_fields = ["match"]
