from django.apps import AppConfig
from django.db.models.signals import post_migrate


def create_builtin_bots(sender, **kwargs):
    from .models import Bot

    Bot.objects.create_builtins()


class BotsConfig(AppConfig):
    name = "arena.bots"
    label = "bots"  # the label of the tables, migrations and content types before the package move

    def ready(self):
        post_migrate.connect(create_builtin_bots, sender=self)
