"""Demo data: an instructor, a teaching assistant, two students in a course and a third one invited by the
roster (her invitation waiting in the operators' outbox), an instructor who may create courses and has none
yet, the students' example bots, a few finished matches (every game), a finished tournament, a graded
assignment, two tables of people (one finished, one in play) and an open pairing room (all played here, in-process, so that nothing is queued and the pages are full from the start)."""

import random
from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from arena.accounts import people
from arena.accounts.courses import grant_instructor
from arena.accounts.models import Course, profile_of
from arena.bots.models import Bot, BotVersion
from arena.bots.services import create_bot, upload_version
from arena.grading import runs
from arena.grading import services as grading
from arena.grading.models import GradingGame
from arena.matches import services
from arena.matches.models import Match
from arena.rooms import services as rooms
from arena.tables import services as tables
from arena.tables.services import SeatChoice
from arena.tournaments import services as tournament_services
from arena.variants.services import create_variant

DEMO_BOTS = Path(__file__).resolve().parents[2] / "demo_bots"
# The README states these; they are for a local demo only.
ACCOUNTS = {
    "instructor": ("arena-instructor", True),
    "assistant": ("arena-assistant", False),
    "alice": ("arena-alice", False),
    "bob": ("arena-bob", False),
    "teacher": ("arena-teacher", False),
}
# The demo's ladders: this many minutes of matchmaking, this many rated matches a minute across the games.
LADDER_MINUTES, LADDER_MATCHES_A_MINUTE = 4, 10
STUDENT_BOTS = {"alice": ("greedy", "greedy.py"), "bob": ("lookahead", "lookahead.py")}
# The roster gives alice and bob, students of the course, their student ids (matched by their confirmed
# e-mail, set below) and mails an invitation to dora, who has no account yet (the demo's outbox keeps it).
ROSTER = ("student_id,email,name\n2026001,alice@demo.example,Alice Liddell\n2026002,bob@demo.example,Bob Marley\n"
          "2026003,dora@demo.example,Dora Explorer\n")


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
                                                       is_superuser=staff, email=f"{username}@demo.example")
                profile = profile_of(accounts[username])
                profile.confirmed_email = accounts[username].email
                profile.save(update_fields=["confirmed_email"])
            # An instructor the operator let create courses: the New course button on their home page.
            grant_instructor(accounts["teacher"])
            course = Course.objects.create(code="algo-demo", name="Algorithms (demo)", time_zone="Europe/Berlin")
            course.instructors.add(accounts["instructor"])
            course.teaching_assistants.add(accounts["assistant"])
            course.students.add(accounts["alice"], accounts["bob"])
            people.import_roster(accounts["instructor"], course, ROSTER)
            # A course variant to show on the course page: SortingGame with its robbery extension.
            create_variant(accounts["instructor"], course, game="sortinggame", name="with robbery (Extension 1)",
                           config={"robbery": True})
            bots = {}
            for username, (name, filename) in STUDENT_BOTS.items():
                bots[username] = create_bot(accounts[username], "endgame", name)
                upload_version(bots[username], (DEMO_BOTS / filename).read_bytes(), filename)
        # Validation first (the bots must be active), then practice challenges and the ladders' rated matches:
        # played here, as a worker would, so that the demo starts with results. The tasks also sent to the
        # broker find them done.
        for match in Match.objects.filter(purpose=Match.Purpose.VALIDATION):
            self._play(match)
        greedy, optimal = Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "optimal")
        for owner, opponents in [("alice", [bots["bob"]]), ("bob", [greedy])]:
            self._play(services.challenge(accounts[owner], bots[owner], opponents))  # practice: unrated
        self._ladders()
        # Sorted! is cooperative: one built-in bot plays the whole team of four.
        planner = Bot.objects.builtin("sorted", "planner")
        self._play(services.create_match("sorted", [planner] * 4, purpose=Match.Purpose.CHALLENGE, rated=False))
        sprouts = [Bot.objects.builtin("sprouts", name) for name in ("optimal", "random")]
        # The largest game a match allows, in misere play: its replay's drawing and analysis at full size (the
        # opening book answers its first moves at once).
        self._play(services.create_match("sprouts", sprouts, purpose=Match.Purpose.CHALLENGE, rated=False,
                                         config={"spots": 10, "misere": True}, seed=10))
        self._tournament(accounts["instructor"], course, [bots["alice"], bots["bob"], greedy, optimal])
        self._graded_assignment(accounts, course, bots)
        self._play_in_the_browser(accounts, course)
        self.stdout.write(self.style.SUCCESS(
            "demo data created: " + ", ".join(f"{user} / {password}" for user, (password, _) in ACCOUNTS.items())
        ))

    def _ladders(self) -> None:
        """A few minutes of matchmaking on every ladder (ratings.matchmaking, as the beat task runs it), its
        matches played at once: every rating on the demo comes from matches the platform chose, at every
        table size the games allow."""
        from arena.ratings.matchmaking import play_ladder_matches

        rng = random.Random(43)
        for _ in range(LADDER_MINUTES):
            for match in play_ladder_matches(budget=LADDER_MATCHES_A_MINUTE, rng=rng):
                self._play(match)

    def _tournament(self, instructor, course, entrants: list[Bot]) -> None:
        """A finished double elimination of the course, its games played here like the matches above."""
        tournament = tournament_services.create_tournament(
            instructor, course, name="Demo cup", game="endgame", format="double-elimination", games_per_series=2,
            seeding="given", rated=True)  # rated: its games give the ladder bots with enough matches to rank
        for bot in entrants:  # the demo's students accept their entries, as they would from their bot's page
            entrant = tournament_services.add_entrant(instructor, tournament, bot)
            if entrant.consent != entrant.Consent.ACCEPTED:
                tournament_services.answer_entry(bot.owner, entrant, accept=True)
        tournament_services.start(instructor, tournament)
        games = Match.objects.filter(series_game__series__tournament=tournament)
        while (match := games.filter(status=Match.Status.QUEUED).order_by("id").first()) is not None:
            self._play(match)
            tournament_services.advance(tournament.pk)
        tournament.refresh_from_db()
        self.stdout.write(f"  {tournament}: {tournament.status}, champion {tournament.champion}")

    def _play_in_the_browser(self, accounts, course) -> None:
        """People at tables: a finished End Game between alice and bob (its replay shows the points each of
        their moves lost), one where alice is on move against the greedy built-in (under Play), and an open
        pairing room of the course that alice has joined (the instructor starts its rounds)."""
        alice, bob = accounts["alice"], accounts["bob"]
        finished = tables.open_table(alice, "endgame", [SeatChoice(user=alice), SeatChoice(user=bob)],
                                     course=course, seed=7)
        # Alice always takes the first move offered and Bob the last: a game with mistakes to read in its replay.
        while not (game := tables.current(finished)).over:
            seat = game.seat_on_move
            choices = game.choices(seat)
            finished = tables.move(finished, (alice, bob)[seat], game.turn, choices[0 if seat == 0 else -1].action)
        # No clock on it: with the usual 5 minutes a move, whoever opened the demo later found alice already
        # out on time instead of a game on move.
        playing = tables.open_table(alice, "endgame", [SeatChoice(bot=Bot.objects.builtin("endgame", "greedy")),
                                                       SeatChoice(user=alice)], course=course, seed=11,
                                    move_seconds=None)
        tables.play_bot_turns(playing.pk)  # the built-in's first move, as a worker would play it
        rooms.join(alice, rooms.open_room(accounts["instructor"], course, "endgame"))
        self.stdout.write(f"  tables {finished.pk} (finished) and {playing.pk} (alice to move), a pairing room")

    def _play(self, match: Match) -> None:
        claimed = services.claim(match.pk)
        if isinstance(claimed, services.Claim):
            services.run(claimed)
        match.refresh_from_db()
        self.stdout.write(f"  {match}: " + ", ".join(f"{s.bot} {s.score:g} ({s.status})" for s in match.seats.all()))

    def _graded_assignment(self, accounts, course, bots) -> None:
        """An End Game assignment past its deadline with a three-part rubric, both students' submissions, and
        a finished grading run whose games are played here, so the demo never shows a run in progress."""
        now = timezone.now()
        # The demo bots were uploaded just now: date them before the deadline, as if handed in on time.
        BotVersion.objects.filter(bot__in=bots.values()).update(uploaded_at=now - timedelta(days=1, hours=2))
        assignment = grading.create_assignment(
            accounts["instructor"], course, title="End Game: beat greedy", game="endgame",
            opens_at=now - timedelta(days=14), deadline=now - timedelta(days=1), late_cutoff_days=3,
            late_penalty_per_day=10, starter_code=(DEMO_BOTS / "greedy.py").read_text())
        options = {"opponent": "greedy", "games": 6}
        grading.add_part(accounts["instructor"], assignment, "win_rate", 50, {**options, "full_at": 0.8})
        grading.add_part(accounts["instructor"], assignment, "reliability", 20, options)
        grading.add_part(accounts["instructor"], assignment, "solver_loss", 30, options)
        for username, bot in bots.items():
            grading.submit(accounts[username], assignment, bot)
        run = runs.start_run(accounts["instructor"], assignment)
        for game in GradingGame.objects.filter(runs=run).select_related("match"):
            self._play(game.match)
        runs.advance_run(run.pk)
        grading.adjust(accounts["instructor"], assignment.submissions.get(student=accounts["bob"]), 2,
                       "clear write-up of the lookahead idea")
