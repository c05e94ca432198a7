from rest_framework.permissions import BasePermission

from arena.accounts.access import can_see_private


class CanSeePrivate(BasePermission):
    """Code, versions and logs of a bot: its owner, operators, and the staff of the courses it was submitted to
    or entered in (accounts.access.can_see_private)."""

    message = "Only the bot's owner (or the staff of a course it was submitted to) may see this."

    def has_object_permission(self, request, view, obj):
        bot = getattr(obj, "bot", obj)
        return can_see_private(request.user, bot)
