"""Who may do what with tournaments: one rule, used by the API's permission class and by the pages."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from arena.accounts.access import teaches


def may_steer(user, tournament) -> bool:
    """Create, enter bots, start, pause, resume, cancel: the course's instructors (and operators)."""
    return teaches(user, tournament.course)


class SteersTournament(BasePermission):
    """Reading follows Tournament.objects.visible_to (the view's queryset); changing needs may_steer."""

    message = "Only the course's instructors can change its tournaments."

    def has_object_permission(self, request, view, obj):
        return request.method in SAFE_METHODS and view.action not in STEERING_ACTIONS or may_steer(request.user, obj)


STEERING_ACTIONS = {"entrants", "course_entrants", "start", "pause", "resume", "cancel", "discard", "replay"}
