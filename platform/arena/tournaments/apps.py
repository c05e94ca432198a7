from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self):
        from matches.signals import match_finished

        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="tournaments.advance")
