from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every domain app shares: the site's base template, static files and error pages, the API's
    authentication, parsers, pagination and throttles, the error handler, and the cache and queue helpers."""

    name = "arena.core"
    label = "core"

    def ready(self):
        from django.urls import register_converter

        from .ids import IdConverter

        register_converter(IdConverter, "id")  # every URL's ids: <id:pk> (arena.core.ids)
