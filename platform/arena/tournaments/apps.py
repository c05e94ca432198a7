from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "arena.tournaments"
    label = "tournaments"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        from arena.matches.signals import match_finished

        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="tournaments.advance")
