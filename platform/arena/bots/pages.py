"""The pages of bots: a new bot, its page, uploads, its versions and their code."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from games import get_game

from arena.accounts.access import can_see_private, visible_matches
from arena.core.live import Snapshot, event_stream, rendered_part
from arena.core.pages import home
from arena.core.pagination import ascii_number
from arena.core.ratelimit import rate_limited
from arena.core.throttles import UploadThrottle
from arena.grading.selectors import starters
from arena.matches.forms import ChallengeForm
from arena.matches.models import Match
from arena.notifications.models import Notification
from arena.notifications.services import notify
from arena.ratings.head_to_head import head_to_head
from arena.ratings.presentation import rating_chart

from .forms import BotForm, UploadForm
from .models import Bot, BotVersion
from .services import code_download, create_bot, topic, upload_version
from .validation import BotError, read_upload


@login_required
@require_POST
def new_bot(request):
    form = BotForm(request.POST)
    if form.is_valid():
        try:
            bot = create_bot(request.user, form.cleaned_data["game"], form.cleaned_data["name"])
            return redirect("bots:bot", bot.pk)
        except BotError as exc:
            form.add_error("name", str(exc))
    # The page again with what was typed and the reason beside it.
    return home(request, bot_form=form)


@login_required
def bot_page(request, pk):
    return render_bot_page(request, get_object_or_404(Bot.objects.select_related("owner"), pk=pk))


def render_bot_page(request, bot: Bot, status: int = 200, challenge_form: ChallengeForm | None = None):
    private = can_see_private(request.user, bot)
    if challenge_form is None:
        # ?against=BOT (the Challenge buttons of the ladder and other bots' pages) preselects the opponent.
        against = ascii_number(request.GET.get("against", ""))
        initial = {"opponents": [against]} if against is not None else {}
        challenge_form = ChallengeForm(bot=bot, user=request.user, initial=initial)
    context = {
        "bot": bot,
        "private": private,
        "is_owner": bot.owner_id == request.user.pk,
        "active": bot.active_version,
        "matches": visible_matches(Match.objects.without_replay().involving(bot), request.user)
                   .prefetch_related("seats__bot__owner")[:20],
        "upload_form": UploadForm(),
        "challenge_form": challenge_form,
        "max_upload": settings.ARENA_MAX_UPLOAD_BYTES,
        "game": get_game(bot.game),
        "chart": None if get_game(bot.game).cooperative else rating_chart([bot]),
        "head_to_head": head_to_head(bot, request.user),
        "starters": starters(request.user, bot.game) if bot.owner_id == request.user.pk else [],
    }
    if private:  # rendered as its stream renders it: the stream starts after it (?last_event_id)
        context["versions_part"] = _versions_part(request, bot, list(bot.versions.all()), context["active"])
        context["validating"] = not context["versions_part"].final
    return render(request, "bots/bot.html", context, status=status)


def _versions_part(request, bot: Bot, versions: list[BotVersion], active: BotVersion | None) -> Snapshot:
    """The bot's versions table, for its page and for its stream: final once none validates."""
    validating = any(version.status == BotVersion.Status.VALIDATING for version in versions)
    return rendered_part(request, "bots/_versions.html",
                         {"bot": bot, "versions": versions, "active": active, "validating": validating},
                         final=not validating)


@login_required
def versions_live(request, pk):
    """The versions table as a stream of server-sent events (arena.core.live) while one validates: rendered
    again after each upload and verdict; once none validates the stream ends, and the page reloads so that
    what the verdict changes (the active version, the challenge form) shows too."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    if not can_see_private(request.user, bot):
        raise Http404("no such bot")

    def snapshot() -> Snapshot:
        return _versions_part(request, bot, list(bot.versions.all()), bot.active_version)

    return event_stream(request, topic(bot.pk), snapshot)


def own_bot(request, pk) -> Bot:
    bot = get_object_or_404(Bot, pk=pk)
    if bot.owner_id != request.user.pk:
        raise PermissionDenied("only the bot's owner can do this")
    return bot


@login_required
@require_POST
@rate_limited(UploadThrottle)
def upload(request, pk):
    bot = own_bot(request, pk)
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
                   reverse("bots:bot", args=[bot.pk]))
    return redirect("bots:bot", bot.pk)


@login_required
def version_code(request, pk, number):
    version = get_object_or_404(BotVersion.objects.select_related("bot__owner"), bot_id=pk, number=number)
    if not can_see_private(request.user, version.bot):
        raise Http404("no such version")
    return code_download(version)
