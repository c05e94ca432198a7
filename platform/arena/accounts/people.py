"""Enrolling people in a course: the invitation link, the roster CSV and its mailed invitations, teaching
assistants and teams.

Each verb checks its caller's role (accounts.access) itself, so that pages and the API cannot diverge.
"""

import csv
import io
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from arena.core.errors import Conflict, Invalid

from .access import NotAllowed, staffs, teaches
from .identity import display_name
from .mail import mail_on_commit, site_link
from .models import (Course, Invitation, RosterEntry, Team, new_invitation_token, new_invite_code, profile_of,
                     validate_time_zone)

ROSTER_COLUMNS = ("student_id", "email", "name")
# The longest value of each column that the roster's records hold.
ROSTER_LENGTHS = {column: RosterEntry._meta.get_field(column).max_length for column in ROSTER_COLUMNS}


class PeopleError(Invalid):
    """A request about a course's people that cannot be met; the message says why."""


class PeopleNotAllowed(PeopleError, NotAllowed):
    """A change to a course's people that the user's role does not allow."""


class PeopleConflict(PeopleError, Conflict):
    """Someone already holds the place asked for: enrolled, in a team, a name or student id taken (409)."""


def require_instructor(user, course: Course) -> None:
    if not teaches(user, course):
        raise PeopleNotAllowed("only the course's instructors can change its people")


# --- invitation link --------------------------------------------------------------------------------------

def invited_course(code: str) -> Course:
    """The course whose invitation code is `code`."""
    course = Course.objects.filter(invite_code=code).first()
    if course is None:
        raise PeopleError("this invitation link is not valid (any more): ask your instructor for the current one")
    return course


def join(user, code: str, student_id: str = "") -> Course:
    """Enrol `user` as a student of the course whose invitation code is `code` (its staff stay staff:
    a student's role would mix their own work into the grades they give), with `student_id` when the course
    asks for one."""
    course = invited_course(code)
    if staffs(user, course):
        raise PeopleNotAllowed(f"you teach {course.name}: staff do not enrol as students")
    if course.students.filter(pk=user.pk).exists():
        return course  # already in: a second click changes nothing (not their student id either)
    student_id = student_id.strip()
    if course.asks_student_id and not student_id:
        raise PeopleError(f"{course.name} asks for your student id")
    with transaction.atomic():
        if student_id:
            _check_student_id_free(course, student_id, holder=user)
            RosterEntry.objects.update_or_create(course=course, user=user, defaults={
                "student_id": student_id, "email": user.email, "name": display_name(user)})
        course.students.add(user)
    return course


def _check_student_id_free(course: Course, student_id: str, holder) -> None:
    if RosterEntry.objects.filter(course=course, student_id=student_id).exclude(user=holder).exists():
        raise PeopleConflict(f"student id {student_id} is already enrolled in {course.name}: ask your instructor")
    if course.invitations.pending().filter(student_id=student_id).exists():
        raise PeopleError(f"student id {student_id} is on the roster of {course.name}: open the invitation "
                          f"mailed to you to join")


def reset_invite(user, course: Course) -> str:
    """A new invitation code; links with the old one stop working."""
    require_instructor(user, course)
    course.invite_code = new_invite_code()
    course.save(update_fields=["invite_code"])
    return course.invite_code


# --- roster CSV -------------------------------------------------------------------------------------------

@dataclass
class RosterReport:
    created: list[str] = field(default_factory=list)  # a student of the course given their roster record
    invited: list[str] = field(default_factory=list)  # an invitation mailed (enrolled once they accept)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # {"line", "row", "reason"}

    def as_dict(self) -> dict:
        return {"created": self.created, "invited": self.invited, "updated": self.updated,
                "unchanged": self.unchanged, "failed": self.failed}


