"""Enrolling people in a course: the invitation link, the roster CSV, teaching assistants and teams.

Each verb checks its caller's role (accounts.access) itself, so that pages and the API cannot diverge.
"""

import csv
import io
import re
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from arena.errors import Invalid

from .access import NotAllowed, staffs, teaches
from .models import Course, RosterEntry, Team, new_invite_code, validate_time_zone

ROSTER_COLUMNS = ("student_id", "email", "name")


class PeopleError(Invalid):
    """A request about a course's people that cannot be met; the message says why."""


class PeopleNotAllowed(PeopleError, NotAllowed):
    """A change to a course's people that the user's role does not allow."""


def _require_instructor(user, course: Course) -> None:
    if not teaches(user, course):
        raise PeopleNotAllowed("only the course's instructors can change its people")


# --- invitation link --------------------------------------------------------------------------------------

def invited_course(code: str) -> Course:
    """The course whose invitation code is `code`."""
    course = Course.objects.filter(invite_code=code).first()
    if course is None:
        raise PeopleError("this invitation link is not valid (any more): ask your instructor for the current one")
    return course


def join(user, code: str) -> Course:
    """Enrol `user` as a student of the course whose invitation code is `code` (its staff stay staff:
    a student's role would mix their own work into the grades they give)."""
    course = invited_course(code)
    if staffs(user, course):
        raise PeopleError(f"you teach {course.name}: staff do not enrol as students")
    course.students.add(user)
    return course


def reset_invite(user, course: Course) -> str:
    """A new invitation code; links with the old one stop working."""
    _require_instructor(user, course)
    course.invite_code = new_invite_code()
    course.save(update_fields=["invite_code"])
    return course.invite_code


# --- roster CSV -------------------------------------------------------------------------------------------

@dataclass
class RosterReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # {"line", "row", "reason"}

    def as_dict(self) -> dict:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged,
                "failed": self.failed}


def import_roster(user, course: Course, text: str) -> RosterReport:
    """Enrol the students of a roster CSV (header `student_id,email,name`; a row per student).

    A student is matched to an account by e-mail (one is created, without a password, when none exists) and
    their roster entry created or updated in place: uploading the same file again changes nothing. Every row
    that cannot be used is reported with its line number and why; the others are imported.
    """
    _require_instructor(user, course)
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [column for column in ROSTER_COLUMNS if column not in header]
    if missing:
        raise PeopleError(f"the roster's first line must name the columns {', '.join(ROSTER_COLUMNS)} "
                          f"(missing: {', '.join(missing)})")
    reader.fieldnames = header
    report = RosterReport()
    seen_ids: dict[str, int] = {}
    seen_emails: dict[str, int] = {}
    for line, row in enumerate(reader, start=2):
        values = {column: (row.get(column) or "").strip() for column in ROSTER_COLUMNS}
        try:
            _check_row(values, line, seen_ids, seen_emails)
            with transaction.atomic():
                outcome = _enrol_row(course, **values)
        except PeopleError as exc:
            report.failed.append({"line": line, "row": values, "reason": str(exc)})
            continue
        getattr(report, outcome).append(values["student_id"])
    return report


def _check_row(values: dict, line: int, seen_ids: dict, seen_emails: dict) -> None:
    for column in ROSTER_COLUMNS:
        if not values[column]:
            raise PeopleError(f"{column} is empty")
    try:
        validate_email(values["email"])
    except ValidationError as exc:
        raise PeopleError(f"{values['email']!r} is not an e-mail address") from exc
    for key, seen, what in ((values["student_id"], seen_ids, "student id"),
                            (values["email"].lower(), seen_emails, "e-mail")):
        if key in seen:
            raise PeopleError(f"the same {what} as line {seen[key]}")
        seen[key] = line


def _enrol_row(course: Course, student_id: str, email: str, name: str) -> str:
    """Create or update one student's entry; 'created', 'updated' or 'unchanged'."""
    users = get_user_model().objects
    account = users.filter(email__iexact=email).order_by("id").first()
    entry = RosterEntry.objects.filter(course=course, student_id=student_id).first()
    if entry is not None and account is not None and entry.user_id != account.pk:
        raise PeopleError(f"student id {student_id} is enrolled as {entry.user.username}, but {email} belongs "
                          f"to {account.username}")
    if account is None:
        account = entry.user if entry else _new_account(email, name)
    other = RosterEntry.objects.filter(course=course, user=account).exclude(student_id=student_id).first()
    if other is not None:
        raise PeopleError(f"{email} is already enrolled under student id {other.student_id}")
    course.students.add(account)
    if entry is None:
        RosterEntry.objects.create(course=course, user=account, student_id=student_id, email=email, name=name)
        return "created"
    if (entry.email, entry.name) == (email, name):
        return "unchanged"
    entry.email, entry.name = email, name
    entry.save(update_fields=["email", "name"])
    return "updated"


def _new_account(email: str, name: str):
    """An account for a rostered student who has none yet: named after the e-mail, no usable password
    (they set one through the password reset, or an operator does)."""
    users = get_user_model().objects
    base = re.sub(r"[^\w.@+-]", "", email.split("@")[0])[:140] or "student"
    username, number = base, 1
    while users.filter(username=username).exists():
        number += 1
        username = f"{base}{number}"
    first, _, last = name.partition(" ")
    account = users.create_user(username=username, email=email, first_name=first[:150], last_name=last[:150])
    account.set_unusable_password()
    account.save(update_fields=["password"])
    return account


# --- the course ----------------------------------------------------------------------------------------------

def set_time_zone(user, course: Course, name: str) -> None:
    """The zone the course's deadlines are shown (and entered) in; they stay stored in UTC."""
    _require_instructor(user, course)
    try:
        validate_time_zone(name)
    except ValidationError as exc:
        raise PeopleError(exc.messages[0]) from exc
    course.time_zone = name
    course.save(update_fields=["time_zone"])


# --- assistants and teams ---------------------------------------------------------------------------------

def add_assistant(user, course: Course, assistant) -> None:
    _require_instructor(user, course)
    course.teaching_assistants.add(assistant)


def create_team(user, course: Course, name: str, members) -> Team:
    """A team of the course's students; a student belongs to at most one team of a course."""
    _require_instructor(user, course)
    members = list(members)
    name = name.strip()
    if not name:
        raise PeopleError("give the team a name")
    if not members:
        raise PeopleError("a team needs at least one member")
    outsiders = [m.username for m in members if not course.students.filter(pk=m.pk).exists()]
    if outsiders:
        raise PeopleError(f"not students of {course}: {', '.join(outsiders)}")
    taken = Team.objects.filter(course=course, members__in=members).values_list("members__username", flat=True)
    already = sorted(set(taken) & {m.username for m in members})
    if already:
        raise PeopleError(f"already in a team of this course: {', '.join(already)}")
    if Team.objects.filter(course=course, name=name).exists():
        raise PeopleError(f"there is already a team named {name!r}")
    team = Team.objects.create(course=course, name=name)
    team.members.set(members)
    return team


def team_of(user, course: Course) -> Team | None:
    return Team.objects.filter(course=course, members=user).first()
