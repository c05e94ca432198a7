from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "arena.matches"
    label = "matches"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        from arena.bots.signals import version_uploaded
        from arena.core import budget

        from . import services, validation
        from .signals import match_finished

        version_uploaded.connect(validation.on_version_uploaded, dispatch_uid="matches.validation.start")
        match_finished.connect(validation.on_match_finished, dispatch_uid="matches.validation.conclude")
        budget.register("matches", services.MatchWork())
