"""Matches between N seats, each seat one bot (at one version), with the result recorded exactly once."""

from django.conf import settings
from django.db import models
from games import Verdict, get_game

from arena.core.queue import Priority


class MatchQuerySet(models.QuerySet):
    def without_replay(self):
        """For lists and pages that do not show the replay: by far the widest column, and never needed there."""
        return self.defer("replay")

    def queued(self):
        return self.filter(status=Match.Status.QUEUED)

    def queue_positions(self, matches) -> dict[int, int]:
        """{id: queue position} for the queued ones of `matches` (see Match.queue_position), in one query."""
        queued = [match.pk for match in matches if match.status == Match.Status.QUEUED]
        if not queued:
            return {}
        ahead = self.queued().aggregate(**{str(pk): models.Count("pk", filter=models.Q(id__lte=pk)) for pk in queued})
        return {int(pk): position for pk, position in ahead.items()}

    def set_aside(self):
        return self.filter(status=Match.Status.SET_ASIDE)

    def stuck(self, now):
        """Matches past their deadline: running ones whose worker is presumed lost, queued ones whose task
        message is (lost in a broker restart, say)."""
        return self.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING], deadline__lt=now)

    def involving(self, bot):
        return self.filter(seats__bot=bot).distinct()

    def between(self, bots):
        """Matches whose table is exactly `bots`, in any seats."""
        tables = self.annotate(table_size=models.Count("seats")).filter(table_size=len(bots))
        for bot in bots:
            tables = tables.filter(pk__in=MatchSeat.objects.filter(bot=bot).values("match"))
        return tables

    def rated_history(self):
        """Finished rated matches in the order their ratings were applied."""
        return self.filter(status=Match.Status.FINISHED, rated=True).order_by("finished_at", "id")


class Match(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        # The platform failed to run it ARENA_MATCH_MAX_ATTEMPTS times in a row (see services.record_fault):
        # no bot's fault, so nothing is rated; it waits for the staff to play it again once fixed.
        SET_ASIDE = "set_aside", "set aside (platform fault)"
        CANCELLED = "cancelled"

    class Purpose(models.TextChoices):
        CHALLENGE = "challenge"
        VALIDATION = "validation"
        TOURNAMENT = "tournament"
        GRADING = "grading"
        # A rated match the platform chose for a ladder (ratings.matchmaking): the only way a student's bot
        # plays rated outside a staff's tournament.
        LADDER = "ladder"

    game = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True, help_text="Game options; the game's defaults fill the rest.")
    variant = models.ForeignKey(
        "variants.Variant", null=True, blank=True, on_delete=models.SET_NULL, related_name="matches",
        help_text="The course variant played; config holds a copy of its options, kept if it is deleted.",
    )
    seed = models.BigIntegerField(help_text="All chance in the match comes from this seed.")
    purpose = models.CharField(max_length=12, choices=Purpose.choices, default=Purpose.CHALLENGE)
    rated = models.BooleanField(default=False)
    priority = models.PositiveSmallIntegerField(
        default=int(Priority.STUDENT), choices=[(int(p), p.name.lower()) for p in Priority],
        help_text="Whose work it is, most urgent first (arena.core.queue.Priority): 0 grading, 1 tournament, "
                  "2 staff, 3 students, 4 the ladder's. Workers take the most urgent queued match first.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(
        null=True, blank=True, help_text="When the result was recorded; rated matches apply ratings in this order."
    )
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="A match still running or queued after this is presumed lost and re-queued."
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text="How many times a worker claimed the match since it was last queued by hand; "
                             "at ARENA_MATCH_MAX_ATTEMPTS a failing match is set aside.")
    claim = models.UUIDField(
        null=True, blank=True, editable=False,
        help_text="The current attempt's token: only the attempt holding it may record the result.",
    )
    winners = models.JSONField(default=list, blank=True, help_text="Winning seat numbers (several on a draw).")
    replay = models.JSONField(null=True, blank=True, help_text="The referee's replay (games.replay format).")
    error = models.TextField(blank=True, help_text="Why the match was set aside: the platform could not run it "
                                                   "(not a bot's fault).")
    fault = models.TextField(blank=True, help_text="The last exception the platform raised running the match, with "
                                                   "its traceback (for the operator; kept if a retry then succeeded).")
    spectator_delay = models.PositiveIntegerField(
        default=0, help_text="Spectators see the match this many moves behind while it is played (a tournament's "
                             "choice); the whole of it once it is over.")

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"
        # The claim's choice of the next match to play (services.claim): the queued ones by priority.
        indexes = [models.Index(fields=["status", "priority", "created_by"], name="match_queue_order")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(status="finished") | models.Q(finished_at__isnull=False, replay__isnull=False),
                name="finished_match_has_result",
            ),
            # The ladder rates the standard rules only (challenge() refuses a rated variant match).
            models.CheckConstraint(condition=models.Q(variant__isnull=True) | models.Q(rated=False),
                                   name="variant_match_is_unrated"),
        ]

    def __str__(self):
        return f"match {self.pk} ({self.game}, {self.status})"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.SET_ASIDE, self.Status.CANCELLED)

    @property
    def is_draw(self) -> bool:
        """Several seats placed first; in a cooperative game they are the team winning together, not a draw."""
        return len(self.winners) > 1 and not get_game(self.game).cooperative

    @property
    def public_seed(self) -> int | None:
        """The seed, once the match finished; None before: it regenerates every hidden hand of a card game."""
        return self.seed if self.status == self.Status.FINISHED else None

    def queue_position(self) -> int | None:
        """1 for the next match to run; None unless queued."""
        if self.status != self.Status.QUEUED:
            return None
        return Match.objects.queued().filter(id__lte=self.id).count()


