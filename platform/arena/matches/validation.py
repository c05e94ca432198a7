"""Validating an uploaded version: a short unrated match against a built-in bot decides its status."""

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from games import get_game

from arena.bots import services as bot_services
from arena.bots.models import Bot, BotVersion
from arena.core import live
from arena.core.queue import publish_on_commit

from .models import Match, MatchSeat
from .services import create_match, seating


def start_validation(version: BotVersion) -> Match:
    """An unrated match of `version` against a built-in bot (ARENA_VALIDATION_OPPONENT when the game has it);
    it decides the version's status."""
    builtins = sorted(get_game(version.bot.game).builtin_bots())
    name = settings.ARENA_VALIDATION_OPPONENT if settings.ARENA_VALIDATION_OPPONENT in builtins else builtins[0]
    game = get_game(version.bot.game)
    # A cooperative game's team is the new version in every seat: each seat's decisions are its own.
    others = [] if game.cooperative else [Bot.objects.builtin(version.bot.game, name)]
    with transaction.atomic():  # the worker must find the version linked to the match it runs
        match = create_match(
            version.bot.game, seating(game, version.bot, others), purpose=Match.Purpose.VALIDATION, rated=False,
            created_by=version.bot.owner, versions={version.bot.pk: version},
        )
        version.validation_match = match
        version.save(update_fields=["validation_match"])
    return match


def on_version_uploaded(sender, version: BotVersion, **kwargs) -> None:
    start_validation(version)


@dataclass(frozen=True)
class Verdict:
    """What a validation match decides for its version: its status (pending when the platform could not run
    the match), the verdict shown to its owner, and the log of the version's seat."""

    status: str
    verdict: str
    log: str | None = None


def verdict_of(match: Match, version: BotVersion) -> Verdict:
    """The verdict of `match` (ended) on the `version` it validates, from the match and its seats alone: the
    validation receiver writes it, and whoever else tells of it (notifications) works it out the same way
    rather than reading what that receiver wrote."""
    if match.status == Match.Status.SET_ASIDE:
        # Not the bot's fault: the version stays pending until the staff play its validation again.
        return Verdict(version.status, f"the platform could not run validation ({match.error}); the staff were told")
    # The version's seat, or the first of its seats to fail (a cooperative team is the version alone).
    seats = sorted((s for s in match.seats.all() if s.version_id == version.pk),
                   key=lambda s: (s.status == MatchSeat.Status.OK, s.seat))
    seat = seats[0]
    if seat.status == MatchSeat.Status.OK:
        return Verdict(BotVersion.Status.ACCEPTED, "", seat.log)
    verdict = f"{seat.status}: {seat.detail}" if seat.detail else seat.status
    return Verdict(BotVersion.Status.REJECTED, verdict, seat.log)


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """Accept the validated version if its bot played the match without failing; else reject it."""
    if match.purpose != Match.Purpose.VALIDATION:
        return
    version = BotVersion.objects.select_for_update().filter(validation_match=match).first()
    if version is None:  # the version was deleted while its match ran
        return
    decided = verdict_of(match, version)
    version.status, version.verdict = decided.status, decided.verdict
    if decided.log is not None:
        version.validation_log = decided.log
    version.save(update_fields=["status", "verdict", "validation_log"])
    live.publish(bot_services.topic(version.bot_id))  # once the verdict commits: the bot page shows it
    if decided.status == BotVersion.Status.ACCEPTED:
        # Its warm container, started now, off any match's clock: its first match finds it warm.
        # Validation itself stays in a cold container of its own (runner.match_backend).
        publish_on_commit("matches.tasks.warm_up_version", version.pk)
