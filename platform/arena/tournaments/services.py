"""Tournament domain verbs: create, enter, start, pause, resume, cancel, and advance from recorded results.

`advance` is the state machine's only step: idempotent, run under a lock on the tournament row, it reads
what the database holds (decided series, finished matches) and writes what follows from it (a series
decided, the next games of a series, the next round's series, the champion). It runs when a tournament
match ends (tasks.advance_tournament, dispatched from the match_finished hook once the result commits) and
every minute for every running tournament (tasks.resume_tournaments), so a lost task, a killed worker or
a restarted broker delays a tournament but never stalls or corrupts it. Every status change (start, pause,
resume, cancel, the end) goes through `change_status`, which other apps hear (signals.tournament_status_changed).

Each series is a batch of games (matches.batches). A game the platform could not run is set aside
(matches.services) and *holds its series*: the series is decided by all its games or not at all, so it
shows "incomplete: platform error" and waits until the staff play the set-aside games again
(`replay_set_aside`) once the cause is fixed. Dropping the game instead would decide a series on fewer
games than its seats' balance needs, and by an accident of ours. Every other series plays on, as far as
the format allows: a round robin plays all its other series, an elimination bracket every series that
does not wait for the held one's result; the tournament finishes once the held series is decided.
"""

import random
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Prefetch
from django.urls import reverse
from django.utils import timezone
from games import ConfigError, get_game
from games.tournament import Series as SeriesSpec
from games.tournament import Tournament as Format
from games.tournament.tournament import smallest_field
from games.tournament.series import GameRecord, SeriesPlan, SeriesScore

from arena.accounts.access import entry_consent, teaches
from arena.core.errors import Conflict, Invalid, NotAllowed
from arena.core import live
from arena.core.queue import Priority, publish_on_commit
from arena.bots.models import Bot
from arena.matches import batches
from arena.matches import services as match_services
from arena.matches.models import Match
from arena.notifications.models import Notification
from arena.notifications.services import notify_all
from arena.ratings.models import Rating

from .models import MAX_SPECTATOR_DELAY, Entrant, Series, SeriesGame, Tournament
from .signals import tournament_status_changed


class TournamentError(Invalid):
    """A request about a tournament that cannot be met; the message says why (input the rules refuse: 400)."""


class TournamentNotAllowed(TournamentError, NotAllowed):
    """The user's role does not allow this (403)."""


class TournamentConflict(TournamentError, Conflict):
    """The tournament or entry is not in a state that allows this: already started, already entered (409)."""


# --- creating and entering ------------------------------------------------------------------------------

def create_tournament(user, course, *, name: str, game: str, format: str, games_per_series: int = 2,
                      players_per_game: int | None = None, rounds: int | None = None, advance: int | None = None,
                      config: dict | None = None, variant=None, rated: bool = False,
                      visibility: str = Tournament.Visibility.LIVE, seeding: str = Tournament.Seeding.RATING,
                      spectator_delay: int = 0) -> Tournament:
    """A draft tournament of `course` (its instructors only), checked as far as it can be before entrants."""
    if not teaches(user, course):
        raise TournamentNotAllowed("only the course's instructors can create its tournaments")
    try:
        rules = get_game(game)
    except KeyError as exc:
        raise TournamentError(f"unknown game {game!r}") from exc
    if rules.cooperative:
        # Every format here ranks competitors by series won; a cooperative game's seats are one team that wins
        # or loses together, so a bracket of them names a champion by seed (issue 42: Sorted! did).
        raise TournamentError(
            f"{rules.title} is cooperative: one bot plays the whole team, so no tournament format here can rank "
            f"bots against each other. Compare them on the {rules.title} ladder (ranked by average team score), "
            f"or grade them with an assignment whose rubric has the 'team score' part.")
    if variant is not None:
        if variant.course_id != course.pk or variant.game != game:
            raise TournamentError(f"{variant.name} is not a {game} variant of this course")
        if rated:
            raise TournamentError("a variant tournament cannot be rated: the ladder rates the standard rules only")
        config = variant.config
    if format == Tournament.Format.HEATS:
        if rules.max_players < 3:
            raise TournamentError(f"{rules.title} is played by {rules.min_players} to {rules.max_players} bots: "
                                  "heats need a game for 3 to 6")
        players_per_game = players_per_game or min(4, rules.max_players)
        if players_per_game < 3:
            raise TournamentError("heats seat 3 to 6 bots a game: choose a pod size of at least 3")
    else:
        players_per_game = 2
    if not rules.min_players <= players_per_game <= rules.max_players:
        raise TournamentError(f"{rules.title} is played by {rules.min_players} to {rules.max_players} bots, "
                              f"not {players_per_game}")
    if not 1 <= games_per_series <= 50:
        raise TournamentError("a series plays 1 to 50 games")
    try:
        rules.new_game(players_per_game, config or {})
    except ConfigError as exc:
        raise TournamentError(f"these options cannot be played: {exc}") from exc
    _check_format_options(rules, format, players_per_game, rounds, advance)
    if isinstance(spectator_delay, bool) or not isinstance(spectator_delay, int) \
            or not 0 <= spectator_delay <= MAX_SPECTATOR_DELAY:
        raise TournamentError(f"spectators may be held back 0 to {MAX_SPECTATOR_DELAY} moves")
    return Tournament.objects.create(
        course=course, name=name.strip() or f"{rules.title} tournament", game=game, config=config or {},
        variant=variant, format=format, players_per_game=players_per_game, games_per_series=games_per_series,
        rounds=rounds, advance=advance, rated=rated, visibility=visibility, seeding=seeding,
        spectator_delay=spectator_delay, seed=random.SystemRandom().getrandbits(48), created_by=user,
    )


