"""The course page's part about pairing rooms: `{% pairing_rooms course %}` (accounts/course.html)."""

from django import template

from arena.accounts.access import plays_in_rooms, runs_rooms

from ..forms import RoomForm
from ..models import Room
from ..services import round_over

register = template.Library()


@register.inclusion_tag("rooms/_course_rooms.html", takes_context=True)
def pairing_rooms(context, course):
    """The course's open rooms, each with what tells it from another of the same game (its number, who opened
    it, when), how far it is and how many students are in it; a student who is in one is told so instead of
    being offered to join it again."""
    user = context["request"].user
    rooms = list(Room.objects.filter(course=course, status=Room.Status.OPEN).select_related("opened_by"))
    for room in rooms:
        room.present = room.members.filter(present=True).count()
        room.joined = user.is_authenticated and room.members.filter(user=user, present=True).exists()
        room.round_over = round_over(room)
    return {"course": course, "rooms": rooms,
            "runs": runs_rooms(user, course), "plays": plays_in_rooms(user, course),
            "form": RoomForm() if runs_rooms(user, course) else None, "csrf_token": context.get("csrf_token")}