class MatchSeatQuerySet(models.QuerySet):
    def shown(self):
        """Seats as pages show them: with their bots, owners and versions, whose numbers are shown but not
        the uploaded code nor its validation log, all in one query."""
        return self.select_related("bot__owner", "version").defer("version__code", "version__validation_log")

    def without_private_text(self):
        """For pages and lists: a seat's failure note and stderr (up to 64 KB) are shown only to those who
        may see its bot's code, so they are left out here and read for those seats by private_text."""
        return self.defer("detail", "log")

    def private_text(self, pks) -> dict[int, tuple[str, str]]:
        """{seat id: (its failure note, its stderr)} for the seats `pks`, in one query (none for no seat)."""
        if not pks:
            return {}
        return {pk: (detail, log) for pk, detail, log in self.filter(pk__in=pks).values_list("pk", "detail", "log")}


class MatchSeat(models.Model):
    class Status(models.TextChoices):
        PENDING = "", "pending"
        OK = Verdict.OK.value
        TIMEOUT = Verdict.TIMEOUT.value
        CRASH = Verdict.CRASH.value
        MEMORY = Verdict.MEMORY.value
        ILLEGAL = Verdict.ILLEGAL.value
        PROTOCOL = Verdict.PROTOCOL.value

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField(help_text="0-based seat number in the game.")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="seats")
    version = models.ForeignKey(
        "bots.BotVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="seats",
        help_text="The version that played; empty for built-in bots.",
    )
    score = models.FloatField(null=True, blank=True)
    placing = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = first; ties share a placing.")
    status = models.CharField(max_length=10, choices=Status.choices, blank=True, default=Status.PENDING,
                              help_text="The seat's verdict: ok, or how its bot failed.")
    detail = models.TextField(blank=True, help_text="The referee's note on a failure.")
    log = models.TextField(blank=True, help_text="The bot's stderr in this match; private to its owner.")
    think_time = models.FloatField(default=0.0, help_text="Seconds the bot spent deciding.")
    decisions = models.PositiveIntegerField(default=0)
    rating_before = models.FloatField(null=True, blank=True, help_text="The bot's rating when this rated match was applied.")
    rating_after = models.FloatField(null=True, blank=True)
    rated_number = models.PositiveIntegerField(
        null=True, blank=True, help_text="This was the bot's Nth rated match (1 = its first), in the order the "
                                         "ratings were applied: a rating chart's x, read without the match table.")

    objects = MatchSeatQuerySet.as_manager()

    class Meta:
        ordering = ["match", "seat"]
        indexes = [
            # A chart reads a page of bots' rating histories in order from this index alone.
            models.Index(fields=["bot", "rated_number"], include=["rating_after"], name="seat_rating_history"),
        ]
        constraints = [
            # One bot may fill several seats only in a cooperative game (services.seating says when).
            models.UniqueConstraint(fields=["match", "seat"], name="one_bot_per_seat"),
        ]

    def __str__(self):
        return f"seat {self.seat} of match {self.match_id}: {self.bot}"

    @property
    def rating_change(self) -> float | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


class MatchProgress(models.Model):
    """What spectators see of a match being played (matches.spectating), where the platform has no shared
    cache (the demo; with Redis it is kept there): the public view of its position, `spectator_delay` moves
    behind, written by the worker at most every ARENA_SPECTATOR_INTERVAL_SECONDS (never a write per move).
    Only the public view: never a hidden card, the seed or a seat's observation."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="progress")
    claim = models.UUIDField(help_text="The claim of the attempt that wrote it (a re-queued match starts over).")
    step = models.PositiveIntegerField(help_text="The step of the position shown.")
    view = models.JSONField(help_text="The game's public view of that position.")

    def __str__(self):
        return f"match {self.match_id} at step {self.step}"
