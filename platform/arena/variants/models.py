"""A course's variant of a game: the game's options set by an instructor, e.g. a SortingGame deck of their own."""

import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from games import ConfigError, get_game
from games.core import canonical

from arena.accounts.access import courses_seen_by
from arena.accounts.models import Course


class VariantQuerySet(models.QuerySet):
    def visible_to(self, user):
        """The variants of the courses `user` teaches or takes (every course's for operators)."""
        return self.filter(course__in=courses_seen_by(user))


class Variant(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="variants")
    game = models.CharField(max_length=40, help_text="Name of the game in games/, e.g. sortinggame.")
    name = models.CharField(max_length=60)
    config = models.JSONField(
        help_text="The game options that differ from its defaults, e.g. {\"deck\": {...}}; copied into each match."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="variants_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = VariantQuerySet.as_manager()

    class Meta:
        ordering = ["course", "game", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["course", "game", "name"], name="variant_name_unique_per_course_and_game",
                violation_error_message="the course already has a variant of this game with this name",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.game}, {self.course.code})"

    @property
    def config_json(self) -> str:
        """The options as indented JSON, for display."""
        return json.dumps(self.config, indent=1, ensure_ascii=False)

    def clean(self):
        try:
            game = get_game(self.game)
        except KeyError as exc:
            raise ValidationError({"game": exc.args[0]}) from exc
        if not isinstance(self.config, dict):
            raise ValidationError({"config": "the options must be a JSON object"})
        limit = settings.ARENA_MAX_VARIANT_BYTES
        if len(canonical(self.config).encode()) > limit:
            raise ValidationError({"config": f"the options are larger than the limit of {limit} bytes"})
        try:
            # new_game checks the options (configure) and deals, so that a deck too small for even the
            # fewest players is refused now rather than when a match is played.
            game.new_game(game.min_players, self.config)
        except ConfigError as exc:
            raise ValidationError({"config": config_problems(exc)}) from exc


def config_problems(exc: ConfigError) -> list[str]:
    """Each problem of a refused configuration; a deck's ConfigError wraps a DeckError listing every one."""
    return list(getattr(exc.__cause__, "problems", None) or [str(exc)])