def import_roster(user, course: Course, text: str) -> RosterReport:
    """Enrol or invite the students of a roster CSV (header `student_id,email,name`; a row per student).

    A row whose e-mail is the confirmed address of a student of the course gives them their roster record.
    Any other row is an invitation mailed to its address: whoever opens the link and accepts (signed in, or
    choosing a username and password) becomes the student, so nobody is enrolled without saying yes, whatever
    account the address belongs to. Uploading the same file again changes nothing; every row that cannot be
    used is reported with its line number and why, the others are imported.
    """
    require_instructor(user, course)
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    rows = _roster_rows(reader)
    header = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [column for column in ROSTER_COLUMNS if column not in header]
    if missing:
        raise PeopleError(f"the roster's first line must name the columns {', '.join(ROSTER_COLUMNS)} "
                          f"(missing: {', '.join(missing)})")
    reader.fieldnames = header
    report = RosterReport()
    seen_ids: dict[str, int] = {}
    seen_emails: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        values = {column: (row.get(column) or "").strip() for column in ROSTER_COLUMNS}
        try:
            _check_row(values, line, seen_ids, seen_emails)
            with transaction.atomic():
                outcome = _enrol_row(user, course, **values)
        except PeopleError as exc:
            report.failed.append({"line": line, "row": values, "reason": str(exc)})
            continue
        getattr(report, outcome).append(values["student_id"])
    return report


def _roster_rows(reader: csv.DictReader) -> list[dict]:
    """Every row of the roster, read before any is imported: a file the csv module cannot read (a quote
    never closed holding a field past its 131,072-character limit, say) is refused whole, saying where."""
    try:
        return list(reader)
    except csv.Error as exc:  # counted lines are those read to their end: the fault is on the next one
        line = reader.line_num + 1
        raise PeopleError(f"the roster is not a CSV file the platform can read (line {line}: {exc})") from None


def _check_row(values: dict, line: int, seen_ids: dict, seen_emails: dict) -> None:
    for column in ROSTER_COLUMNS:
        if not values[column]:
            raise PeopleError(f"{column} is empty")
        if len(values[column]) > ROSTER_LENGTHS[column]:
            raise PeopleError(f"{column} is longer than {ROSTER_LENGTHS[column]} characters")
    try:
        validate_email(values["email"])
    except ValidationError as exc:
        raise PeopleError(f"{values['email']!r} is not an e-mail address") from exc
    for key, seen, what in ((values["student_id"], seen_ids, "student id"),
                            (values["email"].lower(), seen_emails, "e-mail")):
        if key in seen:
            raise PeopleError(f"the same {what} as line {seen[key]}")
        seen[key] = line


def _enrol_row(inviter, course: Course, student_id: str, email: str, name: str) -> str:
    """Record or invite one student; 'created', 'invited', 'updated' or 'unchanged'."""
    entry = RosterEntry.objects.filter(course=course, student_id=student_id).first()
    if entry is not None:
        return _update(entry, email, name)
    same_address = RosterEntry.objects.filter(course=course, email__iexact=email).first() or \
        course.invitations.pending().filter(email__iexact=email).exclude(student_id=student_id).first()
    if same_address is not None:
        raise PeopleError(f"{email} is already on the roster under student id {same_address.student_id}")
    student = course.students.filter(email__iexact=email, profile__confirmed_email__iexact=email).first()
    if student is not None:
        other = RosterEntry.objects.filter(course=course, user=student).first()
        if other is not None:
            raise PeopleError(f"{email} is already enrolled under student id {other.student_id}")
        RosterEntry.objects.create(course=course, user=student, student_id=student_id, email=email, name=name)
        return "created"
    invitation = course.invitations.pending().filter(student_id=student_id).first()
    if invitation is not None:
        mailed_to = invitation.email
        outcome = _update(invitation, email, name)
        if invitation.email != mailed_to:
            _mail_invitation(inviter, invitation)  # the corrected address has not had it yet
        return outcome
    _mail_invitation(inviter, Invitation.objects.create(course=course, student_id=student_id, email=email,
                                                        name=name))
    return "invited"


def _update(record, email: str, name: str) -> str:
    """A roster entry's or invitation's address and name as the roster now gives them."""
    if (record.email, record.name) == (email, name):
        return "unchanged"
    record.email, record.name = email, name
    record.save(update_fields=["email", "name"])
    return "updated"


def _mail_invitation(inviter, invitation: Invitation) -> None:
    """The invitation's link, mailed to its address and, for accounts that confirmed that address, also put in
    their inbox: the student accepts or ignores it."""
    from arena.notifications.models import Notification
    from arena.notifications.services import notify_all

    course = invitation.course
    path = reverse("accounts:invitation", args=[invitation.token])
    mail_on_commit(invitation.email, f"{course.name}: you are invited", "invitation.txt",
                   {"invitation": invitation, "course": course, "inviter": display_name(inviter),
                    "link": site_link(path)})
    holders = get_user_model().objects.filter(email__iexact=invitation.email,
                                              profile__confirmed_email__iexact=invitation.email)
    notify_all(holders, Notification.Kind.COURSE,
               f"{display_name(inviter)} invites you to {course.name} (student id {invitation.student_id})", path)


