"""Each bot's current Elo rating and record; the history is on the match seats (rating before/after)."""

from django.conf import settings
from django.db import models


class RatingQuerySet(models.QuerySet):
    def locked_for(self, bot_ids):
        """The rows of these bots, created if missing, locked in bot order (no deadlock between workers).

        One statement once every bot has a row (all but a bot's first rated match); else the missing rows
        are created, in bot order too, and all of them locked again.
        """
        wanted = sorted(set(bot_ids))
        locked = self._lock(wanted)
        if missing := [bot_id for bot_id in wanted if bot_id not in locked]:
            self.bulk_create([Rating(bot_id=bot_id, value=settings.ARENA_ELO_INITIAL) for bot_id in missing],
                             ignore_conflicts=True)
            locked = self._lock(wanted)
        return locked

    def _lock(self, bot_ids):
        return {r.bot_id: r for r in self.select_for_update().filter(bot_id__in=bot_ids).order_by("bot_id")}


class Rating(models.Model):
    bot = models.OneToOneField("bots.Bot", primary_key=True, on_delete=models.CASCADE, related_name="rating")
    value = models.FloatField(help_text="Current Elo rating.")
    played = models.PositiveIntegerField(default=0, help_text="Rated matches finished.")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0, help_text="Matches where it shared first place.")
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RatingQuerySet.as_manager()

    def __str__(self):
        return f"{self.bot}: {self.value:.0f}"
