"""The pages of matches: challenges, a match as it runs, and its replay."""

from dataclasses import dataclass
from functools import partial, wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.contrib.staticfiles import finders
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST
from games import get_game
from games.core import Game

from arena.accounts.access import bots_with_private_access, match_visible, public_matches
from arena.bots.models import Bot
from arena.bots.pages import own_bot, render_bot_page
from arena.core.live import event_stream
from arena.core.budget import OverBudget
from arena.core.pagination import ascii_number
from arena.core.ratelimit import too_many_requests
from arena.variants.access import RulesSeen

from . import services as match_services, spectating
from .forms import ChallengeForm
from .models import Match, MatchSeat
from .replays import FINISHED_VIEW_SECONDS, finished_view, move_analysis, streams_analysis
from .services import ChallengeError


@login_required
@require_POST
def challenge(request, pk):
    bot = own_bot(request, pk)
    form = ChallengeForm(request.POST, bot=bot, user=request.user)
    if not form.is_valid():
        messages.error(request, "Choose the opponent(s).")
        return render_bot_page(request, bot, status=400, challenge_form=form)
    try:
        match = match_services.challenge(request.user, bot, list(form.cleaned_data["opponents"]),
                                         variant=form.cleaned_data["variant"])
    except OverBudget as exc:
        return too_many_requests(request, str(exc), exc.retry_after)
    except ChallengeError as exc:
        # Refused as the API refuses it (400), on the bot's page with the reason.
        messages.error(request, f"Challenge refused: {exc}")
        return render_bot_page(request, bot, status=400, challenge_form=form)
    return redirect("matches:match", match.pk)


@login_required
def challenge_opponent(request, pk):
    """The Challenge button beside any bot: on to your own bot's challenge form with this opponent chosen.

    With several active bots for the game, the student picks which one plays; with none, they are told why.
    """
    opponent = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    mine = list(Bot.objects.owned_by(request.user).active().for_game(opponent.game).exclude(pk=opponent.pk))
    if len(mine) == 1:
        return redirect(f"{reverse('bots:bot', args=[mine[0].pk])}?against={opponent.pk}#challenge")
    return render(request, "matches/challenge_pick.html",
                  {"opponent": opponent, "mine": mine, "game": get_game(opponent.game)})


def signed_in_or_public_match(view):
    """@login_required, except for a match anyone may watch (accounts.access.public_matches): an anonymous
    visitor following a link to a ladder game sees it, and is asked to sign in for any other."""
    @wraps(view)
    def checked(request, pk, *args, **kwargs):
        if not request.user.is_authenticated and not public_matches(Match.objects.filter(pk=pk)).exists():
            return redirect_to_login(request.get_full_path())
        return view(request, pk, *args, **kwargs)
    return checked


@signed_in_or_public_match
def match_page(request, pk):
    return render(request, "matches/match.html", _match_context(request, _shown_match(request, pk)))


@signed_in_or_public_match
def match_live(request, pk):
    """The part of the match page that changes until the match is over (fetched again by htmx each time the
    match's stream says its status changed)."""
    return render(request, "matches/_match_live.html", _match_context(request, _shown_match(request, pk)))


@signed_in_or_public_match
def match_stream(request, pk):
    """The match as it is played, as server-sent events (arena.core.live): its status, and the public view of
    its position (a tournament's delay behind) for whoever may see the match and its rules."""
    match = _shown_match(request, pk)
    with_view = RulesSeen(request.user)(match)
    # What a spectator sees depends on that alone: every spectator of the match shares its snapshots.
    return event_stream(request, spectating.topic(match.pk), partial(spectating.snapshot, match.pk, with_view=with_view),
                        audience=f"spectators:{with_view}")


def _match_context(request, match: Match) -> dict:
    rows = list(match.seats.shown().without_private_text())
    # A failure's note may quote the bot's own error message: private, like its stderr.
    private_bots = bots_with_private_access(request.user, {seat.bot_id: seat.bot.owner_id for seat in rows})
    texts = MatchSeat.objects.private_text([seat.pk for seat in rows if seat.bot_id in private_bots])
    seats = []
    for seat in rows:
        detail, log = texts.get(seat.pk, ("", None))
        seats.append({"seat": seat, "detail": detail, "log": log})
    # Outside the variant's course the match shows that it had its own rules, not which, and no replay.
    rules_seen = RulesSeen(request.user)(match)
    variant = match.variant if match.variant_id and rules_seen else None
    game = get_game(match.game)
    running = match.status == Match.Status.RUNNING and match.started_at
    watched = not match.is_over and rules_seen
    return {
        "match": match, "seats": seats, "variant": variant, "rules_seen": rules_seen, "game": game,
        "shows_private_logs": any(row["log"] is not None for row in seats),
        "cooperative": game.cooperative,
        "winners": [row["seat"] for row in seats if row["seat"].seat in match.winners],
        "has_analysis": has_analysis(game),
        # Said while a match runs, so that a bot drawing on its time bank is not a silent wait.
        "running_for": round((timezone.now() - match.started_at).total_seconds()) if running else None,
        # While it is played, the board as spectators see it (the replay viewer's drawing of the game).
        "live_modules": replay_modules(match.game) if watched else [],
        "players": [seat.bot.label for seat in rows] if watched else [],
        # Its starting position, public (End Game's drawing colours the numbers taken since).
        "start_view": game.new_game(len(rows), match.config, match.seed).public_view() if watched else None,
    }


