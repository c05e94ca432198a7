"""What other apps' pages show of the assignments: deadlines coming, starter code to download."""

from django.utils import timezone

from .models import Assignment


def coming_deadlines(user):
    """The assignments of `user`'s courses still open for submissions, the nearest deadline first."""
    return (Assignment.objects.visible_to(user).filter(deadline__gt=timezone.now())
            .select_related("course").order_by("deadline")[:5])


def starters(user, game: str):
    """The assignments of `user`'s courses on `game` that come with starter code to download."""
    return (Assignment.objects.visible_to(user).filter(game=game)
            .exclude(starter_code="").select_related("course"))
