from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "arena.ratings"
    label = "ratings"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        from arena.matches.signals import match_finished

        from .presentation import forget_ladder
        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="ratings.apply")
        match_finished.connect(forget_ladder, dispatch_uid="ratings.forget_ladder")
