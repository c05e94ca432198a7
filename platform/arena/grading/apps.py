from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Assignments and grading"

    def ready(self):
        from matches.signals import match_finished

        from .runs import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="grading.advance")
