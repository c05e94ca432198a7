"""Demo data: an instructor, two students in a course, their example bots, a few finished matches, and a
finished tournament."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from games import get_game

from accounts.models import Course
from bots.models import Bot
from bots.services import create_bot, upload_version
from matches import services
from matches.models import Match
from tournaments import services as tournament_services
from variants.services import create_variant

DEMO_BOTS = Path(__file__).resolve().parents[2] / "demo_bots"
# The README states these; they are for a local demo only.
ACCOUNTS = {
    "instructor": ("arena-instructor", True),
    "alice": ("arena-alice", False),
    "bob": ("arena-bob", False),
}
STUDENT_BOTS = {"alice": ("greedy", "greedy.py"), "bob": ("lookahead", "lookahead.py")}


class Command(BaseCommand):
    help = "Create the demo accounts, course, bots and a few finished matches (once)."

    def handle(self, *args, **options):
        users = get_user_model().objects
        if users.filter(username="instructor").exists():
            self.stdout.write("demo data already present")
            return
        with transaction.atomic():
            accounts = {}
            for username, (password, staff) in ACCOUNTS.items():
                accounts[username] = users.create_user(username, password=password, is_staff=staff,
                                                       is_superuser=staff)
            course = Course.objects.create(code="algo-demo", name="Algorithms (demo)")
            course.instructors.add(accounts["instructor"])
            course.students.add(accounts["alice"], accounts["bob"])
            # A course variant to show on the course page: SortingGame with its robbery extension.
            create_variant(accounts["instructor"], course, game="sortinggame", name="with robbery (Extension 1)",
                           config={"robbery": True})
            bots = {}
            for username, (name, filename) in STUDENT_BOTS.items():
                bots[username] = create_bot(accounts[username], "endgame", name)
                upload_version(bots[username], (DEMO_BOTS / filename).read_bytes(), filename)
        # Validation first (the bots must be active), then rated matches: played here, as a worker would,
        # so that the demo starts with results. The tasks also sent to the broker find them done.
        for match in Match.objects.filter(purpose=Match.Purpose.VALIDATION):
            self._play(match)
        greedy, optimal = Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "optimal")
        for owner, opponents in [("alice", [bots["bob"]]), ("bob", [greedy]), ("alice", [optimal]),
                                 ("bob", [bots["alice"]])]:
            self._play(services.challenge(accounts[owner], bots[owner], opponents, rated=True))
        # One table of each card game between the built-ins, so their replays (with the per-seat view)
        # and multiplayer ladders have something to show from the start.
        for game in ("crazyking", "sortinggame"):
            table = [Bot.objects.builtin(game, name) for name in sorted(get_game(game).builtin_bots())][:3]
            self._play(services.create_match(game, table, purpose=Match.Purpose.CHALLENGE, rated=True))
        # Sorted! is cooperative: one built-in bot plays the whole team of four.
        planner = Bot.objects.builtin("sorted", "planner")
        self._play(services.create_match("sorted", [planner] * 4, purpose=Match.Purpose.CHALLENGE, rated=False))
        sprouts = [Bot.objects.builtin("sprouts", name) for name in ("optimal", "random")]
        self._play(services.create_match("sprouts", sprouts, purpose=Match.Purpose.CHALLENGE, rated=True,
                                         config={"spots": 3}))
        self._tournament(accounts["instructor"], course, [bots["alice"], bots["bob"], greedy, optimal])
        self.stdout.write(self.style.SUCCESS(
            "demo data created: " + ", ".join(f"{user} / {password}" for user, (password, _) in ACCOUNTS.items())
        ))

    def _tournament(self, instructor, course, entrants: list[Bot]) -> None:
        """A finished double elimination of the course, its games played here like the matches above."""
        tournament = tournament_services.create_tournament(
            instructor, course, name="Demo cup", game="endgame", format="double-elimination", games_per_series=2,
            seeding="given", rated=True)  # rated: its games give the ladder bots with enough matches to rank
        for bot in entrants:
            tournament_services.add_entrant(instructor, tournament, bot)
        tournament_services.start(instructor, tournament)
        games = Match.objects.filter(series_game__series__tournament=tournament)
        while (match := games.filter(status=Match.Status.QUEUED).order_by("id").first()) is not None:
            self._play(match)
            tournament_services.advance(tournament.pk)
        tournament.refresh_from_db()
        self.stdout.write(f"  {tournament}: {tournament.status}, champion {tournament.champion}")

    def _play(self, match: Match) -> None:
        claimed = services.claim(match.pk)
        if isinstance(claimed, services.Claim):
            services.run(claimed)
        match.refresh_from_db()
        self.stdout.write(f"  {match}: " + ", ".join(f"{s.bot} {s.score:g} ({s.status})" for s in match.seats.all()))
