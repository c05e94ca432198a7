"""A pairing room: a course's class plays a game in rounds, each student against new opponents.

The room is its course's, opened by its staff for one game (its options, a person's time per move and the
built-in bot that partners the odd student out). Students join (`RoomMember`); each round the staff starts
is paired by games.tournament.pairing_room and recorded as its games (`RoomGame`): two per pair, each
student first once, played one after the other at tables of arena.tables. `version` counts the room's
changes: it is the live stream's version (arena.core.live), so a page updates when it grows.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F
from games import get_game
from games.table import DEFAULT_MOVE_SECONDS


def new_room_seed() -> int:
    return secrets.randbelow(2**31)


class Room(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    course = models.ForeignKey("accounts.Course", on_delete=models.CASCADE, related_name="rooms")
    game = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True, help_text="The game's options for every table of the room.")
    move_seconds = models.FloatField(null=True, blank=True, default=DEFAULT_MOVE_SECONDS,
                                     help_text="A person's time per move; empty: no limit.")
    builtin = models.CharField(max_length=40, help_text="The built-in bot that partners the odd student out.")
    seed = models.BigIntegerField(default=new_room_seed, help_text="Breaks the pairings' ties, round by round.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    rounds = models.PositiveSmallIntegerField(default=0, help_text="Rounds started so far.")
    version = models.PositiveIntegerField(default=0, help_text="Changes so far (the live page's version).")
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                  related_name="rooms_opened")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return f"pairing room {self.pk} ({self.game})"

    @property
    def title(self) -> str:
        return get_game(self.game).title

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def topic(self) -> str:
        """The room's live topic (arena.core.live)."""
        return f"room:{self.pk}"

    def bump(self) -> None:
        """Count one change (in the caller's transaction)."""
        Room.objects.filter(pk=self.pk).update(version=F("version") + 1)


class RoomMember(models.Model):
    """A student in the room; `present` until they leave (a student who left is paired no more, and may
    come back)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="room_memberships")
    present = models.BooleanField(default=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="one_membership_per_room")]

    def __str__(self):
        return f"{self.user} in room {self.room_id}"


class RoomGame(models.Model):
    """One game of a round: `leg` 1 or 2 of its pair (each student first once), `first` and `second` the
    seats' students (empty: the room's built-in). Leg 2 starts when leg 1 is over, each at its own table of
    arena.tables (`table`)."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting for the pair's other game"
        PLAYING = "playing"
        FINISHED = "finished"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="games")
    round = models.PositiveSmallIntegerField()
    pair = models.PositiveSmallIntegerField(help_text="The pair's number in its round, from 1.")
    leg = models.PositiveSmallIntegerField(help_text="1 or 2: the pair's first or second game.")
    first = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", help_text="Who sits first; empty: the built-in.")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+", help_text="Who sits second; empty: the built-in.")
    builtin_seat = models.PositiveSmallIntegerField(null=True, blank=True,
                                                    help_text="The seat the built-in plays (0 first, 1 second), if any.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    table = models.OneToOneField("tables.Table", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="room_game", help_text="Where the game is played, once it starts.")
    first_points = models.FloatField(null=True, blank=True, help_text="1 a win, 0.5 a draw, 0 a loss.")
    second_points = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["room", "round", "pair", "leg"]
        constraints = [models.UniqueConstraint(fields=["room", "round", "pair", "leg"], name="one_game_per_leg")]

    def __str__(self):
        return f"room {self.room_id} round {self.round} pair {self.pair} game {self.leg}"

    def seat_of(self, user_id) -> int | None:
        """`user_id`'s seat in this game (0 first, 1 second), or None."""
        return 0 if self.first_id == user_id else 1 if self.second_id == user_id else None

    def points_of(self, seat: int) -> float | None:
        return self.first_points if seat == 0 else self.second_points
