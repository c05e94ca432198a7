from django.apps import AppConfig


class RoomsConfig(AppConfig):
    name = "arena.rooms"
    label = "rooms"
    verbose_name = "Pairing rooms"
