"""Server-rendered pages. Thin: the work is in the apps' services; live updates poll the REST API."""

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST
from games import available_games, get_game
from games.core import Game, ScoreOrder

from arena.accounts.identity import send_confirmation
from arena.accounts.navigation import safe_next
from arena.accounts.access import (attended_course, bots_with_private_access, can_see_private, match_visible,
                             public_matches, teaches, visible_matches)
from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.core.pagination import ASCII_NUMBER
from arena.core.throttles import ChallengeThrottle, RegisterThrottle, UploadThrottle
from arena.bots.services import code_download, create_bot, upload_version
from arena.bots.validation import BotError, read_upload
from arena.matches.models import Match, MatchSeat
from arena.matches.replays import FINISHED_VIEW_SECONDS, finished_view, move_analysis, streams_analysis
from arena.notifications.models import Notification
from arena.notifications.services import notify
from arena.matches import services as match_services
from arena.matches.services import ChallengeError, TooManyInFlight
from arena.ratings.fair_play import rules_text
from arena.ratings.presentation import LADDER_CACHE_SECONDS, places, rating_chart, standings, standings_page
from arena.ratings.services import team_ladder
from arena.variants import services as variant_services
from arena.variants.access import RulesSeen

from arena.core.ratelimit import rate_limited, too_many_requests
from arena.variants import game_docs

from .forms import BotForm, ChallengeForm, RegisterForm, UploadForm, VariantForm


def home(request, bot_form: BotForm | None = None):
    context = {"games": sorted(available_games().values(), key=lambda g: g.name),
               "ladder_matches": (public_matches(Match.objects.without_replay()).order_by("-finished_at")
                                  .prefetch_related("seats__bot__owner")[:10])}
    if request.user.is_authenticated:
        context["bots"] = Bot.objects.owned_by(request.user).prefetch_related("versions")
        context["bot_form"] = bot_form or BotForm()
        recent = Match.objects.without_replay().filter(seats__bot__owner=request.user).distinct()
        context["recent"] = visible_matches(recent, request.user).prefetch_related("seats__bot__owner")[:10]
        context["courses"] = Course.objects.for_user(request.user).order_by("code")
        context["deadlines"] = _coming_deadlines(request.user)
    return render(request, "core/home.html", context, status=400 if bot_form else 200)


@rate_limited(RegisterThrottle)
def register(request):
    """A new account, signed in at once; it goes on where it was going (a course's join link, say) and is
    mailed a link confirming its address."""
    next_url = safe_next(request)
    form = RegisterForm(request.POST or None)
    if form.is_valid():
        user = form.save()
        login(request, user)
        send_confirmation(user, next_url)
        messages.success(request, f"Welcome, {user.username}. We sent a link to {user.email}: open it to confirm "
                                  f"your address.")
        return redirect(next_url or "web:home")
    return render(request, "registration/register.html", {"form": form, "next": next_url})


@login_required
@require_POST
def new_bot(request):
    form = BotForm(request.POST)
    if form.is_valid():
        try:
            bot = create_bot(request.user, form.cleaned_data["game"], form.cleaned_data["name"])
            return redirect("web:bot", bot.pk)
        except BotError as exc:
            form.add_error("name", str(exc))
    # The page again with what was typed and the reason beside it.
    return home(request, bot_form=form)


@login_required
def bot_page(request, pk):
    return _render_bot_page(request, get_object_or_404(Bot.objects.select_related("owner"), pk=pk))


def _render_bot_page(request, bot: Bot, status: int = 200, challenge_form: ChallengeForm | None = None):
    private = can_see_private(request.user, bot)
    if challenge_form is None:
        # ?against=BOT (the Challenge buttons of the ladder and other bots' pages) preselects the opponent.
        against = request.GET.get("against", "")
        initial = {"opponents": [int(against)]} if against.isdigit() else {}
        challenge_form = ChallengeForm(bot=bot, user=request.user, initial=initial)
    context = {
        "bot": bot,
        "private": private,
        "is_owner": bot.owner_id == request.user.pk,
        "active": bot.active_version,
        "versions": bot.versions.all() if private else [],
        "validating": private and bot.versions.filter(status=BotVersion.Status.VALIDATING).exists(),
        "matches": visible_matches(Match.objects.without_replay().involving(bot), request.user)
                   .prefetch_related("seats__bot__owner")[:20],
        "upload_form": UploadForm(),
        "challenge_form": challenge_form,
        "max_upload": settings.ARENA_MAX_UPLOAD_BYTES,
        "game": get_game(bot.game),
        "chart": None if get_game(bot.game).cooperative else rating_chart([bot]),
        "starters": _starters(request.user, bot.game) if bot.owner_id == request.user.pk else [],
    }
    return render(request, "bots/bot.html", context, status=status)


def _coming_deadlines(user):
    """The assignments of `user`'s courses still open for submissions, the nearest deadline first."""
    from arena.grading.models import Assignment

    return (Assignment.objects.visible_to(user).filter(deadline__gt=timezone.now())
            .select_related("course").order_by("deadline")[:5])


