from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"

    def ready(self):
        from bots.signals import version_uploaded

        from . import validation
        from .signals import match_finished

        version_uploaded.connect(validation.on_version_uploaded, dispatch_uid="matches.validation.start")
        match_finished.connect(validation.on_match_finished, dispatch_uid="matches.validation.conclude")
