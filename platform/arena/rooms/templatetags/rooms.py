"""The course page's part about pairing rooms: `{% pairing_rooms course %}` (accounts/course.html)."""

from django import template

from arena.accounts.access import plays_in_rooms, runs_rooms

from ..forms import RoomForm
from ..models import Room

register = template.Library()


@register.inclusion_tag("rooms/_course_rooms.html", takes_context=True)
def pairing_rooms(context, course):
    user = context["request"].user
    return {"course": course, "rooms": Room.objects.filter(course=course, status=Room.Status.OPEN),
            "runs": runs_rooms(user, course), "plays": plays_in_rooms(user, course),
            "form": RoomForm() if runs_rooms(user, course) else None, "csrf_token": context.get("csrf_token")}
