"""Tables: a game people play in the browser, seat by seat, against each other and against bots.

A table row holds the facts of games/table.py (`facts`, its `to_json`): the position is rebuilt from them on
every request and every bot decision, so no process holds a game. `version` counts the changes: each one is
written by a compare-and-set on it (services.save), so two moves for one turn never both count.
"""

import secrets

from django.conf import settings
from django.db import models
from games import get_game


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class Table(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "waiting for the people invited"
        PLAYING = "playing"
        FINISHED = "finished"

    game = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True, help_text="The game's options as the table was opened with.")
    seed = models.BigIntegerField(help_text="All chance at the table comes from this seed (secret until the end).")
    move_seconds = models.FloatField(null=True, blank=True, help_text="A person's time per move; empty: no limit.")
    facts = models.JSONField(help_text="The table's facts (games.table.Table.to_json): the position replays from them.")
    version = models.PositiveIntegerField(default=0, help_text="Changes so far: each is a compare-and-set on it.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)
    winners = models.JSONField(default=list, blank=True)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                  related_name="tables_opened")
    course = models.ForeignKey("accounts.Course", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="tables")
    tag = models.CharField(max_length=80, blank=True, db_index=True,
                           help_text="What opened the table, for its app to find it again (a pairing room: "
                                     "'room:ID:...'); empty for a table a person opened.")
    deadline = models.DateTimeField(null=True, blank=True, db_index=True,
                                    help_text="When the person on move loses on time; empty when none is.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return f"table {self.pk} ({self.game}, {self.status})"

    @property
    def title(self) -> str:
        return get_game(self.game).title

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.FINISHED


class TableSeat(models.Model):
    """One seat: a person (`user`, or an open invitation `token` until someone takes it), or a bot (`bot`:
    a built-in, or an uploaded bot playing `version`)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="table_seats")
    token = models.CharField(max_length=64, null=True, blank=True, unique=True,
                             help_text="The invitation link's secret while nobody took the seat.")
    bot = models.ForeignKey("bots.Bot", null=True, blank=True, on_delete=models.PROTECT, related_name="table_seats")
    version = models.ForeignKey("bots.BotVersion", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="table_seats")

    class Meta:
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_player_per_table_seat"),
            models.CheckConstraint(condition=models.Q(bot__isnull=True) | models.Q(user__isnull=True, token__isnull=True),
                                   name="table_seat_is_a_person_or_a_bot"),
        ]

    def __str__(self):
        return f"seat {self.seat} of table {self.table_id}"

    @property
    def is_person(self) -> bool:
        return self.bot_id is None

    @property
    def is_open(self) -> bool:
        """An invitation nobody has taken yet."""
        return self.is_person and self.user_id is None

    @property
    def label(self) -> str:
        if self.bot_id is not None:
            return self.bot.label
        return self.user.username if self.user_id else "(invited)"
