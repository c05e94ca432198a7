from django.apps import AppConfig


class RoomsConfig(AppConfig):
    name = "arena.rooms"
    label = "rooms"
    verbose_name = "Pairing rooms"

    def ready(self):
        from . import receivers  # noqa: F401  (a table's end records the room's game)