# The largest field a new tournament's options are checked against: every count from the smallest they play to it.
CHECKED_ENTRANTS = 64


def _check_format_options(rules, format: str, players_per_game: int, rounds: int | None, advance: int | None) -> None:
    """The pure format code (as the offline CLI uses it) must accept the options for every field from the
    smallest it plays to CHECKED_ENTRANTS (games.tournament.smallest_field); Start checks the actual field."""
    try:
        smallest_field(format, CHECKED_ENTRANTS, rounds=rounds, advance=advance,
                       pod_size=players_per_game if format == Tournament.Format.HEATS else None,
                       seats=(rules.title, rules.min_players, rules.max_players))
    except ValueError as exc:
        raise TournamentError(str(exc)) from exc


def _pure_format(format: str, entrants: int, withdrawn: frozenset, rounds, players_per_game, advance, rules) -> Format:
    """The format's rules for this field (ValueError, with the reason, for settings it cannot play), its tables
    checked against the game's seats."""
    rules_of_format = Format(format, entrants, rounds=rounds,
                             pod_size=players_per_game if format == Tournament.Format.HEATS else None,
                             advance=advance, withdrawn=withdrawn)
    rules_of_format.check_tables(rules.title, rules.min_players, rules.max_players)
    return rules_of_format


def add_entrant(user, tournament: Tournament, bot: Bot, seed: int | None = None) -> Entrant:
    """Enter `bot` in a draft tournament: a bot of the course's students or instructors, or a built-in. Someone
    else's bot is only requested: it plays once its owner accepts (entry_consent, answer_entry)."""
    _require_draft(user, tournament)
    if bot.game != tournament.game:
        raise TournamentError(f"{bot} plays {bot.game}, not {tournament.game}")
    course = tournament.course
    if not bot.is_builtin and not (course.students.filter(pk=bot.owner_id).exists()
                                   or course.instructors.filter(pk=bot.owner_id).exists()):
        raise TournamentError(f"{bot} belongs to nobody of {course}")
    try:
        with transaction.atomic():
            entrant = Entrant.objects.create(tournament=tournament, bot=bot, seed=seed,
                                             consent=entry_consent(user, bot))
    except IntegrityError as exc:
        raise TournamentConflict(f"{bot} is already entered" if seed is None else
                                 f"{bot} is already entered, or seed {seed} is taken") from exc
    _ask_owners(tournament, [entrant])
    return entrant


