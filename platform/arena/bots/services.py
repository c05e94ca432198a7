"""Creating bots and uploading versions (each upload is validated by a match: see matches.validation)."""

import hashlib

from django.db import transaction
from django.http import HttpResponse
from django.db.models import Max
from games import available_games

from arena.core import budget, live
from arena.core.downloads import python_download

from .models import Bot, BotVersion
from .signals import version_uploaded
from .validation import BotConflict, BotError, check_bot_name, check_source


def create_bot(owner, game: str, name: str) -> Bot:
    if game not in available_games():
        raise BotError(f"unknown game {game!r}")
    name = check_bot_name(name)
    if Bot.objects.filter(owner=owner, game=game, name=name).exists():
        raise BotConflict(f"you already have a {game} bot named {name!r}")
    return Bot.objects.create(owner=owner, game=game, name=name)


def upload_version(bot: Bot, data: bytes, filename: str) -> BotVersion:
    """Store a new immutable version of `bot` (UploadRejected if the file is unusable) and validate it
    (OverBudget, storing nothing, when its owner's budget for bot work does not admit the validation now)."""
    source = check_source(data, filename)
    with transaction.atomic():
        # Lock the bot so that concurrent uploads get distinct, consecutive numbers.
        Bot.objects.select_for_update().filter(pk=bot.pk).first()
        # Its validation is a match: drawn from the owner's budget for bot work (OverBudget, 429, past it).
        budget.admit(bot.owner, what="the validation of this upload")
        number = (bot.versions.aggregate(last=Max("number"))["last"] or 0) + 1
        version = BotVersion.objects.create(
            bot=bot, number=number, filename=filename, code=source, size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
        )
        version_uploaded.send(sender=BotVersion, version=version)
        live.publish(topic(bot.pk))
    return version


def topic(bot_id: int) -> str:
    """The live topic (arena.core.live) of a bot's versions: published when one is uploaded and when its
    validation decides (matches.validation); the bot page's versions table follows it while one validates."""
    return f"bot:{bot_id}"


def code_download(version: BotVersion) -> HttpResponse:
    """The uploaded file as a download named BOT-vN.py (the header quoted safely whatever the name holds)."""
    return python_download(version.code, f"{version.bot.name}-v{version.number}.py")
