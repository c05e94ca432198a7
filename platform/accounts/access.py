"""Who may see or do what: the rules every page and endpoint uses.

Operators are superusers. Private material (bot code, stderr logs) follows `can_see_private`; a course's
own material (its game variants) follows `teaches` (change it) and `attends` (see and use it).
"""

from django.db.models import Q
from django.http import Http404

from .models import Course


def can_see_private(user, owner) -> bool:
    """True if `user` may read the code and logs of bots owned by `owner`.

    The owner may, operators (superusers) may, and so may instructors of a course the owner takes; nobody
    else, in particular no other student. Built-in bots (no owner) have no private material.
    """
    if owner is None or not user.is_authenticated:
        return False
    if user.pk == owner.pk or user.is_superuser:
        return True
    return Course.objects.filter(instructors=user, students=owner).exists()


def with_private_access(queryset, user, owner_field: str):
    """The rows of `queryset` whose owner (at `owner_field`) has private material `user` may see, by the
    rule of can_see_private."""
    if not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    return queryset.filter(Q(**{owner_field: user}) | Q(**{f"{owner_field}__courses__instructors": user})).distinct()


def courses_seen_by(user):
    """The courses whose material `user` sees: the ones they teach or take, every one for operators."""
    return Course.objects.all() if user.is_superuser else Course.objects.for_user(user)


def attends(user, course) -> bool:
    """True if `user` may see and use `course`'s material: its instructors and students, and operators."""
    return courses_seen_by(user).filter(pk=course.pk).exists()


def attended_course(user, pk) -> Course:
    """The course `pk` for a page of its material: Http404 unless `user` attends it, so that to anyone else
    it is exactly like a course that does not exist."""
    course = Course.objects.filter(pk=pk).first()
    if course is None or not attends(user, course):
        raise Http404("no such course")
    return course


def teaches(user, course) -> bool:
    """True if `user` may change `course`'s material: its instructors, and operators."""
    return user.is_authenticated and (user.is_superuser or course.instructors.filter(pk=user.pk).exists())