def add_course_bots(user, tournament: Tournament, *, builtins: bool = False) -> list[Entrant]:
    """Enter every bot of the game that the course's students and instructors own (and the built-ins, with
    `builtins`), but those already entered: the new entrants, in entry order. The bots of others are
    requested from their owners, as add_entrant does."""
    _require_draft(user, tournament)
    course = tournament.course
    owners = [*course.students.values_list("pk", flat=True), *course.instructors.values_list("pk", flat=True)]
    bots = Bot.objects.for_game(tournament.game).filter(owner__in=owners).order_by("owner__username", "name")
    if builtins:
        bots = [*bots, *Bot.objects.for_game(tournament.game).filter(owner__isnull=True).order_by("name")]
    entered = set(tournament.entrants.values_list("bot_id", flat=True))
    with transaction.atomic():
        added = [Entrant.objects.create(tournament=tournament, bot=bot, consent=entry_consent(user, bot))
                 for bot in bots if bot.pk not in entered]
        _ask_owners(tournament, added)
    return added


def _ask_owners(tournament: Tournament, entrants: list[Entrant]) -> None:
    """Tell the owners of requested entries, in their inbox, where they accept or decline them (their bot's
    page, or the API's entry-requests)."""
    for entrant in entrants:
        if entrant.consent == Entrant.Consent.REQUESTED:
            notify_all([entrant.bot.owner], Notification.Kind.TOURNAMENT,
                       f"{tournament.course}'s staff ask to enter {entrant.bot.name} in {tournament.name}: "
                       "accept or decline on your bot's page.", reverse("bots:bot", args=[entrant.bot_id]))


def entry_requests(user):
    """The entries of `user`'s bots in tournaments not started yet, whatever their answer so far."""
    return (Entrant.objects.filter(bot__owner=user, tournament__status=Tournament.Status.DRAFT)
            .select_related("bot", "tournament__course").order_by("-added_at", "-id"))


def answer_entry(user, entrant: Entrant, accept: bool) -> Entrant:
    """The owner of an entry's bot accepts or declines it; they may change their mind until the start."""
    if entrant.bot.owner_id != user.pk:
        raise TournamentNotAllowed("only the bot's owner answers for it")
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=entrant.tournament_id)
        if tournament.status != Tournament.Status.DRAFT:
            raise TournamentConflict(f"{tournament.name} has started: its entrants are frozen")
        entrant.consent = Entrant.Consent.ACCEPTED if accept else Entrant.Consent.DECLINED
        entrant.save(update_fields=["consent"])
    return entrant


def accepted_entrants(tournament: Tournament):
    """The entrants that play: those whose owners consented (built-ins and one's own bots at once)."""
    return tournament.entrants.filter(consent=Entrant.Consent.ACCEPTED)


def seeding_preview(tournament: Tournament) -> list[Entrant]:
    """The accepted entrants of a draft in the order its seeding would give them if it started now (0 = top
    seed); seeding by hand: the seeds given so far, the unseeded last."""
    entrants = list(accepted_entrants(tournament).select_related("bot__owner", "bot__rating"))
    if tournament.seeding == Tournament.Seeding.MANUAL:
        return sorted(entrants, key=lambda e: (e.seed is None, e.seed, e.pk))
    return _seeding_order(tournament, entrants)


def discard(user, tournament: Tournament) -> None:
    """Delete a draft: nothing was played, so nothing is kept (a started tournament is cancelled instead)."""
    _require_teacher(user, tournament)
    deleted, _ = Tournament.objects.filter(pk=tournament.pk, status=Tournament.Status.DRAFT).delete()
    if not deleted:
        raise TournamentConflict("only a draft can be discarded; cancel a started tournament")


def remove_entrant(user, entrant: Entrant) -> None:
    _require_draft(user, entrant.tournament)
    entrant.delete()


def _require_teacher(user, tournament: Tournament) -> None:
    if not teaches(user, tournament.course):
        raise TournamentNotAllowed("only the course's instructors can change its tournaments")


def _require_draft(user, tournament: Tournament) -> None:
    """Entrants change while the tournament is a draft, by its course's instructors."""
    _require_teacher(user, tournament)
    if tournament.status != Tournament.Status.DRAFT:
        raise TournamentConflict("entrants are frozen once the tournament has started")


# --- starting and steering ------------------------------------------------------------------------------

