from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "arena.notifications"
    label = "notifications"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        from django.db.models.signals import post_save

        from arena.matches.signals import match_finished, match_status_changed
        from arena.tournaments.models import Series
        from arena.tournaments.signals import tournament_status_changed

        from . import receivers

        match_finished.connect(receivers.on_match_finished, dispatch_uid="notifications.match_finished")
        match_status_changed.connect(receivers.on_match_status_changed, dispatch_uid="notifications.match_status")
        tournament_status_changed.connect(receivers.on_tournament_status_changed,
                                          dispatch_uid="notifications.tournament_status")
        # A new series is a new round for its entrants (a series is created once, never changed back).
        post_save.connect(receivers.on_series_saved, sender=Series, dispatch_uid="notifications.series")
