"""Tournament pages: a course's list and the create form, a tournament's bracket or tables updating live,
and the instructors' controls. Access follows Tournament.objects.visible_to and permissions.may_steer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from games import get_game

from arena.accounts.access import attended_course, teaches
from arena.core.live import Snapshot, event_stream, rendered_part

from . import services
from .forms import EntrantForm, TournamentForm
from .models import Tournament
from .permissions import may_steer
from .presentation import overview


def _tournament(request, pk) -> Tournament:
    return get_object_or_404(Tournament.objects.visible_to(request.user).select_related("course"), pk=pk)


def _steered_tournament(request, pk) -> Tournament:
    """A tournament `request.user` may steer (permissions.may_steer). Those who may see it but not steer it
    are refused (403), as the API refuses them; it does not exist for anyone else (404)."""
    tournament = _tournament(request, pk)
    if not may_steer(request.user, tournament):
        raise PermissionDenied("only the course's instructors can change its tournaments")
    return tournament


@login_required
def course_tournaments(request, pk):
    course = attended_course(request.user, pk)
    tournaments = Tournament.objects.visible_to(request.user).filter(course=course).select_related("champion__bot__owner")
    steer = teaches(request.user, course)
    form = TournamentForm(request.POST or None, course=course) if steer else None
    if request.method == "POST":
        if not steer:
            raise PermissionDenied("only the course's instructors can create its tournaments")
        if form.is_valid():
            try:
                tournament = services.create_tournament(request.user, course, **form.cleaned_options())
                messages.success(request, f"{tournament.name} created as a draft: enter the bots, then start it.")
                return redirect("tournaments:detail", tournament.pk)
            except services.TournamentError as exc:
                messages.error(request, str(exc))
    # A refused form answers 400 (what it says is on the page, the fields kept).
    return render(request, "tournaments/course.html",
                  {"course": course, "tournaments": tournaments, "form": form, "teaches": steer},
                  status=400 if request.method == "POST" else 200)


def _context(request, tournament: Tournament) -> dict:
    return {"tournament": tournament, "view": overview(tournament, request.user),
            "steer": may_steer(request.user, tournament), "game_title": get_game(tournament.game).title}


@login_required
def detail(request, pk):
    tournament = _tournament(request, pk)
    context = _context(request, tournament)
    if tournament.status == Tournament.Status.DRAFT:
        if context["steer"]:
            context["entrant_form"] = EntrantForm(tournament=tournament)
            context["seeding_preview"] = services.seeding_preview(tournament)
    else:  # the live part, rendered as its stream renders it: the stream starts after it (?last_event_id)
        context["live"] = _live_part(request, tournament, context)
    return render(request, "tournaments/detail.html", context)


def _live_part(request, tournament: Tournament, context: dict | None = None) -> Snapshot:
    """The part of the tournament's page that changes while it runs, for the page and for its stream."""
    # A draft's page does not follow it (its organiser's own forms change it): nothing more to send.
    return rendered_part(request, "tournaments/_live.html", context or _context(request, tournament),
                         final=tournament.is_over or tournament.status == Tournament.Status.DRAFT)


@login_required
def live(request, pk):
    """The part of the page that changes while the tournament runs, as a stream of server-sent events
    (arena.core.live): rendered again after each change its topic announces, ending once it is over."""
    tournament = _tournament(request, pk)
    # Who may steer it sees its forms (with their own CSRF token): theirs alone. Everyone else sees the part
    # as the results' release lets them, in their time zone, and shares one rendering per change.
    steer = may_steer(request.user, tournament)
    audience = None if steer else (f"viewers:{tournament.results_visible_to(request.user)}:"
                                   f"{timezone.get_current_timezone_name()}")

    def snapshot() -> Snapshot | None:
        fresh = Tournament.objects.filter(pk=tournament.pk).first()
        return None if fresh is None else _live_part(request, fresh)

    return event_stream(request, services.topic(tournament.pk), snapshot, audience=audience)


@login_required
@require_POST
def add_entrant(request, pk):
    tournament = _steered_tournament(request, pk)
    form = EntrantForm(request.POST, tournament=tournament)
    if form.is_valid():
        try:
            services.add_entrant(request.user, tournament, form.cleaned_data["bot"], form.cleaned_data["seed"])
        except services.TournamentError as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, "Choose a bot of this course's game.")
    return redirect("tournaments:detail", tournament.pk)


@login_required
@require_POST
def add_course_bots(request, pk):
    """Enter every course bot of the game at once (and the built-ins, when ticked)."""
    tournament = _steered_tournament(request, pk)
    try:
        added = services.add_course_bots(request.user, tournament, builtins=bool(request.POST.get("builtins")))
        messages.success(request, f"{len(added)} bot{'s' if len(added) != 1 else ''} entered.")
    except services.TournamentError as exc:
        messages.error(request, str(exc))
    return redirect("tournaments:detail", tournament.pk)


@login_required
@require_POST
def remove_entrant(request, pk, entrant_pk):
    tournament = _steered_tournament(request, pk)
    entrant = get_object_or_404(tournament.entrants, pk=entrant_pk)
    try:
        services.remove_entrant(request.user, entrant)
    except services.TournamentError as exc:
        messages.error(request, str(exc))
    return redirect("tournaments:detail", tournament.pk)


STEERING = {"start": services.start, "pause": services.pause, "resume": services.resume, "cancel": services.cancel,
            "replay": services.replay_set_aside}


@login_required
@require_POST
def steer(request, pk, verb):
    tournament = _steered_tournament(request, pk)
    if verb == "discard":  # the draft is gone: back to the course's tournaments
        try:
            services.discard(request.user, tournament)
        except services.TournamentError as exc:
            messages.error(request, str(exc))
            return redirect("tournaments:detail", tournament.pk)
        messages.success(request, f"Draft {tournament.name} discarded.")
        return redirect("tournaments:course", tournament.course_id)
    if verb not in STEERING:
        raise Http404("no such action")
    try:
        STEERING[verb](request.user, tournament)
    except services.TournamentError as exc:
        messages.error(request, str(exc))
    return redirect("tournaments:detail", tournament.pk)


@login_required
@require_POST
def answer_entry(request, pk, answer):
    """The owner accepts or declines an entry of their bot (the buttons of their bot's page)."""
    if answer not in ("accept", "decline"):
        raise Http404("no such answer")
    entrant = get_object_or_404(services.entry_requests(request.user), pk=pk)
    services.answer_entry(request.user, entrant, answer == "accept")
    messages.success(request, f"{entrant.bot.name} {'entered in' if answer == 'accept' else 'kept out of'} "
                              f"{entrant.tournament.name}.")
    return redirect("bots:bot", entrant.bot_id)