def start(user, tournament: Tournament) -> Tournament:
    """Freeze the entrants (each bot's active version now; none passed validation: withdrawn), seed them,
    and create the first round. Entries whose owners have not accepted are dropped: they never entered."""
    _require_teacher(user, tournament)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.status != Tournament.Status.DRAFT:
            raise TournamentConflict(f"the tournament is {tournament.status}, not a draft")
        tournament.entrants.exclude(consent=Entrant.Consent.ACCEPTED).delete()
        entrants = list(tournament.entrants.select_related("bot__owner", "bot__rating"))
        if len(entrants) < 2:
            raise TournamentConflict("a tournament needs at least two entrants (whose owners accepted the entry)")
        for entrant in entrants:
            entrant.version = None if entrant.bot.is_builtin else entrant.bot.active_version
            if not entrant.bot.is_builtin and entrant.version is None:
                entrant.withdrawn = "withdrawn: no version of the bot passed validation before the start"
        _seed(tournament, entrants)
        playing = [e for e in entrants if not e.withdrawn]
        if len(playing) < 2:
            raise TournamentConflict("fewer than two entrants have a validated version: nothing to play")
        try:
            _format(tournament, entrants)
        except ValueError as exc:
            raise TournamentError(str(exc)) from exc
        change_status(tournament, Tournament.Status.RUNNING, expected=[Tournament.Status.DRAFT],
                      started_at=timezone.now())
    advance(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def _seed(tournament: Tournament, entrants: list[Entrant]) -> None:
    """Number the entrants 0 (top seed) upwards as the tournament's seeding says; ties by entry order."""
    if tournament.seeding == Tournament.Seeding.MANUAL:
        if sorted(e.seed for e in entrants if e.seed is not None) != list(range(len(entrants))):
            raise TournamentError(f"seeding by hand needs every entrant seeded 0 to {len(entrants) - 1}, once each")
    ordered = _seeding_order(tournament, entrants)
    # Two passes: the unique (tournament, seed) constraint must never see two entrants on one seed.
    Entrant.objects.filter(pk__in=[e.pk for e in entrants]).update(seed=None)
    for number, entrant in enumerate(ordered):
        entrant.seed = number
        entrant.save(update_fields=["seed", "version", "withdrawn"])


def _seeding_order(tournament: Tournament, entrants: list[Entrant]) -> list[Entrant]:
    """Top seed first: by the seeds given (by hand), by rating, or in entry order; ties by entry order."""
    if tournament.seeding == Tournament.Seeding.MANUAL:
        return sorted(entrants, key=lambda e: e.seed)
    if tournament.seeding == Tournament.Seeding.RATING:
        return sorted(entrants, key=lambda e: (-_rating(e.bot), e.added_at, e.pk))
    return sorted(entrants, key=lambda e: (e.added_at, e.pk))


def _rating(bot: Bot) -> float:
    rating = Rating.objects.filter(bot=bot).first()
    return rating.value if rating else float("-inf")


def pause(user, tournament: Tournament) -> None:
    """Stop creating games and cancel the queued ones; games already running finish and count."""
    _require_teacher(user, tournament)
    with transaction.atomic():
        if not change_status(tournament, Tournament.Status.PAUSED, expected=[Tournament.Status.RUNNING],
                             note="paused by an instructor"):
            raise TournamentConflict("only a running tournament can be paused")
        for match in _matches(tournament).filter(status=Match.Status.QUEUED):
            match_services.cancel(match)


def resume(user, tournament: Tournament) -> None:
    """Carry on: games cancelled by the pause are queued again by the next advance."""
    _require_teacher(user, tournament)
    if not change_status(tournament, Tournament.Status.RUNNING, expected=[Tournament.Status.PAUSED], note=""):
        raise TournamentConflict("only a paused tournament can be resumed")
    advance(tournament.pk)


def cancel(user, tournament: Tournament) -> None:
    """End the tournament without a champion; its queued and running games are cancelled."""
    _require_teacher(user, tournament)
    with transaction.atomic():
        if not change_status(tournament, Tournament.Status.CANCELLED, finished_at=timezone.now(), expected=[
                Tournament.Status.DRAFT, Tournament.Status.RUNNING, Tournament.Status.PAUSED]):
            raise TournamentConflict("the tournament is already over")
        for match in _matches(tournament).filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]):
            match_services.cancel(match)


def _matches(tournament: Tournament):
    return Match.objects.filter(series_game__series__tournament=tournament)


