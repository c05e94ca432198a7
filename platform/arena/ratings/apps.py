from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "arena.ratings"
    label = "ratings"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        from arena.matches.signals import challenge_requested, match_finished

        from .fair_play import on_challenge_requested
        from .presentation import forget_ladder
        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="ratings.apply")
        match_finished.connect(forget_ladder, dispatch_uid="ratings.forget_ladder")
        challenge_requested.connect(on_challenge_requested, dispatch_uid="ratings.fair_play")
