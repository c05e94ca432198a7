from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "arena.tables"
    label = "tables"
    verbose_name = "tables (people playing)"

    def ready(self):
        from arena.core import budget

        from . import services

        budget.register("tables", services.TableWork())
