"""Who may see private material (bot code, stderr logs): the one rule every page and endpoint uses."""

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
