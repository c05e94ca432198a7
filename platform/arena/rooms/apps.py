from django.apps import AppConfig


class RoomsConfig(AppConfig):
    name = "arena.rooms"
    label = "rooms"
    verbose_name = "Pairing rooms"

    def ready(self):
        from arena.tables.presentation import register_home

        from . import receivers  # noqa: F401  (a table's end records the room's game)
        from .presentation import table_home

        register_home("room", table_home)  # a room's table page links back to the room