def change_status(tournament: Tournament, status: str, *, expected: Iterable[str], **fields) -> bool:
    """Change `tournament`'s status to `status` with `fields`, only if it is one of `expected`, and announce
    it (signals.tournament_status_changed, with the status before); False, changing and announcing nothing,
    otherwise. Every status change goes through here, so that no verb can change a status unheard (a bare
    UPDATE sends no signal, not even post_save). `tournament` then holds what was written."""
    with transaction.atomic():
        candidates = Tournament.objects.filter(pk=tournament.pk, status__in=list(expected))
        previous = candidates.select_for_update().values_list("status", flat=True).first()
        if previous is None or not candidates.update(status=status, **fields):
            return False
        tournament.status = status
        for name, value in fields.items():
            setattr(tournament, name, value)
        tournament_status_changed.send(sender=Tournament, tournament=tournament, previous=previous, status=status)
        live.publish(topic(tournament.pk))
    return True


def topic(tournament_id: int) -> str:
    """The live topic (arena.core.live) of a tournament's page: published after each change of its status and
    each `advance` (a game ended: a series decided, new games). A game starting is not announced: the page's
    counts of games running and queued catch up at the stream's next keepalive read, or the next change."""
    return f"tournament:{tournament_id}"


# --- the state machine ----------------------------------------------------------------------------------

def _format(tournament: Tournament, entrants: Iterable[Entrant]) -> Format:
    entrants = list(entrants)
    return _pure_format(tournament.format, len(entrants), frozenset(e.seed for e in entrants if e.withdrawn),
                        tournament.rounds, tournament.players_per_game, tournament.advance, get_game(tournament.game))


def format_of(tournament: Tournament) -> Format:
    """The pure format rules of a started tournament (its entrants are seeded)."""
    return _format(tournament, tournament.entrants.all())


def draft_format(tournament: Tournament) -> Format:
    """The format a draft would play with the entrants accepted so far, none withdrawn; ValueError saying
    why the settings cannot run with them."""
    return _pure_format(tournament.format, accepted_entrants(tournament).count(), frozenset(), tournament.rounds,
                        tournament.players_per_game, tournament.advance, get_game(tournament.game))


def played_outcomes(tournament: Tournament) -> dict:
    """The outcome of every series decided by play (byes and walkovers the format decides itself)."""
    return {row.key: row.outcome() for row in tournament.series.filter(status=Series.Status.DECIDED, bye=False)
            if row.points is not None and not row.walkover}


def advance(tournament_id: int, series_id: int | None = None) -> None:
    """Write everything that follows from the recorded results; safe to run any number of times, anywhere.

    With `series_id` (a game of that series just ended) only that series is looked at, and the rest of
    the tournament only if it got decided: a round robin of n bots has n(n-1)/2 series in play at once,
    and looking at each of them after every game would cost the square of the tournament's size.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return
        live.publish(topic(tournament_id))  # once this commits: a game ended, whatever follows from it
        entrants = {e.seed: e for e in tournament.entrants.select_related("bot", "version")}
        rules = _format(tournament, entrants.values())
        playing = tournament.series.filter(status=Series.Status.PLAYING)
        if series_id is not None:
            playing = playing.filter(pk=series_id)
        decided = False
        # A game's status and seats decide its series; its replay (megabytes of JSON for a long card game)
        # does not, and is never read here.
        games = Prefetch("games", queryset=SeriesGame.objects.select_related("match").defer("match__replay")
                         .prefetch_related("match__seats"))
        for row in playing.prefetch_related(games):
            _progress(tournament, row, entrants)
            decided |= row.status == Series.Status.DECIDED
        if series_id is not None and not decided:
            return
        outcomes = played_outcomes(tournament)
        known = set(tournament.series.values_list("key", flat=True))
        for spec in rules.series(outcomes):
            if spec.key not in known and None not in spec.entrants:
                row = _create_series(tournament, rules, spec)
                if row.status == Series.Status.PLAYING:
                    _progress(tournament, row, entrants)
        if rules.finished(outcomes):
            champion = rules.champion(outcomes)
            change_status(tournament, Tournament.Status.FINISHED, expected=[Tournament.Status.RUNNING],
                          finished_at=timezone.now(), champion=entrants[champion] if champion is not None else None)


def _create_series(tournament: Tournament, rules: Format, spec: SeriesSpec) -> Series:
    """A row for a series whose entrants are all known; byes and walkovers are decided at once."""
    walkover = rules.walkover(spec)
    row = Series.objects.create(
        tournament=tournament, key=spec.key, round=spec.round, bracket=spec.bracket or "",
        entrants=list(spec.entrants), bye=spec.bye, drawable=spec.drawable, advance=spec.advance,
    )
    if walkover is not None:
        _decide(row, walkover, walkover=True)
    return row


def _decide(row: Series, outcome, *, walkover: bool = False) -> None:
    """Record a series' outcome, once (a concurrent advance finding it decided changes nothing)."""
    Series.objects.filter(pk=row.pk, status=Series.Status.PLAYING).update(
        status=Series.Status.DECIDED, placings={str(k): v for k, v in outcome.placings.items()},
        points={str(k): v for k, v in outcome.points.items()}, walkover=walkover, decided_at=timezone.now(),
    )
    row.refresh_from_db()