def _starters(user, game: str):
    """The assignments of `user`'s courses on `game` that come with starter code to download."""
    from arena.grading.models import Assignment

    return (Assignment.objects.visible_to(user).filter(game=game)
            .exclude(starter_code="").select_related("course"))


def _guide_or_404(game: str) -> game_docs.GameGuide:
    try:
        return game_docs.guide(game)
    except game_docs.NoGuide:
        raise Http404("no such game")


def game_guide(request, game):
    """A game's bot guide: rules as implemented, observation, actions, an example bot, its rule book."""
    found = _guide_or_404(game)
    return render(request, "variants/game_guide.html", {
        "guide": found, "starters": _starters(request.user, game),
        "all_guides": [(name, get_game(name).title) for name in game_docs.games_with_guides()]})


def game_example(request, game):
    """The guide's example bot as a file to save and upload."""
    found = _guide_or_404(game)
    return _python_download(found.example_source, found.example_name)


@login_required
def assignment_starter(request, pk):
    """An assignment's starter code as a file, for anyone of its course (others: 404, as for the course)."""
    from arena.grading.models import Assignment

    assignment = get_object_or_404(Assignment.objects.visible_to(request.user), pk=pk)
    if not assignment.starter_code:
        raise Http404("this assignment has no starter code")
    return _python_download(assignment.starter_code, f"{assignment.game}_starter.py")


