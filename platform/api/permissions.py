from rest_framework.permissions import BasePermission

from accounts.access import can_see_private


class CanSeePrivate(BasePermission):
    """Code, versions and logs of a bot: its owner, operators, and instructors of the owner's courses."""

    message = "Only the bot's owner (or an instructor of the owner's course) may see this."

    def has_object_permission(self, request, view, obj):
        bot = getattr(obj, "bot", obj)
        return can_see_private(request.user, bot.owner)
