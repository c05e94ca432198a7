from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self):
        from matches.signals import match_finished

        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="ratings.apply")
