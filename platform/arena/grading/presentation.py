"""What an assignment looks like to its staff: a row per student or team with every rubric part, the class at
a glance, a drill-down behind any number, and the gradebook CSV. The pages and the API show this, so they agree."""

import csv
import io
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Sum

from arena.accounts.identity import display_names
from arena.accounts.models import RosterEntry
from arena.core.downloads import spreadsheet_text
from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match

from . import charts
from .models import Assignment, Grade, GradingRun, Submission
from .runs import progress
from .services import Graded, counting_versions, late_days, late_factor

# Columns the dashboard sorts by (a leading "-" for descending); "part-<id>" sorts by one rubric part.
SORT_COLUMNS = {"name": lambda row: row["label"], "total": lambda row: row["total"],
                "late_days": lambda row: row["late_days"]}


def latest_runs(assignment: Assignment) -> tuple[GradingRun | None, GradingRun | None]:
    """The newest run (whatever its state) and the newest finished one, whose grades are shown."""
    runs = assignment.runs.order_by("-id")
    return runs.first(), runs.filter(status=GradingRun.Status.FINISHED).first()


def rubric_columns(assignment: Assignment, graded: GradingRun | None) -> list[dict]:
    """The parts as graded by the shown run (its snapshot), else the current rubric."""
    if graded is not None:
        return [{"part": p["part"], "label": p["label"], "weight": p["weight"]} for p in graded.rubric]
    return [{"part": p.pk, "label": p.label, "weight": p.weight} for p in assignment.rubric.all()]


def _submitters(assignment: Assignment) -> list[dict]:
    """Everyone who should submit: the course's teams for a team assignment (and students in none), else students."""
    course = assignment.course
    students = list(course.students.order_by("username"))
    if not assignment.for_teams:
        return [{"key": ("student", s.pk), "label": s.username, "members": [s]} for s in students]
    teams = list(course.teams.prefetch_related("members"))
    in_teams = {m.pk for team in teams for m in team.members.all()}
    return ([{"key": ("team", t.pk), "label": t.name, "members": list(t.members.all())} for t in teams]
            + [{"key": ("student", s.pk), "label": f"{s.username} (no team)", "members": [s]}
               for s in students if s.pk not in in_teams])


def _key(submission: Submission):
    return ("team", submission.team_id) if submission.team_id else ("student", submission.student_id)


def pending(submission: Submission, grade: Grade | None, counts: Graded) -> str:
    """Why `grade` (the submission's last) is not the grade of the submission as it stands, or "" if it is:
    the student may have designated another bot, uploaded a version that now counts, or withdrawn."""
    if submission.withdrawn_at is not None:
        return "withdrawn: nothing is graded until a bot is submitted again"
    if grade is None:
        return "not graded yet"
    if grade.bot_id != submission.bot_id:
        return "not graded yet for this bot"
    if grade.version_id != (counts.version.pk if counts.version else None):
        return (f"not graded yet for v{counts.version.number}, the version that counts now" if counts.version
                else "not graded yet: no version of this bot counts now")
    return ""


def graded_label(grade: Grade | None) -> str:
    """What a grade graded, e.g. "ann/greedy v2", read from the grade (not from the submission as it is now)."""
    if grade is None or grade.bot is None:
        return ""
    return grade.bot.label + (f" v{grade.version.number}" if grade.version else "")


def rows(assignment: Assignment, graded: GradingRun | None, sort: str = "name") -> list[dict]:
    submissions = {_key(s): s for s in assignment.submissions.select_related("bot__owner", "team", "student")}
    counts = counting_versions(assignment, [s.bot for s in submissions.values()])
    grades = {g.submission_id: g for g in (graded.grades.select_related("version", "bot__owner") if graded else [])}
    adjusted = dict(assignment.submissions.annotate(points=Sum("adjustments__points")).values_list("pk", "points"))
    result = []
    for submitter in _submitters(assignment):
        submission = submissions.get(submitter["key"])
        grade = grades.get(submission.pk) if submission else None
        adjustment = (adjusted.get(submission.pk) or 0.0) if submission else 0.0
        total = None if grade is None else round(grade.total + adjustment, 4)
        result.append({**submitter, "submission": submission, "grade": grade, "adjustment": adjustment,
                       "total": total, "late_days": grade.late_days if grade else None,
                       "counts": counts[submission.bot_id] if submission else None,
                       "pending": pending(submission, grade, counts[submission.bot_id]) if submission else "",
                       "graded_label": graded_label(grade),
                       # A part lacking a set-aside game has no points yet (None: shown as incomplete).
                       "points": {p["part"]: None if p.get("incomplete") else p["points"] for p in grade.parts}
                       if grade else {}})
    return sort_rows(result, sort)


