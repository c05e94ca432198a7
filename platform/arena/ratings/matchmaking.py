"""Matchmaking: the platform chooses every rated match of the ladders (issue 43).

Students used to pick their rated opponents, and so could farm the ladder (a second account's weak bot beaten
on purpose). Now no student action seats a rated match: a Celery beat task (tasks.play_ladder_matches, once a
minute) starts at most ARENA_LADDER_MATCHES_PER_MINUTE rated matches across the ladders, and a second
account's bots enter this same matchmaking as everyone's.

Whom a match seats, for each game's ladder:
- the *focus* bot is the one furthest below its fair share of today's matches (a new version, uploaded in the
  last ARENA_LADDER_NEW_VERSION_HOURS, counts its matches half: it is played sooner), the most uncertain
  (highest sigma) first among equals;
- its opponents are drawn one by one, each with a weight that favours close skill (the chance of a close
  result given both uncertainties, as TrueSkill's match quality), high uncertainty (more to learn), few
  matches today, and pairs that have not met yet today; drawn at random by weight, so the ladder never
  replays the same table;
- the table size cycles through every seat count the game allows (the least played today first); a
  cooperative game seats one team of its size (a bot may play several seats when too few bots are free);
- two bots of one owner never share a rated table, and a bot plays one ladder match at a time.

Ladder matches wait behind grading and tournaments: while a grading run's or tournament's match is queued,
the ladders start nothing, and a game's ladder has at most ARENA_LADDER_MAX_IN_FLIGHT matches queued or
running at once.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone
from games import available_games, get_game

from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match, MatchSeat

from .pairing import Candidate, choose_table, table_size
from .services import model
from .skill import Skill

DAY = timedelta(hours=24)
BUSY = (Match.Status.QUEUED, Match.Status.RUNNING)


# --- the database side --------------------------------------------------------------------------------

def ladder_matches():
    return Match.objects.filter(purpose=Match.Purpose.LADDER)


def higher_priority_waiting() -> bool:
    """A grading run's or tournament's match is queued: the ladders wait for the workers to catch up."""
    return Match.objects.filter(status=Match.Status.QUEUED,
                                purpose__in=[Match.Purpose.GRADING, Match.Purpose.TOURNAMENT]).exists()


def candidates(game: str, now) -> list[Candidate]:
    """The active bots of `game` free to play a ladder match now (none already in one queued or running)."""
    since = now - DAY
    bots = (Bot.objects.active().for_game(game).select_related("rating")
            .annotate(today=Count("seats__match", distinct=True,
                                  filter=Q(seats__match__purpose=Match.Purpose.LADDER,
                                           seats__match__created_at__gte=since)
                                  & ~Q(seats__match__status__in=[Match.Status.CANCELLED, Match.Status.SET_ASIDE]))))
    busy = set(MatchSeat.objects.filter(match__purpose=Match.Purpose.LADDER, match__status__in=BUSY,
                                        match__game=game).values_list("bot_id", flat=True))
    fresh = set(BotVersion.objects.filter(bot__game=game, status=BotVersion.Status.ACCEPTED,
                                          uploaded_at__gte=now - timedelta(hours=settings.ARENA_LADDER_NEW_VERSION_HOURS))
                .values_list("bot_id", flat=True))
    met: dict[int, set[int]] = {}
    tables: dict[int, list[int]] = {}
    for match_id, bot_id in MatchSeat.objects.filter(match__purpose=Match.Purpose.LADDER, match__game=game,
                                                     match__created_at__gte=since).values_list("match_id", "bot_id"):
        tables.setdefault(match_id, []).append(bot_id)
    for table in tables.values():
        for bot_id in table:
            met.setdefault(bot_id, set()).update(other for other in table if other != bot_id)
    prior = model().initial()
    found = []
    for bot in bots:
        if bot.pk in busy:
            continue
        rating = getattr(bot, "rating", None)
        skill = Skill(rating.mu, rating.sigma) if rating else prior
        found.append(Candidate(bot.pk, bot.owner_id, skill, bot.today, bot.pk in fresh,
                               frozenset(met.get(bot.pk, ()))))
    return found


def sizes_today(game: str, now) -> dict[int, int]:
    """{table size: ladder matches of `game` with that many seats started in the last 24 hours}."""
    sized = (ladder_matches().filter(game=game, created_at__gte=now - DAY)
             .annotate(size=Count("seats")).values_list("size", flat=True))
    counts: dict[int, int] = {}
    for size in sized:
        counts[size] = counts.get(size, 0) + 1
    return counts


def start_match(game_name: str, rng: random.Random, now) -> Match | None:
    """Queue one rated ladder match of `game_name`, chosen as above, or None when it cannot (too few free
    bots, or the ladder already has its most matches in flight)."""
    from arena.matches.services import create_match

    if ladder_matches().filter(game=game_name, status__in=BUSY).count() >= settings.ARENA_LADDER_MAX_IN_FLIGHT:
        return None
    game = get_game(game_name)
    free = candidates(game_name, now)
    size = table_size(game, sizes_today(game_name, now), len(free))
    if size is None:
        return None
    table = choose_table(model(), free, size, rng, cooperative=game.cooperative)
    if table is None:
        return None
    bots = {bot.pk: bot for bot in Bot.objects.filter(pk__in={c.bot_id for c in table})}
    return create_match(game_name, [bots[c.bot_id] for c in table], purpose=Match.Purpose.LADDER, rated=True)


def ladder_games() -> list[str]:
    """The games whose ladders matchmaking plays."""
    return sorted(available_games())


def play_ladder_matches(budget: int | None = None, rng: random.Random | None = None, now=None) -> list[Match]:
    """Start up to `budget` (ARENA_LADDER_MATCHES_PER_MINUTE) rated matches, shared in turn among the
    ladders; none while grading or tournament matches wait."""
    budget = settings.ARENA_LADDER_MATCHES_PER_MINUTE if budget is None else budget
    rng = rng or random.Random()
    now = now or timezone.now()
    if budget <= 0 or higher_priority_waiting():
        return []
    started: list[Match] = []
    games = ladder_games()
    rng.shuffle(games)  # no ladder always first in a short budget
    while len(started) < budget and games:
        for game in list(games):
            if len(started) >= budget:
                break
            match = start_match(game, rng, now)
            if match is None:
                games.remove(game)  # this ladder is full or has too few free bots this minute
            else:
                started.append(match)
    return started
