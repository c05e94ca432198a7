"""Courses made on the site: operators let a user create courses (`grant_instructor`), and that instructor
makes the course and names its co-instructors; teaching assistants are in accounts.people."""

from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from .access import NotAllowed
from .models import Course, validate_time_zone
from .people import PeopleConflict, PeopleError, require_instructor

CREATE_COURSES = "accounts.add_course"


class CourseRefused(PeopleError):
    """A course that cannot be made as asked; the message says why."""


class CourseTaken(CourseRefused, PeopleConflict):
    """The code is another course's (409)."""


def may_create_courses(user) -> bool:
    return user.is_authenticated and user.has_perm(CREATE_COURSES)


def grant_instructor(user, *, revoke: bool = False) -> None:
    """Let `user` create courses on the site (or no longer); courses they made stay theirs."""
    permission = Permission.objects.get(content_type__app_label="accounts", codename="add_course")
    if revoke:
        user.user_permissions.remove(permission)
    else:
        user.user_permissions.add(permission)


def create_course(user, *, code: str, name: str, time_zone: str = "UTC", asks_student_id: bool = False) -> Course:
    """A new course taught by `user`, who must hold the permission to create courses."""
    if not may_create_courses(user):
        raise NotAllowed("creating courses needs an operator's permission (manage.py grant_instructor)")
    try:
        validate_time_zone(time_zone)
    except ValidationError as exc:
        raise CourseRefused(exc.messages[0]) from exc
    try:
        with transaction.atomic():
            course = Course.objects.create(code=code, name=name, time_zone=time_zone,
                                           asks_student_id=asks_student_id)
    except IntegrityError as exc:
        raise CourseTaken(f"there is already a course with the code {code!r}") from exc
    course.instructors.add(user)
    return course


def add_instructor(user, course: Course, colleague) -> None:
    """Make `colleague` a co-instructor of `course` (no longer its assistant or student: one role each)."""
    require_instructor(user, course)
    if course.students.filter(pk=colleague.pk).exists():
        raise PeopleConflict(f"{colleague.username} is a student of {course.name}: staff do not take the course")
    course.teaching_assistants.remove(colleague)
    course.instructors.add(colleague)


def ask_student_ids(user, course: Course, asks: bool) -> None:
    """Whether students joining by the link give their student id (the roster's rows always have one)."""
    require_instructor(user, course)
    course.asks_student_id = asks
    course.save(update_fields=["asks_student_id"])