def _plan(tournament: Tournament, row: Series) -> SeriesPlan:
    spec = SeriesSpec(key=row.key, round=row.round, bracket=row.bracket or None, entrants=tuple(row.entrants),
                      bye=row.bye, drawable=row.drawable, advance=row.advance)
    return SeriesPlan(spec, tournament.games_per_series, len(row.entrants), tournament.seed,
                      cooperative=get_game(tournament.game).info().cooperative)


def _progress(tournament: Tournament, row: Series, entrants: dict[int, Entrant]) -> None:
    """Decide `row` if its finished games decide it; else queue its next games once the current ones end. A
    series with a set-aside game is held until that game is played again (see the module docstring)."""
    games = list(row.games.all())
    if not batches.settle(game.match for game in games).complete:
        return
    plan = _plan(tournament, row)
    played = [_record(game) for game in games]
    outcome = plan.outcome(played)
    if outcome is not None:
        _decide(row, outcome)
        return
    for spec in plan.next_games(played):
        _create_game(tournament, row, spec, entrants)


def replay_set_aside(user, tournament: Tournament) -> int:
    """The course's instructors play the tournament's set-aside games again once the cause is fixed; their
    series are decided as they finish. How many games were queued."""
    _require_teacher(user, tournament)
    if tournament.status != Tournament.Status.RUNNING:
        raise TournamentConflict(f"the tournament is {tournament.status}: only a running one plays games")
    queued = batches.replay(_matches(tournament))
    if not queued:
        raise TournamentConflict("no game of this tournament is set aside: nothing to play again")
    return queued


def series_score(tournament: Tournament, row: Series) -> SeriesScore | None:
    """How a series decided by play reads (game points, totals, tie-break); None for one not decided by play."""
    if row.status != Series.Status.DECIDED or row.walkover or row.bye:
        return None
    return _plan(tournament, row).score([_record(game) for game in row.games.all()])


def _record(game: SeriesGame) -> GameRecord:
    seats = sorted(game.match.seats.all(), key=lambda seat: seat.seat)
    return GameRecord(seats=tuple(game.seats), scores=tuple(seat.score for seat in seats),
                      placings=tuple(seat.placing for seat in seats), statuses=tuple(seat.status for seat in seats))


def _create_game(tournament: Tournament, row: Series, spec, entrants: dict[int, Entrant]) -> None:
    if row.games.filter(index=spec.index).exists():
        return
    seated = [entrants[seed] for seed in spec.seats]
    match = batches.queue(
        tournament.game, [entrant.bot for entrant in seated], purpose=Match.Purpose.TOURNAMENT,
        rated=tournament.rated, versions={e.bot.pk: e.version for e in seated if e.version},
        config=tournament.config, variant=tournament.variant, seed=spec.seed,
        spectator_delay=tournament.spectator_delay,
    )
    SeriesGame.objects.create(series=row, index=spec.index, seats=list(spec.seats), match=match)


# --- the hook ---------------------------------------------------------------------------------------------

def on_match_finished(sender, match: Match, **kwargs) -> None:
    """A tournament game ended: advance its tournament once the result has committed."""
    if match.purpose != Match.Purpose.TOURNAMENT:
        return
    series = Series.objects.filter(games__match=match).values_list("tournament_id", "pk").first()
    if series is not None:
        publish_on_commit("tournaments.tasks.advance_tournament", *series, priority=Priority.TOURNAMENT)
