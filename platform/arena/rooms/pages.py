"""Pairing room pages: the course page's part (templatetags/rooms.py), the room with its live results table,
the staff's controls and the results download. Who may do what: services (accounts.access)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from arena.accounts.access import attended_course, runs_rooms
from arena.core.downloads import csv_download
from arena.core.live import Snapshot, event_stream

from . import services
from .forms import RoomForm
from .models import Room
from .presentation import results, results_csv, round_games, room_view


def _context(request, room: Room) -> dict:
    viewer = request.user
    runs = runs_rooms(viewer, room.course)
    rounds = round_games(room)
    if not runs:  # a student sees their own games only (a table is its players' and its course staff's)
        rounds = {number: [game for game in games if viewer.pk in (game.first_id, game.second_id)]
                  for number, games in rounds.items()}
    return {"room": room_view(room, viewer), "runs": runs, "results": results(room), "rounds": rounds,
            "round_numbers": range(1, room.rounds + 1)}


@login_required
def room_page(request, pk):
    room = services.room_for(request.user, pk)
    return render(request, "rooms/room.html", _context(request, room))


@login_required
def room_events(request, pk):
    """The room's live stream: the part of the page that changes (results, round, your table), as HTML."""
    room = services.room_for(request.user, pk)

    def snapshot():
        fresh = Room.objects.select_related("course").filter(pk=room.pk).first()
        if fresh is None:
            return None
        html = render_to_string("rooms/_live.html", _context(request, fresh), request=request)
        # A closed room whose games are over changes no more: the stream ends.
        return Snapshot(fresh.version, {"html": html}, final=not fresh.is_open and services.round_over(fresh))

    return event_stream(request, room.topic, snapshot)


@login_required
@require_POST
def open_room(request, pk):
    course = attended_course(request.user, pk)
    if not runs_rooms(request.user, course):
        raise services.RoomNotAllowed("only the course's instructors and assistants open its pairing rooms")
    form = RoomForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a game and a time per move: " + "; ".join(
            f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
        return redirect("accounts:course", course.pk)
    try:
        room = services.open_room(request.user, course, **form.options())
    except services.RoomRefused as exc:
        messages.error(request, str(exc))
        return redirect("accounts:course", course.pk)
    messages.success(request, "Room open: your students find it on the course's page.")
    return redirect("rooms:room", room.pk)


VERBS = {"join": services.join, "leave": services.leave, "start": services.start_round, "close": services.close}


@login_required
@require_POST
def act(request, pk, verb):
    """Join, leave, start the next round, close: a refusal of the room's state is a message on its page."""
    room = services.room_for(request.user, pk)
    if verb not in VERBS:
        return render(request, "core/refused.html", {"message": "no such action"}, status=404)
    try:
        VERBS[verb](request.user, room)
    except (services.RoomConflict, services.RoomRefused) as exc:
        messages.error(request, str(exc))
    return redirect("rooms:room", room.pk)


@login_required
def results_download(request, pk):
    room = services.room_for(request.user, pk)
    services.check_runs(request.user, room, "download its results")
    return csv_download(results_csv(room), f"{room.course.code}-room-{room.pk}-results.csv")