def has_analysis(game: Game) -> bool:
    """Whether the game's replays come with an analysis (it overrides Game.analyse)."""
    return game.info().has_analysis


def _shown_match(request, pk, **status) -> Match:
    """The match without its replay, which a page reads only if its frames are not in the cache yet; 404 to
    whoever may not see it (accounts.access.match_visible), exactly like a match that does not exist."""
    match = get_object_or_404(Match.objects.without_replay(), pk=pk, **status)
    if not match_visible(request.user, match):
        raise Http404("no such match")
    return match


def _replayable_match(request, pk, *, with_replay: bool = False) -> Match:
    """A finished match whose replay `request.user` may watch (see variants.access); its replay column is
    read only `with_replay`."""
    matches = Match.objects.all() if with_replay else Match.objects.without_replay()
    match = get_object_or_404(matches, pk=pk, status=Match.Status.FINISHED)
    if not match_visible(request.user, match):
        raise Http404("no such match")
    if not RulesSeen(request.user)(match):
        raise Http404("this match was played on a course's own rules: its replay is that course's")
    return match


@signed_in_or_public_match
def replay_page(request, pk):
    match = _replayable_match(request, pk)
    return render_replay(request, finished_view(match, None, compacted=True), ReplayLinks(
        back=reverse("matches:match", args=[match.pk]), back_label=f"match #{match.pk}",
        data=reverse("matches:replay_data", args=[match.pk]),
        analysis=reverse("matches:replay_analysis", args=[match.pk, 0]),
        file=reverse("matches:replay_file", args=[match.pk]), file_name=f"match-{match.pk}.json"))


@dataclass(frozen=True)
class ReplayLinks:
    """Where the replay viewer finds what it shows beside a replay: the page it came from (`back`), the frames
    in a seat's view (`data`, ?seat=N), a move's streamed analysis (`analysis`, for step 0: the viewer puts
    the step in its place), and the file itself."""

    back: str
    back_label: str
    data: str
    analysis: str
    file: str
    file_name: str


def render_replay(request, view: dict, links: ReplayLinks):
    """The replay viewer's page for `view` (a compact replay_view): a match's, a table's."""
    game = get_game(view["game"])
    scores = view["result"].get("scores") or [None] * view["num_players"]
    lost = view["points_lost"] or [None] * view["num_players"]
    context = {
        "links": links, "view": view, "losses": view["points_lost"],
        "winners": [view["players"][seat] for seat in view["result"].get("winners", [])],
        "cooperative": game.cooperative, "perfect_score": game.perfect_score,
        "score_rows": [{"name": name, "score": score, "lost": points}
                       for name, score, points in zip(view["players"], scores, lost)],
        "modules": replay_modules(game.name),
    }
    return render(request, "matches/replay.html", context)


def replay_modules(game: str) -> list[str]:
    """The static file that draws this game's table in the replay viewer, if the game has one."""
    module = f"matches/replay/{game}.js"
    return [module] if finders.find(module) else []


@signed_in_or_public_match
def replay_data(request, pk):
    """The viewer's frames, in the full view or ?seat=N's (compact: see matches.replays.compact)."""
    match = _replayable_match(request, pk)
    seat = request.GET.get("seat", "")
    seats = match.seats.count()
    if seat and not (ascii_number(seat) is not None and int(seat) < seats):
        return JsonResponse({"detail": f"seat must be 0 to {seats - 1}"}, status=400)
    response = JsonResponse(finished_view(match, int(seat) if seat else None, compacted=True))
    # Signed-in viewers only, so no shared cache; the browser may keep it: it will not change.
    patch_cache_control(response, private=True, max_age=FINISHED_VIEW_SECONDS)
    return response


@signed_in_or_public_match
def replay_analysis(request, pk, step):
    """One move's analysis, which the viewer asks for move by move once the board is shown."""
    match = _replayable_match(request, pk, with_replay=True)
    if not streams_analysis(get_game(match.game)):
        return JsonResponse({"detail": f"{match.game} sends its analysis with the replay's frames"}, status=404)
    try:
        row = move_analysis(match, step)
    except IndexError as exc:
        return JsonResponse({"detail": str(exc)}, status=404)
    return JsonResponse({"step": step, "analysis": row})


@signed_in_or_public_match
def replay_file(request, pk):
    """The replay file itself, for `python -m games replay FILE --step N`."""
    match = _replayable_match(request, pk, with_replay=True)
    response = JsonResponse(match.replay)
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
    return response
