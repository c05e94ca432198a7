"""Assignments of a course, students' (or teams') submissions, rubrics, grading runs and grades.

A grading run is a state machine in the database (see runs.py): its games are ordinary matches (purpose
`grading`), cached in `GradingGame` by what decides their outcome (version, opponent, seed, seats, rules),
so a re-run after a rubric change replays nothing it already has; each `Grade` stores the evidence behind
every number (which matches, versions and seeds).
"""

import random
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


def new_seed() -> int:
    return random.SystemRandom().getrandbits(48)


class AssignmentQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Assignments of the courses `user` teaches, assists in or takes (all for operators)."""
        from arena.accounts.access import courses_seen_by

        return self.filter(course__in=courses_seen_by(user)) if user.is_authenticated else self.none()


class Assignment(models.Model):
    course = models.ForeignKey("accounts.Course", on_delete=models.CASCADE, related_name="assignments")
    title = models.CharField(max_length=120)
    game = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True, help_text="Game options (a variant's copy when one is chosen).")
    variant = models.ForeignKey("variants.Variant", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="assignments")
    opens_at = models.DateTimeField(help_text="Stored in UTC; shown in the course's time zone.")
    deadline = models.DateTimeField(help_text="Stored in UTC; shown in the course's time zone.")
    team_size = models.PositiveSmallIntegerField(default=1, help_text="1: individual work; 2 or more: teams submit.")
    late_penalty_per_day = models.FloatField(default=0, help_text="Percent of the total lost per day late (started).")
    late_cutoff_days = models.PositiveSmallIntegerField(
        default=0, help_text="Late work is accepted this many days after the deadline; 0: no late work.")
    starter_code = models.TextField(blank=True)
    seed = models.BigIntegerField(default=new_seed, help_text="Every grading game's seed derives from it.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["course", "deadline", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(deadline__gt=models.F("opens_at")),
                                              name="deadline_after_opening")]

    def __str__(self):
        return self.title

    @property
    def for_teams(self) -> bool:
        return self.team_size > 1

    @property
    def closes_at(self):
        """When submissions close: the deadline, or the end of the late period when late work counts."""
        return self.deadline + timedelta(days=self.late_cutoff_days)

    @property
    def results_published(self) -> bool:
        """Whether students see the games behind their grades (their seeds and replays): once nobody can submit
        any more, so that no seed seen helps anyone tune a bot for the boards it will be graded on."""
        return timezone.now() > self.closes_at


class Submission(models.Model):
    """A student (or a team) designates one of their bots; which version is graded follows the deadline rule."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="submissions")
    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions",
                                help_text="Who designated the bot.")
    team = models.ForeignKey("accounts.Team", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="submissions", help_text="For team assignments: the team submitting.")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="submissions")
    submitted_at = models.DateTimeField(auto_now=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True,
                                        help_text="Set when the student withdraws it: nothing is graded until "
                                                  "they submit again; earlier grades are kept.")

    class Meta:
        ordering = ["assignment", "id"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "team"], condition=models.Q(team__isnull=False),
                                    name="one_submission_per_team"),
            models.UniqueConstraint(fields=["assignment", "student"], condition=models.Q(team__isnull=True),
                                    name="one_submission_per_student"),
        ]

    def __str__(self):
        return f"{self.label}: {self.bot.label}"

    @property
    def label(self) -> str:
        return self.team.name if self.team_id else self.student.username


class RubricPart(models.Model):
    """One part of an assignment's rubric: a part type of the registry (parts.py), its weight and options."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="rubric")
    kind = models.CharField(max_length=30)
    label = models.CharField(max_length=80)
    weight = models.FloatField(help_text="Points this part is worth.")
    params = models.JSONField(default=dict, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["assignment", "order", "id"]

    def __str__(self):
        return f"{self.label} ({self.weight:g})"


class GradingGame(models.Model):
    """The cache of grading matches: one match per (version, opponent, seed, seats, rules), reused by every run."""

    match = models.OneToOneField("matches.Match", on_delete=models.PROTECT, related_name="grading_game")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="grading_games")
    opponent = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="+")
    seed = models.BigIntegerField()
    seat = models.PositiveSmallIntegerField(help_text="The graded bot's seat (the opponent has the other).")
    rules = models.CharField(max_length=64, help_text="Digest of the game and its options.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "opponent", "seed", "seat", "rules"],
                                               name="grading_game_cache_key")]


class GradingRunQuerySet(models.QuerySet):
    def in_progress(self):
        return self.filter(status=GradingRun.Status.RUNNING)

    def awaiting(self):
        """Runs an advance may change: running ones, and finished ones with grades incomplete for lack of a
        set-aside game (which the staff may have played again since)."""
        return self.filter(models.Q(status=GradingRun.Status.RUNNING)
                           | models.Q(status=GradingRun.Status.FINISHED, grades__incomplete=True)).distinct()


class GradingRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        # Only runs of earlier releases, which failed for the whole class when one game kept failing; a run
        # now finishes without a set-aside game (its grades that need it are incomplete).
        FAILED = "failed"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField(help_text="1, 2, ... within the assignment (its first run is run 1).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    rubric = models.JSONField(default=list, help_text="The rubric as it was when the run started.")
    plan = models.JSONField(default=dict, help_text="Submission id -> the version graded, days late, note.")
    games = models.ManyToManyField(GradingGame, related_name="runs", blank=True)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = GradingRunQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["assignment", "number"], name="run_number_unique_per_assignment")]

    def __str__(self):
        return f"grading run {self.number} of {self.assignment}"


class Grade(models.Model):
    """What one run measured for one submission, with the evidence behind every number."""

    run = models.ForeignKey(GradingRun, on_delete=models.CASCADE, related_name="grades")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="grades")
    bot = models.ForeignKey("bots.Bot", null=True, on_delete=models.PROTECT, related_name="+",
                            help_text="The bot the submission designated when graded (it may designate another "
                                      "since).")
    version = models.ForeignKey("bots.BotVersion", null=True, on_delete=models.PROTECT, related_name="+",
                                help_text="The version graded; empty when none counts (see note).")
    late_days = models.PositiveSmallIntegerField(default=0)
    parts = models.JSONField(default=list, help_text="Per rubric part: points, fraction, detail, matches, seeds.")
    measured = models.FloatField(help_text="Sum of the parts' points.")
    total = models.FloatField(help_text="After the late penalty, before manual adjustments.")
    note = models.CharField(max_length=200, blank=True)
    incomplete = models.BooleanField(
        default=False, help_text="A game it needs was set aside by a platform fault: those parts have no points "
                                 "until the staff play it again (runs.replay_set_aside).")

    class Meta:
        ordering = ["run", "submission"]
        constraints = [models.UniqueConstraint(fields=["run", "submission"], name="one_grade_per_run")]


class Adjustment(models.Model):
    """A manual change of a submission's grade, with its reason; adjustments outlive re-runs and add up."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="adjustments")
    points = models.FloatField(help_text="Added to the measured total (negative to take away); 0 for a note.")
    comment = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["submission", "created_at", "id"]
        constraints = [models.CheckConstraint(condition=~models.Q(comment=""), name="adjustment_has_comment")]