# --- invitations ----------------------------------------------------------------------------------------------

def resend_invitation(user, course: Course, invitation_id: int) -> Invitation:
    """Mail a pending invitation of `course` again, with a new link: the old link is dead from now on (a mail
    that went astray, or to the wrong person, opens nothing)."""
    require_instructor(user, course)
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(course=course, pk=invitation_id).first()
        if invitation is None or invitation.accepted_at is not None:
            raise PeopleError("no pending invitation of this course to send again (it may have been accepted)")
        invitation.token = new_invitation_token()
        invitation.created_at = timezone.now()
        invitation.save(update_fields=["token", "created_at"])
        _mail_invitation(user, invitation)
    return invitation


def pending_invitation(token: str) -> Invitation:
    invitation = Invitation.objects.select_related("course").filter(token=token).first()
    if invitation is None or invitation.accepted_at is not None:
        raise PeopleError("this invitation is not valid any more (it was accepted, or the roster changed): "
                          "ask your instructor")
    return invitation


def accept_invitation(user, token: str) -> Course:
    """`user` says yes to a roster invitation: they become the course's student with its student id."""
    invitation = pending_invitation(token)
    course = invitation.course
    if staffs(user, course):
        raise PeopleNotAllowed(f"you teach {course.name}: staff do not enrol as students")
    with transaction.atomic():
        entry = RosterEntry.objects.filter(course=course, user=user).first()
        if entry is not None:
            raise PeopleConflict(f"you are already enrolled in {course.name} under student id {entry.student_id}")
        if RosterEntry.objects.filter(course=course, student_id=invitation.student_id).exists():
            raise PeopleConflict(f"student id {invitation.student_id} is already enrolled in {course.name}")
        RosterEntry.objects.create(course=course, user=user, student_id=invitation.student_id,
                                   email=invitation.email, name=invitation.name)
        course.students.add(user)
        invitation.accepted_at, invitation.accepted_by = timezone.now(), user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
        if user.email.lower() == invitation.email.lower():
            # Opening the mailed link proved the address, as a confirmation link would.
            profile = profile_of(user)
            profile.confirmed_email = user.email
            profile.save(update_fields=["confirmed_email"])
    return course


def accept_as_new_account(token: str, username: str, password: str):
    """A person without an account accepts: an account with the invitation's address (confirmed by the mail
    they opened) and the password they chose, enrolled. Returns the new user."""
    invitation = pending_invitation(token)
    first, _, last = invitation.name.partition(" ")
    with transaction.atomic():
        user = get_user_model().objects.create_user(username=username, password=password, email=invitation.email,
                                                    first_name=first[:150], last_name=last[:150])
        accept_invitation(user, token)
    return user


# --- the course ----------------------------------------------------------------------------------------------

def set_time_zone(user, course: Course, name: str) -> None:
    """The zone the course's deadlines are shown (and entered) in; they stay stored in UTC."""
    require_instructor(user, course)
    try:
        validate_time_zone(name)
    except ValidationError as exc:
        raise PeopleError(exc.messages[0]) from exc
    course.time_zone = name
    course.save(update_fields=["time_zone"])


# --- assistants and teams ---------------------------------------------------------------------------------

def add_assistant(user, course: Course, colleague) -> None:
    require_instructor(user, course)
    course.teaching_assistants.add(colleague)


def create_team(user, course: Course, name: str, members) -> Team:
    """A team of the course's students; a student belongs to at most one team of a course."""
    require_instructor(user, course)
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
        raise PeopleConflict(f"already in a team of this course: {', '.join(already)}")
    if Team.objects.filter(course=course, name=name).exists():
        raise PeopleConflict(f"there is already a team named {name!r}")
    team = Team.objects.create(course=course, name=name)
    team.members.set(members)
    return team


def team_of(user, course: Course) -> Team | None:
    return Team.objects.filter(course=course, members=user).first()
