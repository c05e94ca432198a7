"""Server-rendered pages. Thin: the work is in the apps' services; live updates poll the REST API."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from games import available_games, get_game
from games.core import ScoreOrder

from accounts.access import attended_course, attends, can_see_private, teaches
from accounts.models import Course
from bots.models import Bot, BotVersion
from api.throttles import ChallengeThrottle, RegisterThrottle, UploadThrottle
from bots.services import code_download, create_bot, upload_version
from bots.validation import BotError, read_upload
from matches.models import Match
from matches.replays import replay_view
from matches import services as match_services
from matches.services import ChallengeError, TooManyInFlight
from ratings.chart import rating_chart
from ratings.fair_play import rules_text
from ratings.services import histories, ladder, team_ladder
from variants import services as variant_services

from .forms import BotForm, ChallengeForm, RegisterForm, UploadForm, VariantForm
from .ratelimit import rate_limited, too_many_requests


def home(request):
    context = {"games": sorted(available_games().values(), key=lambda g: g.name)}
    if request.user.is_authenticated:
        context["bots"] = Bot.objects.owned_by(request.user).prefetch_related("versions")
        context["bot_form"] = BotForm()
        context["recent"] = Match.objects.filter(seats__bot__owner=request.user).distinct()[:10]
        context["courses"] = Course.objects.for_user(request.user).order_by("code")
    return render(request, "web/home.html", context)


@rate_limited(RegisterThrottle)
def register(request):
    form = RegisterForm(request.POST or None)
    if form.is_valid():
        login(request, form.save())
        return redirect("web:home")
    return render(request, "registration/register.html", {"form": form})


@login_required
@require_POST
def new_bot(request):
    form = BotForm(request.POST)
    if form.is_valid():
        try:
            bot = create_bot(request.user, form.cleaned_data["game"], form.cleaned_data["name"])
            return redirect("web:bot", bot.pk)
        except BotError as exc:
            messages.error(request, str(exc))
    return redirect("web:home")


@login_required
def bot_page(request, pk):
    return _render_bot_page(request, get_object_or_404(Bot.objects.select_related("owner"), pk=pk))


def _render_bot_page(request, bot: Bot, status: int = 200):
    private = can_see_private(request.user, bot.owner)
    context = {
        "bot": bot,
        "private": private,
        "is_owner": bot.owner_id == request.user.pk,
        "active": bot.active_version,
        "versions": bot.versions.all() if private else [],
        "matches": Match.objects.involving(bot).prefetch_related("seats__bot__owner")[:20],
        "upload_form": UploadForm(),
        "challenge_form": ChallengeForm(bot=bot, user=request.user),
        "max_upload": settings.ARENA_MAX_UPLOAD_BYTES,
    }
    return render(request, "web/bot.html", context, status=status)


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
    return redirect("web:bot", bot.pk)


@login_required
@require_POST
@rate_limited(ChallengeThrottle)
def challenge(request, pk):
    bot = _own_bot(request, pk)
    form = ChallengeForm(request.POST, bot=bot, user=request.user)
    if not form.is_valid():
        messages.error(request, "Choose the opponent(s).")
        return redirect("web:bot", bot.pk)
    try:
        match = match_services.challenge(request.user, bot, list(form.cleaned_data["opponents"]),
                                         rated=form.cleaned_data["rated"], variant=form.cleaned_data["variant"])
    except TooManyInFlight as exc:
        return too_many_requests(request, str(exc), exc.retry_after)
    except ChallengeError as exc:
        # Refused as the API refuses it (400), on the bot's page with the reason.
        messages.error(request, f"Challenge refused: {exc}")
        return _render_bot_page(request, bot, status=400)
    return redirect("web:match", match.pk)


@login_required
def course_page(request, pk):
    course = attended_course(request.user, pk)
    context = {
        "course": course,
        "variants": course.variants.select_related("created_by"),
        "teaches": teaches(request.user, course),
        "variant_form": VariantForm(),
        "max_variant": settings.ARENA_MAX_VARIANT_BYTES,
    }
    return render(request, "web/course.html", context)


@login_required
@require_POST
def new_variant(request, pk):
    course = attended_course(request.user, pk)
    form = VariantForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose the game, a name and a file.")
        return redirect("web:course", course.pk)
    try:
        variant = variant_services.create_variant(request.user, course, **form.cleaned_data)
        messages.success(request, f"Variant {variant.name} added: challenges can now choose it.")
    except variant_services.VariantRefused as exc:
        messages.error(request, "Variant refused, nothing was saved:")
        for problems in exc.problems.values():
            for problem in problems:
                messages.error(request, problem)
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
    if not can_see_private(request.user, version.bot.owner):
        raise Http404("no such version")
    return code_download(version)


@login_required
def match_page(request, pk):
    match = get_object_or_404(Match, pk=pk)
    seats = []
    for seat in match.seats.select_related("bot__owner", "version"):
        # A failure's note may quote the bot's own error message: private, like its stderr.
        private = can_see_private(request.user, seat.bot.owner)
        seats.append({"seat": seat, "log": seat.log if private else None, "detail": seat.detail if private else ""})
    # Outside the variant's course the match shows that it had its own rules, not which.
    variant = match.variant if match.variant and attends(request.user, match.variant.course) else None
    return render(request, "web/match.html", {"match": match, "seats": seats, "variant": variant})


@login_required
def replay_page(request, pk):
    match = get_object_or_404(Match, pk=pk, status=Match.Status.FINISHED)
    view = replay_view(match.replay)
    losses = list(zip(view["players"], view["points_lost"])) if view["points_lost"] else None
    return render(request, "web/replay.html",
                  {"match": match, "view": view, "seats": range(view["num_players"]), "losses": losses})


def ladder_page(request, game):
    try:
        game_obj = get_game(game)
    except KeyError as exc:
        raise Http404(str(exc)) from exc
    if game_obj.cooperative:
        return render(request, "web/team_ladder.html", {
            "game": game_obj, "rows": team_ladder(game),
            "lower_is_better": game_obj.score_order == ScoreOrder.LOWER_IS_BETTER})
    rows = ladder(game)
    series = histories(game)
    chart = rating_chart({row["bot"].label: series.get(row["bot"].pk, []) for row in rows},
                         settings.ARENA_ELO_INITIAL)
    return render(request, "web/ladder.html", {"game": game_obj, "rows": rows, "chart": chart, "rules": rules_text(),
                                               "initial": settings.ARENA_ELO_INITIAL, "k": settings.ARENA_ELO_K})
