"""Scale data: many students' End Game bots in many courses with many finished, rated matches.

For load runs and query-count checks, not for a real site. Written with bulk_create in batches; the
replays are a handful of End Game matches really played here between built-in bots (a replay is
exact from its seed and actions, so each filled match takes the seed, config and result of the
replay it shows), and the ratings are the Elo of those results applied in order, as the workers would.
"""

import hashlib
import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone
from games import get_game
from games.bots import builtin_player
from games.referee import play_match

from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match, MatchSeat
from arena.ratings.models import Rating
from arena.ratings.services import model, stored_rating
from arena.ratings.skill import RecordedMatch, replay

GAME = "endgame"
BOT_CODE = "def act(observation):\n    board = observation['board']\n    return 'left' if board[0] >= board[-1] else 'right'\n"
# The real matches whose replays every filled match reuses (different seeds give different boards).
TEMPLATE_LINEUPS = [("greedy", "random"), ("optimal", "greedy"), ("random", "optimal"), ("greedy", "greedy")]
BATCH = 5000


@dataclass
class Template:
    seed: int
    config: dict
    winners: list
    replay: dict
    seats: list  # per seat: the MatchSeat fields of the result


def play_templates(count: int) -> list[Template]:
    game = get_game(GAME)
    templates = []
    for seed in range(count):
        names = TEMPLATE_LINEUPS[seed % len(TEMPLATE_LINEUPS)]
        result = play_match(game, [builtin_player(game, name, rng_seed=seed) for name in names], seed=seed)
        seats = [{"score": p.score, "placing": p.placing, "status": p.status, "think_time": p.think_time,
                  "decisions": p.decisions} for p in result.players]
        templates.append(Template(seed, {}, result.winners, result.replay, seats))
    return templates


class Command(BaseCommand):
    help = "Fill the database with --bots students' End Game bots in --courses courses and --matches finished matches."

    def add_arguments(self, parser):
        parser.add_argument("--bots", type=int, default=1000)
        parser.add_argument("--courses", type=int, default=50)
        parser.add_argument("--matches", type=int, default=100_000)
        parser.add_argument("--replays", type=int, default=12, help="real End Game matches whose replays are reused")
        parser.add_argument("--prefix", default="scale", help="usernames and course codes start with it")

    def handle(self, *args, bots, courses, matches, replays, prefix, **options):
        if bots < 2 or courses < 1 or matches < 0 or replays < 1:
            raise CommandError("need at least 2 bots, 1 course, 0 matches and 1 replay")
        if get_user_model().objects.filter(username__startswith=f"{prefix}-").exists():
            raise CommandError(f"scale data with prefix {prefix!r} is already there; pass another --prefix")
        templates = play_templates(replays)
        with transaction.atomic():
            owners = self._students(prefix, bots)
            self._courses(prefix, courses, owners)
            versions = self._bots(owners)
            self._matches(versions, templates, matches)
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            # Planner statistics and the visibility map for the new rows, as autovacuum would give them later:
            # without them a page's COUNT(*) reads the whole match table. (Not inside a caller's transaction,
            # as in the tests: VACUUM cannot run there.)
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        self.stdout.write(f"{bots} bots, {courses} courses, {matches} finished matches")

    def _students(self, prefix: str, count: int) -> list:
        users = get_user_model()
        password = make_password(None)  # unusable: the accounts are for load, nobody signs in as them
        return users.objects.bulk_create(
            [users(username=f"{prefix}-{n:05}", password=password) for n in range(count)], batch_size=BATCH)

    def _courses(self, prefix: str, count: int, students: list) -> None:
        made = Course.objects.bulk_create(
            [Course(code=f"{prefix}-{n:03}", name=f"Scale course {n}") for n in range(count)])
        enrolled = Course.students.through
        enrolled.objects.bulk_create(
            [enrolled(course_id=made[n % count].pk, user_id=student.pk) for n, student in enumerate(students)],
            batch_size=BATCH)

    def _bots(self, owners: list) -> list[BotVersion]:
        made = Bot.objects.bulk_create([Bot(owner=owner, game=GAME, name="greedy") for owner in owners],
                                       batch_size=BATCH)
        digest = hashlib.sha256(BOT_CODE.encode()).hexdigest()
        return BotVersion.objects.bulk_create(
            [BotVersion(bot=bot, number=1, filename="bot.py", code=BOT_CODE, sha256=digest, size=len(BOT_CODE),
                        status=BotVersion.Status.ACCEPTED) for bot in made], batch_size=BATCH)

    def _matches(self, versions: list[BotVersion], templates: list[Template], count: int) -> None:
        """`count` rated matches between random pairs, a minute apart up to now, with ratings applied in order."""
        chance = random.Random(0)
        ratings = {}
        labels = {v.bot_id: f"{v.bot.owner.username}/{v.bot.name}" for v in versions}
        start = timezone.now() - timedelta(minutes=count)
        for first in range(0, count, BATCH):
            table = [(chance.sample(versions, 2), templates[n % len(templates)])
                     for n in range(first, min(count, first + BATCH))]
            made = Match.objects.bulk_create(
                [Match(game=GAME, config=t.config, seed=t.seed, purpose=Match.Purpose.LADDER, rated=True,
                       status=Match.Status.FINISHED, attempts=1, winners=t.winners,
                       started_at=start + timedelta(minutes=first + n),
                       finished_at=start + timedelta(minutes=first + n, seconds=1),
                       replay={**t.replay, "players": [labels[v.bot_id] for v in pair]})
                 for n, (pair, t) in enumerate(table)])
            MatchSeat.objects.bulk_create(
                [seat for match, (pair, t) in zip(made, table) for seat in self._seats(match, pair, t, ratings)])
        Rating.objects.bulk_create([stored_rating(bot_id, state) for bot_id, state in ratings.items()],
                                   batch_size=BATCH)

    @staticmethod
    def _seats(match: Match, pair: list[BotVersion], template: Template, ratings: dict) -> list[MatchSeat]:
        """The match's seats, rated by the ladder's model; `ratings` (bot id: skill.Replayed) carries on."""
        k = settings.ARENA_RATING_K
        played = RecordedMatch([((number, version, result), version.bot_id, result["placing"])
                                for number, (version, result) in enumerate(zip(pair, template.seats))])
        return [MatchSeat(match=match, seat=number, bot_id=version.bot_id, version=version, **result,
                          rating_before=before.conservative(k), rating_after=after.conservative(k),
                          rated_number=rated_number)
                for (number, version, result), before, after, rated_number in replay(model(), [played], ratings)]
