"""Who may see or do what: the rules every page and endpoint uses.

Operators are superusers. Private material (bot code, stderr logs) follows `can_see_private`; a course's
own material (its game variants) follows `teaches` (change it) and `attends` (see and use it).
"""

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


def courses_seen_by(user):
    """The courses whose material `user` sees: the ones they teach or take, every one for operators."""
    return Course.objects.all() if user.is_superuser else Course.objects.for_user(user)


def attends(user, course) -> bool:
    """True if `user` may see and use `course`'s material: its instructors and students, and operators."""
    return courses_seen_by(user).filter(pk=course.pk).exists()


def teaches(user, course) -> bool:
    """True if `user` may change `course`'s material: its instructors, and operators."""
    return user.is_authenticated and (user.is_superuser or course.instructors.filter(pk=user.pk).exists())