def sort_rows(table: list[dict], sort: str) -> list[dict]:
    """Rows sorted by a column; rows without a value (not submitted, not graded) go last either way."""
    value = _column(sort.lstrip("-"))
    if value is None:
        return table
    valued = sorted((row for row in table if value(row) is not None), key=value, reverse=sort.startswith("-"))
    return valued + [row for row in table if value(row) is None]


def _column(column: str):
    """How to read a sort column's value from a row, or None for an unknown column."""
    if column.startswith("part-") and column[5:].isdigit():
        part = int(column[5:])
        return lambda row: row["points"].get(part)
    return SORT_COLUMNS.get(column)


def failing_validation(assignment: Assignment, table: list[dict]) -> list[dict]:
    """The dashboard's rows with no version that counts: a submission none of whose versions passed validation
    in time, or nobody's submission while every upload of the members' bots of the game was rejected (whose
    only bot failed validation has nothing to submit). A newer upload that failed does not matter while an
    older accepted one counts. Each: {"label", "bot" (the submitted or the rejected bot), "why"}."""
    unsubmitted = {member.pk: row for row in table if row["submission"] is None or row["submission"].withdrawn_at
                   for member in row["members"]}
    rejected: dict[int, Bot] = {}
    for bot in (Bot.objects.filter(owner__in=unsubmitted, game=assignment.game).exclude(
            versions__status=BotVersion.Status.ACCEPTED).filter(versions__status=BotVersion.Status.REJECTED)
            .distinct().order_by("pk")):
        rejected.setdefault(bot.owner_id, bot)
    failing = [{"label": row["label"], "bot": row["submission"].bot, "why": row["counts"].note}
               for row in table if row["submission"] is not None and row["submission"].withdrawn_at is None
               and row["counts"].version is None]
    reported = set()
    for owner, bot in rejected.items():
        row = unsubmitted[owner]
        if id(row) not in reported:
            reported.add(id(row))
            failing.append({"label": row["label"], "bot": bot,
                            "why": "not submitted: every upload of this bot failed validation"})
    return failing


def dashboard(assignment: Assignment, sort: str = "name") -> dict:
    latest, graded = latest_runs(assignment)
    table = rows(assignment, graded, sort)
    columns = rubric_columns(assignment, graded)
    maximum = sum(column["weight"] for column in columns)
    uploads = list(BotVersion.objects.filter(bot__submissions__assignment=assignment)
                   .values_list("uploaded_at", flat=True).distinct())
    return {
        "latest": latest, "graded": graded, "progress": progress(latest) if latest else None,
        "columns": columns, "rows": table, "maximum": maximum, "sort": sort,
        "missing": [row for row in table if row["submission"] is None or row["submission"].withdrawn_at],
        "failing": failing_validation(assignment, table),
        "histogram": charts.histogram([row["total"] for row in table if row["total"] is not None], maximum),
        "timeline": charts.timeline(uploads, assignment.opens_at, assignment.deadline),
    }


def drill_down(submission: Submission, graded: GradingRun | None) -> dict:
    """A submission's last grade part by part, each with the games behind it (seed, seats, opponent, result),
    and whether that grade is of the submission as it stands (`pending` says why not)."""
    grade = (Grade.objects.filter(run=graded, submission=submission).select_related("version", "bot__owner").first()
             if graded else None)
    counts = counting_versions(submission.assignment, [submission.bot])[submission.bot_id]
    adjustment = submission.adjustments.aggregate(points=Sum("points"))["points"] or 0.0
    return {"submission": submission, "grade": grade, "run": graded, "counts": counts,
            "pending": pending(submission, grade, counts), "graded_label": graded_label(grade),
            "maximum": sum(part["weight"] for part in graded.rubric) if graded else None,
            "parts": [{**part, "games": _games(part["matches"], grade.bot_id)} for part in grade.parts] if grade else [],
            "adjustments": submission.adjustments.select_related("author"),
            "adjustment": adjustment, "final": round(grade.total + adjustment, 4) if grade else None}


