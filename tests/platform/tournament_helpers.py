"""Building tournaments for the platform tests: a course, students with validated bots, and a driver."""

import hashlib

from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT, play_now
from arena.tournaments import services
from arena.tournaments.models import Tournament

# A second honest End Game bot (looks one move ahead) so that brackets have real winners and losers.
LOOKAHEAD_BOT = (
    "def act(observation):\n"
    "    board = observation['board']\n"
    "    if len(board) == 1:\n"
    "        return 'left'\n"
    "    left = board[0] - max(board[1], board[-1])\n"
    "    right = board[-1] - max(board[0], board[-2])\n"
    "    return 'left' if left >= right else 'right'\n"
)


def accepted_bot(owner, game: str, name: str, code: str) -> Bot:
    """A bot with one version already accepted (the tests are about tournaments, not validation)."""
    bot = Bot.objects.create(owner=owner, game=game, name=name)
    data = code.encode()
    BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(data),
                              sha256=hashlib.sha256(data).hexdigest(), status=BotVersion.Status.ACCEPTED)
    return bot


def course_with_bots(make_user, game: str, count: int, codes=(EXAMPLE_BOT.decode(), LOOKAHEAD_BOT)):
    """A course, its instructor, and `count` students each with one accepted bot of `game`."""
    instructor = make_user("teacher")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(instructor)
    bots = []
    for number in range(count):
        student = make_user(f"student{number:02}")
        course.students.add(student)
        bots.append(accepted_bot(student, game, f"bot{number}", codes[number % len(codes)]))
    return course, instructor, bots


def entered(instructor, course, bots, **options) -> Tournament:
    """A draft of `course` with `bots` entered by its instructor, each entry accepted by the bot's owner."""
    options.setdefault("name", "Cup")
    options.setdefault("seeding", Tournament.Seeding.GIVEN)
    tournament = services.create_tournament(instructor, course, **options)
    for bot in bots:
        accepted(services.add_entrant(instructor, tournament, bot))
    return tournament


def accepted(entrant):
    """`entrant`, accepted by its bot's owner when it waits for their consent."""
    if entrant.consent == entrant.Consent.REQUESTED:
        services.answer_entry(entrant.bot.owner, entrant, accept=True)
    return entrant


def play_out(tournament: Tournament, limit: int = 2000) -> Tournament:
    """Run every queued game of the tournament in this process, advancing after each, until it ends."""
    for _ in range(limit):
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            return tournament
        queued = Match.objects.filter(series_game__series__tournament=tournament, status=Match.Status.QUEUED)
        match = queued.order_by("id").first()
        assert match is not None, "a running tournament with no game to play: it is stuck"
        play_now(match)
        services.advance(tournament.pk)
    raise AssertionError("the tournament did not finish")
