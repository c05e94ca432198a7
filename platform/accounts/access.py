"""Who may see or do what: the rules every page and endpoint uses.

Operators are superusers. In a course, an **instructor** changes everything of it (rubrics, deadlines,
rosters, variants); a **teaching assistant** sees everything of it and may run grading and annotate, but
changes none of that; a **student** sees the course's material and only their own (and their team's) code
and logs. Private material (bot code, stderr logs) follows `can_see_private`; a course's own material
follows `teaches` (change it), `staffs` (see everyone's work in it) and `attends` (see and use it).
"""

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q
from django.http import Http404

from .models import Course, Team

INSTRUCTOR, ASSISTANT, STUDENT = "instructor", "assistant", "student"


class NotAllowed(Exception):
    """A verb that the user's role in the course does not allow (the API answers 403); the message says
    whose it is. The apps' own errors derive from it for their refusals."""
# Each role may do what the roles after it may.
ROLES = (INSTRUCTOR, ASSISTANT, STUDENT)


def role_in(user, course) -> str | None:
    """`user`'s role in `course` (operators act as instructors), or None for an outsider."""
    if not user.is_authenticated:
        return None
    if user.is_superuser or course.instructors.filter(pk=user.pk).exists():
        return INSTRUCTOR
    if course.teaching_assistants.filter(pk=user.pk).exists():
        return ASSISTANT
    if course.students.filter(pk=user.pk).exists():
        return STUDENT
    return None


def has_role(user, course, needed: str) -> bool:
    """True if `user`'s role in `course` is `needed` or above it."""
    role = role_in(user, course)
    return role is not None and ROLES.index(role) <= ROLES.index(needed)


def can_see_private(user, owner) -> bool:
    """True if `user` may read the code and logs of bots owned by `owner`.

    The owner may, operators (superusers) may, so may the instructors and teaching assistants of a course
    the owner takes, and the owner's team mates; nobody else, in particular no other student. Built-in
    bots (no owner) have no private material.
    """
    if owner is None or not user.is_authenticated:
        return False
    if user.pk == owner.pk or user.is_superuser:
        return True
    if Course.objects.filter(Q(instructors=user) | Q(teaching_assistants=user), students=owner).exists():
        return True
    return Team.objects.filter(members=user).filter(members=owner).exists()


def with_private_access(queryset, user, owner_field: str):
    """The rows of `queryset` whose owner (at `owner_field`) has private material `user` may see, by the
    rule of can_see_private: their own, their team mates', and their course's students' for its staff."""
    if not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    staffed = (Q(**{f"{owner_field}__courses__instructors": user})
               | Q(**{f"{owner_field}__courses__teaching_assistants": user}))
    return queryset.filter(Q(**{f"{owner_field}__in": team_mates(user)}) | staffed).distinct()


def owners_with_private_access(user, owner_ids) -> set[int]:
    """The ids among `owner_ids` whose private material `user` may see: can_see_private for a whole list
    of rows at once, in one query however many owners.

    Every match page and match list asks this, so it is one plain SQL statement: the ORM's version (joins
    of four many-to-many tables under OR) cost 2.5 ms of CPU to compile, ten times this one's whole cost.
    tests/platform/test_grading_people.py checks it against can_see_private for every pair of a course's
    people."""
    owner_ids = {pk for pk in owner_ids if pk is not None}
    if not user.is_authenticated or not owner_ids:
        return set()
    if user.is_superuser:
        return owner_ids
    visible = owner_ids & {user.pk}
    others = sorted(owner_ids - visible)
    if others:
        members, team, member = _through(Team, "members")
        students, course, student = _through(Course, "students")
        instructors, taught, instructor = _through(Course, "instructors")
        assistants, assisted, assistant = _through(Course, "teaching_assistants")
        if connection.vendor == "postgresql":  # one statement text for any list: psycopg parses it once
            listed, ids = "= ANY(%s::bigint[])", [others]
        else:
            listed, ids = f"IN ({', '.join(['%s'] * len(others))})", others
        sql = (f"SELECT m.{member} FROM {members} m WHERE m.{member} {listed}"
               f" AND m.{team} IN (SELECT {team} FROM {members} WHERE {member} = %s)"
               f" UNION SELECT s.{student} FROM {students} s WHERE s.{student} {listed}"
               f" AND (s.{course} IN (SELECT {taught} FROM {instructors} WHERE {instructor} = %s)"
               f" OR s.{course} IN (SELECT {assisted} FROM {assistants} WHERE {assistant} = %s))")
        with connection.cursor() as cursor:
            cursor.execute(sql, [*ids, user.pk, *ids, user.pk, user.pk])
            visible |= {row[0] for row in cursor.fetchall()}
    return visible


def _through(model, name: str) -> tuple[str, str, str]:
    """(table, column of `model`'s side, column of the user's side) of `model`'s many-to-many field `name`."""
    field = model._meta.get_field(name)
    through = field.remote_field.through._meta
    return (connection.ops.quote_name(through.db_table), through.get_field(field.m2m_field_name()).column,
            through.get_field(field.m2m_reverse_field_name()).column)


def team_mates(user) -> set[int]:
    """Ids of `user` and everyone who shares a team with them."""
    # Users in a team that has `user` as a member (filtering Team by members=user and then reading its
    # members would reuse that join and yield `user` alone).
    return {user.pk, *get_user_model().objects.filter(teams__members=user).values_list("pk", flat=True)}


def courses_seen_by(user):
    """The courses whose material `user` sees: the ones they teach, assist in or take; all for operators."""
    return Course.objects.all() if user.is_superuser else Course.objects.for_user(user)


def attends(user, course) -> bool:
    """True if `user` may see and use `course`'s material: its instructors, assistants and students."""
    return has_role(user, course, STUDENT)


def staffs(user, course) -> bool:
    """True if `user` sees every student's work in `course` and may grade it: instructors and assistants."""
    return has_role(user, course, ASSISTANT)


def attended_course(user, pk) -> Course:
    """The course `pk` for a page of its material: Http404 unless `user` attends it, so that to anyone else
    it is exactly like a course that does not exist."""
    course = Course.objects.filter(pk=pk).first()
    if course is None or not attends(user, course):
        raise Http404("no such course")
    return course


def teaches(user, course) -> bool:
    """True if `user` may change `course`'s material: its instructors, and operators."""
    return has_role(user, course, INSTRUCTOR)


# --- Public matches (the site's front door) ---------------------------------------------------------------

def public_matches(queryset):
    """The matches of `queryset` anyone may watch, signed in or not, with their replays: finished challenges
    on the standard rules (ladder games), while the operator leaves ARENA_PUBLIC_MATCHES on. Never a
    course's, grading or tournament game (their results may be held back); code and logs stay private
    whatever this says (`can_see_private`)."""
    from django.conf import settings

    if not settings.ARENA_PUBLIC_MATCHES:
        return queryset.none()
    return queryset.filter(purpose="challenge", variant__isnull=True, status="finished")
