from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "arena.grading"
    label = "grading"  # the label of the tables, migrations and content types before the package move
    verbose_name = "Assignments and grading"

    def ready(self):
        from arena.matches.signals import match_finished

        from .runs import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="grading.advance")
