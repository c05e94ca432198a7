"""Tournaments of a course: frozen entrants, series of games between them, rounds created from results.

The database is the state machine: `Series` rows are created round by round from the outcomes recorded
so far (see services.advance), each series' games are ordinary matches (purpose `tournament`) linked by
`SeriesGame`, and a series is decided once, by a conditional update, when its games decide it. The pure
format logic (pairings, brackets, tie-breaks) lives in games.tournament and is shared with the command line.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from games.tournament import FORMATS, Outcome
from games.tournament.heats import advancing

# The most moves a tournament may hold its spectators back (more than any game of the platform lasts).
MAX_SPECTATOR_DELAY = 1000


class TournamentQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Tournaments of the courses `user` teaches, assists in or takes (all for operators); drafts only to
        the course's instructors and teaching assistants."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        taught = models.Q(course__instructors=user) | models.Q(course__teaching_assistants=user)
        taken = models.Q(course__students=user) & ~models.Q(status=Tournament.Status.DRAFT)
        return self.filter(taught | taken).distinct()

    def in_progress(self):
        return self.filter(status=Tournament.Status.RUNNING)


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round-robin", "round robin"
        SINGLE_ELIMINATION = "single-elimination", "single elimination"
        DOUBLE_ELIMINATION = "double-elimination", "double elimination"
        SWISS = "swiss", "Swiss"
        HEATS = "heats", "heats (3-6 player pods)"

    class Status(models.TextChoices):
        DRAFT = "draft"
        RUNNING = "running"
        PAUSED = "paused"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Visibility(models.TextChoices):
        LIVE = "live", "results live"
        AT_END = "at-end", "results released at the end"

    class Seeding(models.TextChoices):
        RATING = "rating", "by rating (Elo)"
        GIVEN = "given", "in the order entrants were added"
        MANUAL = "manual", "by hand (each entrant's seed)"

    course = models.ForeignKey("accounts.Course", on_delete=models.CASCADE, related_name="tournaments")
    name = models.CharField(max_length=120)
    game = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True, help_text="Game options (a variant's copy when one is chosen).")
    variant = models.ForeignKey("variants.Variant", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="tournaments")
    format = models.CharField(max_length=20, choices=Format.choices)
    players_per_game = models.PositiveSmallIntegerField(
        default=2, help_text="Seats at each game: 2 for pairings, the pod size for heats.")
    games_per_series = models.PositiveSmallIntegerField(
        default=2, help_text="Games a series plays (best of N); rounded up so every entrant takes every seat equally often.")
    rounds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Swiss: how many rounds.")
    advance = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Heats: how many of each pod go on.")
    rated = models.BooleanField(default=False, help_text="Whether its matches change the ladder's Elo ratings.")
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.LIVE)
    spectator_delay = models.PositiveIntegerField(
        default=0, validators=[MaxValueValidator(MAX_SPECTATOR_DELAY)],
        help_text="Spectators watch its games this many moves behind while they are played (0: as they happen).")
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True)
    seed = models.BigIntegerField(help_text="All games' seeds derive from it (and each series' key).")
    note = models.TextField(blank=True, help_text="Why the tournament is paused.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                   related_name="tournaments_created")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    champion = models.ForeignKey("Entrant", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(format__in=FORMATS), name="tournament_format_known"),
            models.CheckConstraint(condition=models.Q(variant__isnull=True) | models.Q(rated=False),
                                   name="variant_tournament_is_unrated"),
        ]

    def __str__(self):
        return self.name

    @property
    def going_on(self) -> str:
        """Heats: who goes on from each pod, in words ("the winner goes on", "top 2 go on")."""
        count = advancing(self.players_per_game, self.advance)
        return "the winner goes on" if count == 1 else f"top {count} go on"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)

    def results_visible_to(self, user) -> bool:
        """Results of an `at-end` tournament are hidden from students until it finishes."""
        from arena.accounts.access import staffs

        return self.visibility == self.Visibility.LIVE or self.is_over or staffs(user, self.course)


class Entrant(models.Model):
    class Consent(models.TextChoices):
        """Whether the bot's owner agreed to the entry. Someone else's bot (an instructor entering a student's)
        is only requested: its owner accepts or declines it, and only an accepted entry plays or opens the
        bot's code to the course's staff (accounts.access.entry_consent)."""
        REQUESTED = "requested", "awaiting the owner's consent"
        ACCEPTED = "accepted", "accepted"
        DECLINED = "declined", "declined by the owner"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="entries")
    version = models.ForeignKey("bots.BotVersion", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="entries", help_text="The version frozen at the start (empty for built-ins).")
    seed = models.PositiveIntegerField(null=True, blank=True,
                                       help_text="0 = top seed; the entrant's id in the format. Set at the start (or by hand).")
    withdrawn = models.CharField(max_length=200, blank=True,
                                 help_text="Why the entrant was withdrawn at the start (no version passed validation).")
    consent = models.CharField(max_length=10, choices=Consent.choices, default=Consent.REQUESTED,
                               help_text="The owner's answer; entries still requested or declined at the start "
                                         "are dropped.")
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="bot_enters_once"),
            models.UniqueConstraint(fields=["tournament", "seed"], name="seed_unique_in_tournament"),
        ]

    def __str__(self):
        return self.bot.label


class Series(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        DECIDED = "decided"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="series")
    key = models.CharField(max_length=20, help_text="The format's stable name for it, e.g. W2-1, L3-2, GF1, R4-7.")
    round = models.PositiveSmallIntegerField()
    bracket = models.CharField(max_length=8, blank=True)
    entrants = models.JSONField(help_text="Entrant seeds (the format's ids) in the series' order.")
    bye = models.BooleanField(default=False)
    drawable = models.BooleanField(default=False, help_text="Round robin and Swiss: a level series ends drawn "
                                                            "(elimination and heats go to the tie-break).")
    advance = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING, db_index=True)
    placings = models.JSONField(null=True, blank=True, help_text="Entrant seed -> place in the series, once decided.")
    points = models.JSONField(null=True, blank=True, help_text="Entrant seed -> standings points, once decided.")
    walkover = models.BooleanField(default=False, help_text="Decided without play: a bye or a withdrawn entrant.")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "id"]
        verbose_name_plural = "series"
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="series_key_unique")]

    def __str__(self):
        return f"{self.tournament} {self.key}"

    def outcome(self) -> Outcome:
        return Outcome(placings={int(k): v for k, v in self.placings.items()},
                       points={int(k): v for k, v in self.points.items()})

    @property
    def winner(self) -> int | None:
        """The entrant seed placed first alone; None for a drawn series or one not decided."""
        if not self.placings:
            return None
        first = [int(seed) for seed, place in self.placings.items() if place == 1]
        return first[0] if len(first) == 1 else None


class SeriesGame(models.Model):
    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="games")
    index = models.PositiveSmallIntegerField()
    seats = models.JSONField(help_text="Entrant seeds in seat order.")
    match = models.OneToOneField("matches.Match", on_delete=models.PROTECT, related_name="series_game")

    class Meta:
        ordering = ["series", "index"]
        constraints = [models.UniqueConstraint(fields=["series", "index"], name="series_game_index_unique")]
