"""Who may do what with courses' people, assignments and grades: the rules of accounts.access (roles
instructor > assistant > student), applied once here for the API (`CourseRole`) and the pages (`require`).

- student: sees the course's assignments and rubrics, submits, sees only their own (team's) grade;
- assistant: also sees every submission, grade and log of the course, runs grading and annotates;
- instructor: also changes assignments, rubrics, deadlines, rosters and teams, and adjusts grades.
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework.permissions import BasePermission

from arena.accounts.access import ASSISTANT, INSTRUCTOR, STUDENT, has_role, role_in

__all__ = ["ASSISTANT", "INSTRUCTOR", "STUDENT", "CourseRole", "require"]


def require(user, course, needed: str) -> str:
    """`user`'s role in `course` if it is `needed` or above; outsiders get 404 (the course is not theirs to
    know of), members with too small a role 403."""
    role = role_in(user, course)
    if role is None:
        raise Http404("no such course")
    if not has_role(user, course, needed):
        raise PermissionDenied(f"this needs the {needed} role in {course}")
    return role


class CourseRole(BasePermission):
    """The role a view's action needs in the object's course: `view.roles[action]`, a role or a role per
    HTTP method (default: student); the view names an object's course with `view.course_of(obj)`."""

    message = "Your role in this course does not allow this."

    def has_object_permission(self, request, view, obj):
        needed = getattr(view, "roles", {}).get(view.action, STUDENT)
        if isinstance(needed, dict):
            needed = needed.get(request.method, STUDENT)
        course = view.course_of(obj)
        if role_in(request.user, course) is None:
            raise Http404("no such course")
        return has_role(request.user, course, needed)
