"""Bots and their immutable uploaded versions; built-in bots are Bot rows without an owner."""

from django.conf import settings
from django.db import models


class BotQuerySet(models.QuerySet):
    def for_game(self, game: str):
        return self.filter(game=game)

    def active(self):
        """Bots that can play: built-ins, and uploaded bots with at least one accepted version."""
        accepted = BotVersion.objects.filter(bot=models.OuterRef("pk"), status=BotVersion.Status.ACCEPTED)
        return self.filter(models.Q(owner__isnull=True) | models.Exists(accepted))

    def owned_by(self, user):
        return self.filter(owner=user) if user.is_authenticated else self.none()

    def with_active_version(self):
        """The bots with their accepted versions fetched in one query, so that a list showing each bot's
        active version costs no query per bot (the versions' code is left out: a list never shows it)."""
        accepted = (BotVersion.objects.filter(status=BotVersion.Status.ACCEPTED).order_by("-number")
                    .defer("code", "validation_log"))
        return self.prefetch_related(models.Prefetch("versions", queryset=accepted, to_attr="accepted_versions"))

    def create_builtins(self) -> None:
        """One row per built-in bot of every game (run after each migrate, so new games get theirs)."""
        from games import available_games

        for game in available_games().values():
            for name in game.builtin_bots():
                self.builtin(game.name, name)

    def builtin(self, game: str, name: str) -> "Bot":
        bot, _ = self.get_or_create(game=game, builtin_name=name, owner=None, defaults={"name": name})
        return bot


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="bots",
        help_text="Empty for the platform's built-in bots.",
    )
    game = models.CharField(max_length=40, help_text="Name of the game in games/, e.g. endgame.")
    name = models.CharField(max_length=60)
    builtin_name = models.CharField(
        max_length=40, blank=True, help_text="For a built-in bot, its name in the game (builtin:NAME)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = BotQuerySet.as_manager()

    class Meta:
        ordering = ["game", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_name_unique_per_owner_and_game"),
            models.UniqueConstraint(
                fields=["game", "builtin_name"], condition=models.Q(owner__isnull=True), name="one_row_per_builtin"
            ),
        ]

    def __str__(self):
        return self.label

    @property
    def is_builtin(self) -> bool:
        return self.owner_id is None

    @property
    def label(self) -> str:
        """How the bot is shown everywhere: builtin:NAME or owner/name."""
        return self.label_of(self.builtin_name, self.owner.username if self.owner_id else None, self.name)

    @staticmethod
    def label_of(builtin_name: str, owner_username: str | None, name: str) -> str:
        """The label of a bot read as plain values (a list that never builds the bots)."""
        return f"builtin:{builtin_name}" if owner_username is None else f"{owner_username}/{name}"

    @property
    def active_version(self) -> "BotVersion | None":
        """The newest version that passed validation."""
        if hasattr(self, "accepted_versions"):  # fetched with the list (BotQuerySet.with_active_version)
            return self.accepted_versions[0] if self.accepted_versions else None
        return self.versions.filter(status=BotVersion.Status.ACCEPTED).order_by("-number").first()


class BotVersion(models.Model):
    class Status(models.TextChoices):
        VALIDATING = "validating"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1, 2, ... in upload order within the bot.")
    filename = models.CharField(max_length=120)
    code = models.TextField(editable=False, help_text="The uploaded source; never changed after upload.")
    sha256 = models.CharField(max_length=64, editable=False)
    size = models.PositiveIntegerField(help_text="Bytes uploaded.")
    uploaded_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.VALIDATING)
    verdict = models.TextField(blank=True, help_text="Why validation rejected the version, shown to its owner.")
    validation_log = models.TextField(blank=True, help_text="The bot's stderr in its validation match (private).")
    validation_match = models.OneToOneField(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="validated_version",
        help_text="The short match against a built-in bot that decided the status.",
    )

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_number_unique_per_bot")]

    def __str__(self):
        return f"{self.bot.label} v{self.number}"
