"""The pages of tables: Play (open a table, your tables), the table itself, an invitation, the replay."""

import json

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from games import available_games, get_game
from games.core import loads_json
from games.table import DEFAULT_MOVE_SECONDS, check_move_seconds

from arena.accounts.access import courses_seen_by, seatable_bots
from arena.core.budget import OverBudget
from arena.core.live import Snapshot, event_stream
from arena.core.pagination import ascii_number
from arena.bots.models import Bot
from arena.core.errors import Invalid, NotFound
from arena.matches.pages import ReplayLinks, render_replay, replay_modules
from arena.matches.replays import kept_move_analysis, kept_view, streams_analysis

from . import services
from .models import Table, TableSeat
from .presentation import table_home, table_state
from .services import SeatChoice, TableRefused


@login_required
def play(request):
    """Open a table (the game first, then who plays each seat) and the list of your tables."""
    games = sorted(available_games().values(), key=lambda game: game.title)
    game = get_game(request.GET.get("game")) if request.GET.get("game") in available_games() else games[0]
    error, over_budget = None, None
    if request.method == "POST":
        try:
            table = _open_from_form(request, game)
        except OverBudget as exc:  # the form again, with when to come back (429, Retry-After)
            error, over_budget = str(exc), exc
        except (Invalid, TableRefused) as exc:
            error = str(exc)
        else:
            return redirect("tables:table", table.pk)
    mine = (Table.objects.filter(Q(opened_by=request.user) | Q(seats__user=request.user)).distinct()[:50])
    bots = list(seatable_bots(request.user, game.name).select_related("owner"))
    builtins = [bot for bot in bots if bot.is_builtin]
    options = ([("me", "me"), ("invite", "a person, by an invitation link")]
               + [(f"bot:{bot.pk}", f"built-in: {bot.builtin_name}") for bot in builtins]
               + [(f"bot:{bot.pk}", f"{'my bot' if bot.owner_id == request.user.pk else 'classmate’s bot'}: {bot.label}")
                  for bot in bots if not bot.is_builtin])
    seats = [{"number": number, "optional": number >= game.min_players,
              "chosen": request.POST.get(f"seat{number}", _default_seat(number, game.min_players, builtins))}
             for number in range(game.max_players)]
    response = render(request, "tables/play.html", {
        "games": games, "game": game, "options": options, "seats": seats, "error": error, "tables": mine,
        "move_seconds": request.POST.get("move_seconds", f"{DEFAULT_MOVE_SECONDS:g}"),
        "config": request.POST.get("config", ""), "defaults": json.dumps(game.default_config()),
        "courses": courses_seen_by(request.user).order_by("name"), "course": request.POST.get("course", ""),
    }, status=429 if over_budget else 400 if error else 200)
    if over_budget:
        response["Retry-After"] = str(max(1, round(over_budget.retry_after)))
    return response


def _default_seat(number: int, needed: int, builtins: list[Bot]) -> str:
    """You in the first seat, built-ins in the others the game needs, no seat beyond them: a table is as
    large as its opener asks, never larger by a seat they overlooked."""
    if number >= needed:
        return ""
    if number == 0 or not builtins:
        return "me"
    return f"bot:{builtins[min(1, len(builtins) - 1)].pk}"


def _open_from_form(request, game) -> Table:
    choices = []
    for number in range(game.max_players):
        value = request.POST.get(f"seat{number}", "")
        if value == "me":
            choices.append(SeatChoice(user=request.user))
        elif value == "invite":
            choices.append(SeatChoice(invite=True))
        elif value.startswith("bot:") and value[4:].isdigit() and len(value) < 24:
            bot = seatable_bots(request.user, game.name).filter(pk=int(value[4:])).first()
            if bot is None:
                raise Invalid(f"seat {number + 1}: no such bot you may seat")
            choices.append(SeatChoice(bot=bot))
        elif value:
            raise Invalid(f"seat {number + 1}: choose who plays it")
    text = request.POST.get("move_seconds", "").strip()
    try:
        move_seconds = check_move_seconds(float(text)) if text else None
    except (ValueError, OverflowError):
        raise Invalid("the time per move is a number of seconds (empty: no limit)") from None
    course = None
    if request.POST.get("course"):
        value = request.POST["course"]
        course = courses_seen_by(request.user).filter(pk=int(value)).first() if value.isdigit() and len(value) < 20 \
            else None
        if course is None:
            raise Invalid("the course: one of the courses you take or teach")
    return services.open_table(request.user, game.name, choices, move_seconds=move_seconds, course=course,
                               config=_options(request.POST.get("config", "")))