def _python_download(source: str, filename: str) -> HttpResponse:
    return HttpResponse(source, content_type="text/x-python; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@login_required
def versions_live(request, pk):
    """The versions table while one validates (polled by htmx); once none does, the whole page reloads so
    that what the verdict changes (the active version, the challenge form) shows too."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    if not can_see_private(request.user, bot):
        raise Http404("no such bot")
    versions = bot.versions.all()
    if not any(version.status == BotVersion.Status.VALIDATING for version in versions):
        return HttpResponse(status=204, headers={"HX-Refresh": "true"})
    return render(request, "bots/_versions.html",
                  {"bot": bot, "versions": versions, "active": bot.active_version, "validating": True})


def _own_bot(request, pk) -> Bot:
    bot = get_object_or_404(Bot, pk=pk)
    if bot.owner_id != request.user.pk:
        raise PermissionDenied("only the bot's owner can do this")
    return bot


@login_required
@require_POST
@rate_limited(UploadThrottle)
def upload(request, pk):
    bot = _own_bot(request, pk)
    form = UploadForm(request.POST, request.FILES)
    if form.is_valid():
        file = form.cleaned_data["file"]
        try:
            version = upload_version(bot, read_upload(file), file.name)
            messages.success(request, f"Version {version.number} uploaded; validation is running.")
        except BotError as exc:
            messages.error(request, f"Upload rejected: {exc}")
            # Kept in the inbox: the message above is gone once the student leaves the page.
            notify(request.user, Notification.Kind.UPLOAD, f"Upload of {file.name} to {bot.label} rejected: {exc}",
                   reverse("web:bot", args=[bot.pk]))
    return redirect("web:bot", bot.pk)


@login_required
@require_POST
@rate_limited(ChallengeThrottle)
def challenge(request, pk):
    bot = _own_bot(request, pk)
    form = ChallengeForm(request.POST, bot=bot, user=request.user)
    if not form.is_valid():
        messages.error(request, "Choose the opponent(s).")
        return _render_bot_page(request, bot, status=400, challenge_form=form)
    try:
        match = match_services.challenge(request.user, bot, list(form.cleaned_data["opponents"]),
                                         rated=form.cleaned_data["rated"], variant=form.cleaned_data["variant"])
    except TooManyInFlight as exc:
        return too_many_requests(request, str(exc), exc.retry_after)
    except ChallengeError as exc:
        # Refused as the API refuses it (400), on the bot's page with the reason.
        messages.error(request, f"Challenge refused: {exc}")
        return _render_bot_page(request, bot, status=400, challenge_form=form)
    return redirect("web:match", match.pk)


@login_required
def challenge_opponent(request, pk):
    """The Challenge button beside any bot: on to your own bot's challenge form with this opponent chosen.

    With several active bots for the game, the student picks which one plays; with none, they are told why.
    """
    opponent = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    mine = list(Bot.objects.owned_by(request.user).active().for_game(opponent.game).exclude(pk=opponent.pk))
    if len(mine) == 1:
        return redirect(f"{reverse('web:bot', args=[mine[0].pk])}?against={opponent.pk}#challenge")
    return render(request, "matches/challenge_pick.html",
                  {"opponent": opponent, "mine": mine, "game": get_game(opponent.game)})


@login_required
def course_page(request, pk):
    return _render_course_page(request, attended_course(request.user, pk))


def _render_course_page(request, course: Course, variant_form: VariantForm | None = None):
    context = {
        "course": course,
        "variants": course.variants.select_related("created_by"),
        "teaches": teaches(request.user, course),
        "variant_form": variant_form or VariantForm(),
        "max_variant": settings.ARENA_MAX_VARIANT_BYTES,
    }
    return render(request, "accounts/course.html", context, status=400 if variant_form else 200)


@login_required
@require_POST
def new_variant(request, pk):
    course = attended_course(request.user, pk)
    form = VariantForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose the game, a name and a file.")
        return _render_course_page(request, course, variant_form=form)
    try:
        variant = variant_services.create_variant(request.user, course, **form.cleaned_data)
    except variant_services.VariantRefused as exc:
        messages.error(request, "Variant refused, nothing was saved (choose the corrected file again):")
        for problems in exc.problems.values():
            for problem in problems:
                messages.error(request, problem)
        return _render_course_page(request, course, variant_form=form)
    messages.success(request, f"Variant {variant.name} added: challenges can now choose it.")
    return redirect("web:course", course.pk)


@login_required
@require_POST
def delete_variant(request, pk, variant_pk):
    course = attended_course(request.user, pk)
    variant = get_object_or_404(course.variants, pk=variant_pk)
    variant_services.delete_variant(request.user, variant)
    messages.success(request, f"Variant {variant.name} deleted; matches played with it keep its rules.")
    return redirect("web:course", course.pk)


@login_required
def version_code(request, pk, number):
    version = get_object_or_404(BotVersion.objects.select_related("bot__owner"), bot_id=pk, number=number)
    if not can_see_private(request.user, version.bot):
        raise Http404("no such version")
    return code_download(version)


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
    """The part of the match page that changes until the match is over (polled by htmx every second)."""
    return render(request, "matches/_match_live.html", _match_context(request, _shown_match(request, pk)))


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
    return {
        "match": match, "seats": seats, "variant": variant, "rules_seen": rules_seen, "game": game,
        "cooperative": game.cooperative,
        "winners": [row["seat"] for row in seats if row["seat"].seat in match.winners],
        "has_analysis": has_analysis(game),
        # Said while a match runs, so that a bot drawing on its time bank is not a silent wait.
        "running_for": round((timezone.now() - match.started_at).total_seconds()) if running else None,
    }


def has_analysis(game: Game) -> bool:
    """Whether the game's replays come with an analysis (it overrides Game.analyse)."""
    return type(game).analyse is not Game.analyse


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
    view = finished_view(match, None, compacted=True)
    scores = view["result"].get("scores") or [None] * view["num_players"]
    lost = view["points_lost"] or [None] * view["num_players"]
    context = {
        "match": match, "view": view, "losses": view["points_lost"],
        "winners": [view["players"][seat] for seat in view["result"].get("winners", [])],
        "cooperative": get_game(match.game).cooperative, "perfect_score": get_game(match.game).perfect_score,
        "score_rows": [{"name": name, "score": score, "lost": points}
                       for name, score, points in zip(view["players"], scores, lost)],
        "modules": replay_modules(match.game),
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
    if seat and not (seat.isdigit() and int(seat) < seats):
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


LADDER_PAGE_ROWS = 50


def ladder_page(request, game):
    try:
        game_obj = get_game(game)
    except KeyError as exc:
        raise Http404(str(exc)) from exc
    if game_obj.cooperative:
        return render(request, "ratings/team_ladder.html", {
            "game": game_obj, "rows": team_ladder(game),
            "lower_is_better": game_obj.score_order == ScoreOrder.LOWER_IS_BETTER})
    # A page of rows at a time (ranked first, then provisional), and the chart of the bots on it.
    number = request.GET.get("page", "")
    shown = standings_page(game, int(number) if ASCII_NUMBER.fullmatch(number) else 1, LADDER_PAGE_ROWS)
    rows = shown["rows"]
    context = {"game": game_obj, "page": shown["page"], "cache_seconds": LADDER_CACHE_SECONDS,
               "tables_key": (shown["key"], _ladder_viewer(request.user, rows)),
               "standings": {"rated": [row for row in rows if row["rank"]],
                             "provisional": [row for row in rows if not row["rank"]]},
               "mine": _own_places(request.user, game), "chart": shown["chart"],
               "rules": rules_text(), "initial": settings.ARENA_ELO_INITIAL, "k": settings.ARENA_ELO_K,
               "provisional_games": settings.ARENA_PROVISIONAL_GAMES}
    return render(request, "ratings/ladder.html", context)


def _ladder_viewer(user, rows) -> str:
    """Who the ladder's tables are drawn for, as far as they differ (a Challenge button on every bot that is
    not the viewer's own): one rendering serves every signed-in viewer without a bot on the page."""
    if not user.is_authenticated:
        return "anonymous"
    return f"owner-{user.pk}" if any(row["bot"]["owner_id"] == user.pk for row in rows) else "signed-in"


def _own_places(user, game: str) -> list[dict]:
    """Where the viewer's own bots stand on the ladder of `game`: rank and page, to jump to."""
    # Most viewers have no bot of the game: a plain query says so (building standings() costs more).
    if not Bot.objects.owned_by(user).for_game(game).exists():
        return []
    ordered = standings(game)
    own = list(ordered.filter(owner=user))
    found = places(ordered, own)
    return [{"bot": bot, "rank": None if bot.provisional else found[bot.pk],
             "page": (found[bot.pk] - 1) // LADDER_PAGE_ROWS + 1} for bot in own]
