"""Assignment domain verbs: create and change assignments and rubrics, submit, and the deadline rule.

Who may do what is checked here, with the roles of accounts.access: instructors change assignments and
rubrics, a student (or their team) submits, and the graded version follows `graded_version` whatever is
uploaded later.
"""

import math
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from games import ConfigError, get_game

from arena.accounts.access import NotAllowed, attends, staffs, teaches
from arena.accounts.models import Team
from arena.core.errors import Conflict, Invalid
from arena.bots.models import Bot, BotVersion

from . import parts
from .models import Adjustment, Assignment, RubricPart, Submission


class GradingError(Invalid):
    """A request about an assignment or its grading that cannot be met; the message says why."""


class GradingNotAllowed(GradingError, NotAllowed):
    """A grading verb that the user's role in the course does not allow."""


class GradingConflict(GradingError, Conflict):
    """The assignment (or the student's place in it) does not allow this now: not open, closed, no team (409)."""


class PartRefused(GradingError):
    """Rubric part options the part's kind cannot use; `field` names the option at fault (if one)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _require_instructor(user, course) -> None:
    if not teaches(user, course):
        raise GradingNotAllowed("only the course's instructors can change its assignments and rubrics")


# --- assignments and rubrics ------------------------------------------------------------------------------

ASSIGNMENT_FIELDS = ("title", "game", "config", "variant", "opens_at", "deadline", "team_size",
                     "late_penalty_per_day", "late_cutoff_days", "starter_code")


def create_assignment(user, course, **fields) -> Assignment:
    _require_instructor(user, course)
    assignment = Assignment(course=course, created_by=user)
    return _apply(assignment, fields)


def update_assignment(user, assignment: Assignment, **fields) -> Assignment:
    _require_instructor(user, assignment.course)
    return _apply(assignment, fields)


def _apply(assignment: Assignment, fields: dict) -> Assignment:
    unknown = set(fields) - set(ASSIGNMENT_FIELDS)
    if unknown:
        raise GradingError(f"unknown assignment fields: {', '.join(sorted(unknown))}")
    for name, value in fields.items():
        setattr(assignment, name, value)
    try:
        rules = get_game(assignment.game)
    except KeyError as exc:
        raise GradingError(f"unknown game {assignment.game!r}") from exc
    variant = assignment.variant
    if variant is not None:
        if variant.course_id != assignment.course_id or variant.game != assignment.game:
            raise GradingError(f"{variant.name} is not a {assignment.game} variant of this course")
        assignment.config = variant.config
    try:
        rules.new_game(rules.default_players, assignment.config or {})
    except ConfigError as exc:
        raise GradingError(f"these options cannot be played: {exc}") from exc
    if assignment.deadline <= assignment.opens_at:
        raise GradingError("the deadline must come after the opening")
    if not 1 <= assignment.team_size <= 6:
        raise GradingError("a team has 1 to 6 students")
    if assignment.late_penalty_per_day < 0 or assignment.late_penalty_per_day > 100:
        raise GradingError("the late penalty is a percentage per day, 0 to 100")
    assignment.title = assignment.title.strip() or f"{rules.title} assignment"
    assignment.save()
    return assignment


def add_part(user, assignment: Assignment, kind: str, weight: float, params: dict | None = None,
             label: str = "") -> RubricPart:
    """A rubric part of a registered kind (parts.KINDS), its options checked by the kind."""
    _require_instructor(user, assignment.course)
    try:
        part_type = parts.KINDS[kind]
    except KeyError as exc:
        raise GradingError(f"unknown rubric part {kind!r}; known: {', '.join(sorted(parts.KINDS))}") from exc
    if not weight > 0:
        raise GradingError("a part's weight is a positive number of points")
    try:
        params = part_type.clean(assignment, params or {})
    except parts.PartError as exc:
        raise PartRefused(f"{kind}: {exc}", exc.field) from exc
    order = assignment.rubric.count()
    return RubricPart.objects.create(assignment=assignment, kind=kind, weight=weight, params=params, order=order,
                                     label=label.strip() or part_type.describe(params))


def remove_part(user, part: RubricPart) -> None:
    _require_instructor(user, part.assignment.course)
    part.delete()


# --- submitting -------------------------------------------------------------------------------------------

def team_for(user, assignment: Assignment) -> Team | None:
    """The team `user` submits with, for a team assignment (GradingError if they have none)."""
    if not assignment.for_teams:
        return None
    team = Team.objects.filter(course=assignment.course, members=user).first()
    if team is None:
        raise GradingConflict("this assignment is for teams: ask your instructor to put you in one")
    return team


def submit(user, assignment: Assignment, bot: Bot) -> Submission:
    """Designate `bot` as your (team's) submission; again to change it.

    Only your own bot (or the one your team already submitted): submitting is what shows a bot's code to the
    course's staff and to the team (accounts.access.can_see_private), so it is the owner's act, never a mate's."""
    if not attends(user, assignment.course) or not assignment.course.students.filter(pk=user.pk).exists():
        raise GradingNotAllowed("only the course's students submit")
    if bot.game != assignment.game:
        raise GradingError(f"{bot} plays {bot.game}, not {assignment.game}")
    _check_window(assignment, timezone.now())
    team = team_for(user, assignment)
    key = {"team": team} if team else {"student": user, "team": None}
    already_the_teams = team is not None and assignment.submissions.filter(team=team, bot=bot).exists()
    if bot.owner_id != user.pk and not already_the_teams:
        raise GradingNotAllowed("submit one of your own bots" + (": each member submits their own for the team"
                                                             if team else ""))
    with transaction.atomic():
        submission, _ = Submission.objects.select_for_update().update_or_create(
            assignment=assignment, **key, defaults={"bot": bot, "student": user, "withdrawn_at": None})
    return submission


def withdraw(user, assignment: Assignment) -> Submission:
    """Take back your (team's) submission: the next runs grade nothing for it; the grades already given stay."""
    if not assignment.course.students.filter(pk=user.pk).exists():
        raise GradingNotAllowed("only the course's students submit")
    _check_window(assignment, timezone.now())
    submission = submission_of(user, assignment)
    if submission is None or submission.withdrawn_at is not None:
        raise GradingConflict("there is no submission to withdraw")
    submission.withdrawn_at = timezone.now()
    submission.save(update_fields=["withdrawn_at"])
    return submission


def _check_window(assignment: Assignment, now: datetime) -> None:
    """Submissions open at the opening and close at the deadline, or at the late cut-off when late work counts."""
    closes = assignment.closes_at
    if now < assignment.opens_at:
        raise GradingConflict("the assignment is not open yet")
    if now > closes:
        raise GradingConflict("submissions are closed: the deadline" + (" and the late period have" if
                                                                    assignment.late_cutoff_days else " has") + " passed")


def submission_of(user, assignment: Assignment) -> Submission | None:
    """The submission `user` is graded by: their own, or their team's for a team assignment."""
    submissions = assignment.submissions.select_related("bot", "team", "student")
    if assignment.for_teams:
        return submissions.filter(team__members=user).first()
    return submissions.filter(student=user, team=None).first()


def visible_bots(user, assignment: Assignment):
    """The bots `user` may submit: their own (see submit)."""
    return Bot.objects.filter(owner=user, game=assignment.game).select_related("owner")


# --- the deadline rule ------------------------------------------------------------------------------------

# The note of a grade (and of a run's plan) for a submission its student withdrew.
WITHDRAWN = "withdrawn by the student"


@dataclass
class Graded:
    version: BotVersion | None
    late_days: int
    note: str


def graded_version(assignment: Assignment, bot: Bot) -> Graded:
    """The version of `bot` that counts for `assignment` (see `counting_version`)."""
    accepted = bot.versions.filter(status=BotVersion.Status.ACCEPTED).defer("code", "validation_log")
    return counting_version(assignment, list(accepted))


def counting_version(assignment: Assignment, accepted: list[BotVersion], now: datetime | None = None) -> Graded:
    """Of a bot's accepted versions, the one that counts: the newest uploaded by the deadline; failing that
    (late work), the newest uploaded before the late cut-off, with the days late (each started day counts).
    Anything uploaded later never counts. Pure but for `now` (what the note says of a version still to come),
    so a page can decide for a whole class from one query."""
    newest_first = sorted(accepted, key=lambda v: (v.uploaded_at, v.number), reverse=True)
    on_time = next((v for v in newest_first if v.uploaded_at <= assignment.deadline), None)
    if on_time is not None:
        return Graded(on_time, 0, "")
    if assignment.late_cutoff_days:
        late = next((v for v in newest_first if v.uploaded_at <= assignment.closes_at), None)
        if late is not None:
            return Graded(late, late_days(assignment.deadline, late.uploaded_at), "late")
    return Graded(None, 0, _nothing_counts(assignment, now or timezone.now()))


def _nothing_counts(assignment: Assignment, now: datetime) -> str:
    """Why no version counts, in the words true at `now`: before the deadline nothing is late yet."""
    if now <= assignment.deadline:
        return "no version has passed validation yet"
    if assignment.late_cutoff_days and now <= assignment.closes_at:
        return "no version passed validation by the deadline; one that passes before the late cut-off counts, late"
    return "no version that passed validation was uploaded by the deadline" + (
        " or the late cut-off" if assignment.late_cutoff_days else "")


def counting_versions(assignment: Assignment, bots: list[Bot]) -> dict[int, Graded]:
    """`counting_version` of each bot (by id), from one query."""
    accepted: dict[int, list[BotVersion]] = {bot.pk: [] for bot in bots}
    for version in BotVersion.objects.filter(bot__in=bots, status=BotVersion.Status.ACCEPTED).defer(
            "code", "validation_log"):
        accepted[version.bot_id].append(version)
    return {bot_id: counting_version(assignment, versions) for bot_id, versions in accepted.items()}


def late_days(deadline: datetime, uploaded_at: datetime) -> int:
    return max(0, math.ceil((uploaded_at - deadline).total_seconds() / 86400))


def late_factor(assignment: Assignment, days: int) -> float:
    return max(0.0, 1 - assignment.late_penalty_per_day * days / 100)


# --- manual adjustments -----------------------------------------------------------------------------------

def adjust(user, submission: Submission, points: float, comment: str) -> Adjustment:
    """Add `points` (negative to take away) to a submission's grade, with the reason, kept in its history.
    Teaching assistants may annotate (0 points); changing the grade is for instructors."""
    course = submission.assignment.course
    if not staffs(user, course):
        raise GradingNotAllowed("only the course's instructors and teaching assistants can annotate grades")
    if points and not teaches(user, course):
        raise GradingNotAllowed("teaching assistants annotate (0 points); only instructors change a grade")
    comment = comment.strip()
    if not comment:
        raise GradingError("say why: an adjustment needs a comment")
    return Adjustment.objects.create(submission=submission, points=points, comment=comment, author=user)
