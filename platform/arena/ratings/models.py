"""Each bot's current skill (mu, sigma; ratings/skill.py) and record; the history is on the match seats (ladder
value before/after)."""

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
            self.bulk_create([Rating.initial(bot_id=bot_id) for bot_id in missing], ignore_conflicts=True)
            locked = self._lock(wanted)
        return locked

    def _lock(self, bot_ids):
        return {r.bot_id: r for r in self.select_for_update().filter(bot_id__in=bot_ids).order_by("bot_id")}


class Rating(models.Model):
    bot = models.OneToOneField("bots.Bot", primary_key=True, on_delete=models.CASCADE, related_name="rating")
    mu = models.FloatField(help_text="Skill estimate (Weng-Lin / OpenSkill Plackett-Luce).")
    sigma = models.FloatField(help_text="Uncertainty of mu; the bot is provisional while it is above "
                                        "ARENA_PROVISIONAL_SIGMA.")
    value = models.FloatField(help_text="mu - ARENA_RATING_K * sigma: the conservative estimate the ladder orders by.")
    played = models.PositiveIntegerField(default=0, help_text="Rated matches finished.")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0, help_text="Matches where it shared first place.")
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RatingQuerySet.as_manager()

    @classmethod
    def initial(cls, **fields) -> "Rating":
        """A rating at the model's prior, not saved: a bot before its first rated match."""
        mu, sigma = settings.ARENA_RATING_MU, settings.ARENA_RATING_SIGMA
        return cls(mu=mu, sigma=sigma, value=mu - settings.ARENA_RATING_K * sigma, **fields)

    def __str__(self):
        return f"{self.bot}: {self.value:.1f} (mu {self.mu:.1f}, sigma {self.sigma:.1f})"