def _options(text: str) -> dict | None:
    """The game's options as typed (JSON, read by the platform's bounded reader); empty: its standard rules."""
    text = text.strip()
    if not text:
        return None
    try:
        config = loads_json(text) if len(text) <= 20_000 else None
    except ValueError as exc:
        raise Invalid(f"the options are not JSON the games take: {exc}") from None
    if not isinstance(config, dict):
        raise Invalid('the options are a JSON object of the game\'s options, such as {"length": 8}')
    return config


def _watched(request, pk: int) -> Table:
    try:
        return services.table_for(request.user, pk)
    except NotFound:
        raise Http404("no such table") from None


@login_required
def table_page(request, pk):
    table = _watched(request, pk)
    return render(request, "tables/table.html", {
        "table": table, "state": table_state(table, request.user), "modules": replay_modules(table.game)})


@login_required
def table_data(request, pk):
    """The table as the page shows it (after each change it hears of, or each few seconds without live)."""
    return JsonResponse(table_state(_watched(request, pk), request.user))


@login_required
def table_events(request, pk):
    """The table as a stream of server-sent events (arena.core.live): a new snapshot after each change, the
    stream ending once the game is over. Each snapshot is read afresh, so a person's time running out shows
    even when no task told of it. Everyone without a seat or the invitations (the table's opener) sees the
    same table, but for their way back to where it was opened: they share one snapshot per change."""
    table = _watched(request, pk)
    audience = None
    if services.seat_of(table, request.user) is None and request.user.pk != table.opened_by_id:
        home = table_home(table, request.user)
        audience = "watchers:" + ("" if home is None else json.dumps([home.label, home.url, home.next_url]))

    def snapshot() -> Snapshot | None:
        table = Table.objects.filter(pk=pk).first()
        if table is None:
            return None
        return Snapshot(table.version, table_state(table, request.user), final=table.is_over)

    return event_stream(request, services.topic(pk), snapshot, audience=audience)


@login_required
@require_POST
def leave(request, pk):
    services.leave(_watched(request, pk), request.user)
    return redirect("tables:table", pk)


@login_required
def invitation(request, token):
    """An invitation link: who invites to which game; taking the seat is a POST (a link opened by a preview or
    a mail scanner takes nothing)."""
    seat = TableSeat.objects.select_related("table__opened_by").filter(token=token, user__isnull=True).first()
    if seat is None:
        raise Http404("no open invitation with this link (it was taken, or never was)")
    if request.method == "POST":
        table = services.join(token, request.user)
        return redirect("tables:table", table.pk)
    return render(request, "tables/invitation.html", {"seat": seat, "table": seat.table,
                                                      "game": get_game(seat.table.game)})


# --- after the game: the replay viewer of the matches, with the analysis of every move -----------------------

def _finished(request, pk) -> Table:
    table = _watched(request, pk)
    if not table.is_over:
        raise Http404("the game at this table is not over: its replay comes at the end")
    return table


def _kept_name(table: Table) -> str:
    """The finished table's replay in the cache of replay views (matches.replays.kept_view)."""
    return f"table-{table.pk}:{table.finished_at.timestamp()}"


@login_required
def replay_page(request, pk):
    table = _finished(request, pk)
    view = kept_view(_kept_name(table), lambda: services.finished_replay(table), None, compacted=True)
    return render_replay(request, view, ReplayLinks(
        back=reverse("tables:table", args=[pk]), back_label=f"table #{pk}",
        data=reverse("tables:replay_data", args=[pk]), analysis=reverse("tables:replay_analysis", args=[pk, 0]),
        file=reverse("tables:replay_file", args=[pk]), file_name=f"table-{pk}.json"))


@login_required
def replay_data(request, pk):
    """The viewer's frames, in the full view or ?seat=N's."""
    table = _finished(request, pk)
    seat, seats = request.GET.get("seat", ""), table.seats.count()
    if seat and not (ascii_number(seat) is not None and int(seat) < seats):
        return JsonResponse({"detail": f"seat must be 0 to {seats - 1}"}, status=400)
    return JsonResponse(kept_view(_kept_name(table), lambda: services.finished_replay(table),
                                  int(seat) if seat else None, compacted=True))


@login_required
def replay_analysis(request, pk, step):
    """One move's analysis, for a game that streams it (Sprouts)."""
    table = _finished(request, pk)
    if not streams_analysis(get_game(table.game)):
        return JsonResponse({"detail": f"{table.game} sends its analysis with the replay's frames"}, status=404)
    try:
        row = kept_move_analysis(_kept_name(table), lambda: services.finished_replay(table), step)
    except IndexError as exc:
        return JsonResponse({"detail": str(exc)}, status=404)
    return JsonResponse({"step": step, "analysis": row})


@login_required
def replay_file(request, pk):
    """The replay file, for `python -m games replay FILE --step N`."""
    response = JsonResponse(services.finished_replay(_finished(request, pk)))
    response["Content-Disposition"] = f'attachment; filename="table-{pk}.json"'
    return response
