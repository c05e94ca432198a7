"""What an assignment looks like to its staff: a row per student or team with every rubric part, the class at
a glance, a drill-down behind any number, and the gradebook CSV. The pages and the API show this, so they agree."""

import csv
import io

from django.db.models import Prefetch, Sum

from accounts.models import RosterEntry
from bots.models import BotVersion
from matches.models import Match

from . import charts
from .models import Assignment, Grade, GradingRun, Submission
from .runs import progress

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


def rows(assignment: Assignment, graded: GradingRun | None, sort: str = "name") -> list[dict]:
    submissions = {_key(s): s for s in assignment.submissions.select_related("bot__owner", "team", "student")}
    grades = {g.submission_id: g for g in (graded.grades.select_related("version") if graded else [])}
    adjusted = dict(assignment.submissions.annotate(points=Sum("adjustments__points")).values_list("pk", "points"))
    result = []
    for submitter in _submitters(assignment):
        submission = submissions.get(submitter["key"])
        grade = grades.get(submission.pk) if submission else None
        adjustment = (adjusted.get(submission.pk) or 0.0) if submission else 0.0
        total = None if grade is None else round(grade.total + adjustment, 4)
        result.append({**submitter, "submission": submission, "grade": grade, "adjustment": adjustment,
                       "total": total, "late_days": grade.late_days if grade else None,
                       "points": {p["part"]: p["points"] for p in grade.parts} if grade else {}})
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


def failing_validation(assignment: Assignment) -> list[Submission]:
    """Submissions whose bot has no version that passed validation, or whose newest version was rejected."""
    failing = []
    # Every bot's versions in one query, newest first (without their code), rather than two queries a bot.
    versions = Prefetch("bot__versions", to_attr="newest_first",
                        queryset=BotVersion.objects.order_by("-number").defer("code", "validation_log"))
    for submission in assignment.submissions.select_related("bot__owner", "team", "student").prefetch_related(versions):
        newest = submission.bot.newest_first[0] if submission.bot.newest_first else None
        accepted = any(version.status == BotVersion.Status.ACCEPTED for version in submission.bot.newest_first)
        if newest is None or newest.status == BotVersion.Status.REJECTED or not accepted:
            failing.append(submission)
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
        "missing": [row for row in table if row["submission"] is None],
        "failing": failing_validation(assignment),
        "histogram": charts.histogram([row["total"] for row in table if row["total"] is not None], maximum),
        "timeline": charts.timeline(uploads, assignment.opens_at, assignment.deadline),
    }


def drill_down(submission: Submission, graded: GradingRun | None) -> dict:
    """A submission's grade part by part, each with the games behind it (seed, seats, opponent, result)."""
    grade = Grade.objects.filter(run=graded, submission=submission).select_related("version").first() if graded else None
    adjustment = submission.adjustments.aggregate(points=Sum("points"))["points"] or 0.0
    return {"submission": submission, "grade": grade, "run": graded,
            "parts": [{**part, "games": _games(part["matches"], submission.bot_id)} for part in grade.parts] if grade else [],
            "adjustments": submission.adjustments.select_related("author"),
            "adjustment": adjustment, "final": round(grade.total + adjustment, 4) if grade else None}


def _games(match_ids: list[int], bot_id: int) -> list[dict]:
    games = []
    for match in Match.objects.without_replay().filter(pk__in=match_ids).prefetch_related("seats__bot__owner").order_by("id"):
        seats = list(match.seats.all())
        mine = next(seat for seat in seats if seat.bot_id == bot_id)
        result = "draw" if mine.seat in match.winners and match.is_draw else (
            "won" if mine.seat in match.winners else "lost")
        games.append({"match": match, "seat": mine.seat, "status": mine.status, "score": mine.score,
                      "opponents": ", ".join(seat.bot.label for seat in seats if seat is not mine), "result": result})
    return games


def gradebook_csv(assignment: Assignment) -> str:
    """One line per student (team members each get their team's grade), ready for an LMS gradebook import:
    student id, email, name, total, each part, late days."""
    _, graded = latest_runs(assignment)
    columns = rubric_columns(assignment, graded)
    roster = {entry.user_id: entry for entry in RosterEntry.objects.filter(course=assignment.course)}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_cell(text) for text in ["student_id", "email", "name", "total",
                                              *[c["label"] for c in columns], "late_days"]])
    for row in rows(assignment, graded):
        for member in row["members"]:
            entry = roster.get(member.pk)
            name = entry.name if entry else (member.get_full_name() or member.username)
            writer.writerow([_cell(entry.student_id if entry else ""), _cell(entry.email if entry else member.email),
                             _cell(name), _number(row["total"]),
                             *[_number(row["points"].get(c["part"])) for c in columns],
                             "" if row["late_days"] is None else row["late_days"]])
    return out.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula gets a leading quote (OWASP's
    advice on CSV injection), so that a name such as `=HYPERLINK(...)` is never run on the instructor's machine."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _number(value) -> str:
    return "" if value is None else f"{value:g}"
