"""Building graded assignments for the platform tests: a course with people, bots, and a run driver."""

from datetime import timedelta

from django.utils import timezone

from arena.accounts.models import Course
from arena.bots.models import BotVersion
from arena.grading import runs, services
from arena.grading.models import Assignment, GradingRun
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT, play_now
from tournament_helpers import LOOKAHEAD_BOT, accepted_bot

# A bot that breaks the rules: End Game has no move called 'middle'.
ILLEGAL_BOT = "def act(observation):\n    return 'middle'\n"


def course_with_people(make_user, code="algo"):
    """A course with an instructor, a teaching assistant and three students (no teams)."""
    course = Course.objects.create(code=code, name=code.title(), time_zone="Europe/Paris")
    people = {"instructor": make_user(f"{code}-teacher"), "assistant": make_user(f"{code}-ta")}
    course.instructors.add(people["instructor"])
    course.teaching_assistants.add(people["assistant"])
    for name in ("ann", "ben", "cat"):
        people[name] = make_user(f"{code}-{name}")
        course.students.add(people[name])
    return course, people


def open_assignment(instructor, course, **fields):
    """An open End Game assignment, due in an hour."""
    now = timezone.now()
    fields = {"title": "Greedy and beyond", "game": "endgame", "opens_at": now - timedelta(days=7),
              "deadline": now + timedelta(hours=1), **fields}
    return services.create_assignment(instructor, course, **fields)


def pass_deadline(assignment):
    """Move the deadline a minute into the past, as if the hour had gone by (the graded versions settle)."""
    Assignment.objects.filter(pk=assignment.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assignment.refresh_from_db()


def submitted_bots(assignment, people, codes=None):
    """ann, ben and cat each submit an accepted bot (honest, one-move lookahead, illegal), uploaded an
    hour before the deadline; then the deadline passes."""
    codes = codes or {"ann": EXAMPLE_BOT.decode(), "ben": LOOKAHEAD_BOT, "cat": ILLEGAL_BOT}
    bots = {}
    for name, code in codes.items():
        bots[name] = accepted_bot(people[name], assignment.game, f"{name}-bot", code)
        BotVersion.objects.filter(bot=bots[name]).update(uploaded_at=assignment.deadline - timedelta(hours=1))
        services.submit(people[name], assignment, bots[name])
    pass_deadline(assignment)
    BotVersion.objects.filter(bot__in=bots.values()).update(uploaded_at=assignment.deadline - timedelta(hours=1))
    return bots


def play_run(run: GradingRun, limit: int = 2000) -> GradingRun:
    """Play every queued game of the run in this process, advancing after each, until it ends."""
    for _ in range(limit):
        run.refresh_from_db()
        if run.status != GradingRun.Status.RUNNING:
            return run
        match = run.games.filter(match__status=Match.Status.QUEUED).order_by("match_id").first()
        assert match is not None, "a running grading run with no game to play: it is stuck"
        play_now(match.match)
        runs.advance_run(run.pk)
    raise AssertionError("the grading run did not finish")