def _games(match_ids: list[int], bot_id: int) -> list[dict]:
    """The games of the graded bot (the grade's, whatever the submission designates now)."""
    games = []
    for match in Match.objects.without_replay().filter(pk__in=match_ids).prefetch_related("seats__bot__owner").order_by("id"):
        seats = list(match.seats.all())
        mine = next(seat for seat in seats if seat.bot_id == bot_id)
        result = match.get_status_display() if match.status != Match.Status.FINISHED else (
            "draw" if mine.seat in match.winners and match.is_draw else "won" if mine.seat in match.winners else "lost")
        games.append({"match": match, "seat": mine.seat, "status": mine.status, "score": mine.score,
                      "opponents": ", ".join(seat.bot.label for seat in seats if seat is not mine), "result": result})
    return games


@dataclass(frozen=True)
class DeadlineState:
    """Where an assignment stands in time, as its students read it."""

    phase: str  # "not open", "open", "late" (past the deadline, late work accepted) or "closed"
    text: str
    late_days_now: int  # how late an upload made now would be
    penalty_now: float  # the percent of the total it would lose


def penalty_percent(assignment: Assignment, days: int) -> float:
    return round(100 * (1 - late_factor(assignment, days)), 2)


def deadline_state(assignment: Assignment, now: datetime) -> DeadlineState:
    cutoff = assignment.deadline + timedelta(days=assignment.late_cutoff_days)
    if now < assignment.opens_at:
        return DeadlineState("not open", "Not open yet: submissions open at the opening.", 0, 0.0)
    if now <= assignment.deadline:
        return DeadlineState("open", "Open: the deadline has not passed; what you upload now is on time.", 0, 0.0)
    if now <= cutoff:
        days = late_days(assignment.deadline, now)
        penalty = penalty_percent(assignment, days)
        return DeadlineState("late", f"The deadline has passed. Late work is accepted until the cut-off: an upload "
                                     f"now would be {days} day{'s' if days != 1 else ''} late, "
                                     f"−{penalty:g}% of the total.", days, penalty)
    return DeadlineState("closed", "Closed: the deadline" + (" and the late period have" if assignment.late_cutoff_days
                                                            else " has") + " passed; later uploads never count.", 0, 0.0)


def counting_note(assignment: Assignment, counts: Graded) -> str:
    """Which version of a bot counts, in words: "v2 (on time)", "v3, 2 days late: −20%", or why none does."""
    if counts.version is None:
        return counts.note
    if not counts.late_days:
        return f"v{counts.version.number} (on time)"
    return (f"v{counts.version.number}, {counts.late_days} day{'s' if counts.late_days != 1 else ''} late: "
            f"−{penalty_percent(assignment, counts.late_days):g}%")


def submit_warnings(assignment: Assignment, bots: list) -> dict[int, str]:
    """For the bots a student may submit: why designating one would cost marks (only late versions count, or
    none), by bot id; bots whose version counts on time are absent."""
    counted = counting_versions(assignment, bots)
    return {bot.pk: f"{bot.label}: {counting_note(assignment, counted[bot.pk])}" for bot in bots
            if counted[bot.pk].version is None or counted[bot.pk].late_days}


def gradebook_csv(assignment: Assignment) -> str:
    """One line per student (team members each get their team's grade), ready for an LMS gradebook import:
    student id, email, name, total, each part, late days."""
    _, graded = latest_runs(assignment)
    columns = rubric_columns(assignment, graded)
    roster = {entry.user_id: entry for entry in RosterEntry.objects.filter(course=assignment.course)}
    shown = rows(assignment, graded)
    names = display_names(member for row in shown for member in row["members"])
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([spreadsheet_text(text) for text in ["student_id", "email", "name", "total",
                                              *[c["label"] for c in columns], "late_days"]])
    for row in shown:
        for member in row["members"]:
            entry = roster.get(member.pk)
            name = entry.name if entry else names[member.pk]
            writer.writerow([spreadsheet_text(entry.student_id if entry else ""), spreadsheet_text(entry.email if entry else member.email),
                             spreadsheet_text(name), _number(row["total"]),
                             *[_number(row["points"].get(c["part"])) for c in columns],
                             "" if row["late_days"] is None else row["late_days"]])
    return out.getvalue()


def _number(value) -> str:
    return "" if value is None else f"{value:g}"
