"""The room learns from arena.tables that one of its games ended (tables.signals.table_finished)."""

from django.dispatch import receiver

from arena.tables.models import Table
from arena.tables.signals import table_finished

from . import services
from .models import RoomGame


@receiver(table_finished, sender=Table, dispatch_uid="rooms.record_room_game")
def record_room_game(sender, table, **kwargs):
    game = RoomGame.objects.select_related("room__course").filter(table=table,
                                                                  status=RoomGame.Status.PLAYING).first()
    if game is not None:
        services.game_over(game, table.winners)
