"""Grading runs: the games a rubric needs, played as ordinary matches, and the grades computed from them.

`start_run` fixes what is graded (the rubric as it is, each submission's version by the deadline rule) and
links the run to the games it needs, reusing every cached game (`GradingGame`: one match per version,
opponent, seed, seat and rules) and queueing only the missing ones. `advance_run` is the only step, run
under a lock on the run row, idempotent: when every game has finished it writes the grades. It runs when a
grading match ends (the match_finished hook publishes tasks.advance_grading_run once the result commits)
and every minute for every running run (tasks.resume_grading_runs), so a lost message delays a run but
never stalls it. Seeds derive from the assignment's seed, so the same versions always meet the same
boards: a run is reproducible, and a re-run after a rubric change replays nothing it already has.
"""

import hashlib
import json
import logging

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from games import get_game

from accounts.access import staffs
from arena.queue import publish_on_commit
from bots.models import Bot, BotVersion
from matches import services as match_services
from matches.models import Match

from . import parts
from .models import Assignment, Grade, GradingGame, GradingRun
from .services import WITHDRAWN, Graded, GradingError, graded_version, late_factor

log = logging.getLogger(__name__)

# A game the platform fails to run this many times fails the run, for an operator to look at.
MAX_PLATFORM_ERRORS = 3


def rules_digest(assignment: Assignment) -> str:
    """What, besides the bots and the seed, decides a game: the game and its options."""
    text = json.dumps([assignment.game, assignment.config or {}], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def start_run(user, assignment: Assignment) -> GradingRun:
    """Grade every submission of `assignment` with its current rubric (instructors and assistants)."""
    if not staffs(user, assignment.course):
        raise GradingError("only the course's instructors and teaching assistants can run grading")
    rubric = [{"part": p.pk, "kind": p.kind, "label": p.label, "weight": p.weight, "params": p.params}
              for p in assignment.rubric.all()]
    if not rubric:
        raise GradingError("the rubric is empty: add at least one part first")
    with transaction.atomic():
        # Runs are numbered within their assignment; the lock on the assignment keeps two starts apart.
        Assignment.objects.select_for_update().filter(pk=assignment.pk).exists()
        number = (assignment.runs.aggregate(last=Max("number"))["last"] or 0) + 1
        run = GradingRun.objects.create(assignment=assignment, number=number, rubric=rubric, created_by=user)
        games = []
        for submission in assignment.submissions.select_related("bot"):
            graded = (graded_version(assignment, submission.bot) if submission.withdrawn_at is None
                      else Graded(None, 0, WITHDRAWN))
            run.plan[str(submission.pk)] = {"bot": submission.bot_id,
                                            "version": graded.version.pk if graded.version else None,
                                            "late_days": graded.late_days, "note": graded.note}
            if graded.version is not None:
                for part in rubric:
                    games += [cached_game(assignment, graded.version, need)
                              for need in parts.KINDS[part["kind"]].needs(assignment, part["params"])]
        run.save(update_fields=["plan"])
        run.games.set({game.pk for game in games})
    advance_run(run.pk)
    run.refresh_from_db()
    return run


def cache_key(assignment: Assignment, version: BotVersion, need: parts.GameNeed, digest: str) -> dict:
    """What identifies a grading game: the version, whom it plays with, the seed, its seat and the rules.
    A need without an opponent is a cooperative game the version plays alone, in every seat."""
    opponent = version.bot if not need.opponent else Bot.objects.builtin(assignment.game, need.opponent)
    return {"version": version, "opponent": opponent, "seed": need.seed, "seat": need.seat, "rules": digest}


def cached_game(assignment: Assignment, version: BotVersion, need: parts.GameNeed) -> GradingGame:
    """The game of `version` against a built-in on a seed in a seat: the cached one, or a new queued match."""
    key = cache_key(assignment, version, need, rules_digest(assignment))
    game = GradingGame.objects.filter(**key).first()
    if game is not None:
        return game
    opponent = key["opponent"]
    if not need.opponent:
        bots = match_services.seating(get_game(assignment.game), version.bot, [])
    else:
        bots = [version.bot, opponent] if need.seat == 0 else [opponent, version.bot]
    try:
        with transaction.atomic():  # a concurrent run may create the same game: keep theirs
            match = match_services.create_match(
                assignment.game, bots, purpose=Match.Purpose.GRADING, rated=False,
                versions={version.bot_id: version}, config=assignment.config, variant=assignment.variant,
                seed=need.seed, rotate=False)
            return GradingGame.objects.create(match=match, **key)
    except IntegrityError:
        return GradingGame.objects.get(**key)


def advance_run(run_id: int) -> None:
    """Queue again games the platform failed; once every game has finished, write the grades."""
    with transaction.atomic():
        run = GradingRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != GradingRun.Status.RUNNING:
            return
        waiting = False
        for game in run.games.select_related("match"):
            status = game.match.status
            if status in (Match.Status.ERROR, Match.Status.CANCELLED):
                if not _replay_failed(run, game):
                    return
                waiting = True
            elif status != Match.Status.FINISHED:
                waiting = True
        if not waiting:
            write_grades(run)
            run.status, run.finished_at = GradingRun.Status.FINISHED, timezone.now()
            run.save(update_fields=["status", "finished_at"])


def _replay_failed(run: GradingRun, game: GradingGame) -> bool:
    if game.match.status == Match.Status.ERROR:
        game.platform_errors += 1
        game.save(update_fields=["platform_errors"])
        if game.platform_errors >= MAX_PLATFORM_ERRORS:
            run.status, run.finished_at = GradingRun.Status.FAILED, timezone.now()
            run.note = (f"match {game.match_id} failed on the platform {game.platform_errors} times "
                        f"({game.match.error[:300]}); start a new run once it is fixed")
            run.save(update_fields=["status", "finished_at", "note"])
            log.error("grading run %s failed: %s", run.pk, run.note)
            return False
    match_services.requeue(game.match)
    return True


def write_grades(run: GradingRun) -> None:
    """One Grade per planned submission, each part's points with the matches, versions and seeds behind them."""
    assignment = run.assignment
    digest = rules_digest(assignment)
    for submission in assignment.submissions.select_related("bot", "team", "student"):
        planned = run.plan.get(str(submission.pk))
        if planned is None:  # submitted after the run started
            continue
        version = BotVersion.objects.filter(pk=planned["version"]).first()
        rows = [_measure(run, part, submission, version, digest) for part in run.rubric] if version else []
        measured = round(sum(row["points"] for row in rows), 4)
        # A run planned before plans named the bot graded its submission's bot of that time.
        Grade.objects.create(run=run, submission=submission, bot_id=planned.get("bot", submission.bot_id),
                             version=version,
                             late_days=planned["late_days"],
                             parts=rows, measured=measured,
                             total=round(measured * late_factor(assignment, planned["late_days"]), 4),
                             note=planned["note"])


def _measure(run, part: dict, submission, version, digest: str) -> dict:
    part_type = parts.KINDS[part["kind"]]
    needs = part_type.needs(run.assignment, part["params"])
    played = {}
    for need in needs:
        game = (GradingGame.objects.select_related("match").prefetch_related("match__seats")
                .get(**cache_key(run.assignment, version, need, digest)))
        played[need] = game.match
    measured = part_type.measure(parts.Context(run.assignment, submission, version, played), part["params"])
    return {"part": part["part"], "kind": part["kind"], "label": part["label"], "weight": part["weight"],
            "fraction": round(measured.fraction, 6), "points": round(part["weight"] * measured.fraction, 4),
            "detail": measured.detail, "matches": measured.matches, "facts": measured.facts,
            "version": version.pk, "seeds": sorted({need.seed for need in needs})}


def progress(run: GradingRun) -> dict:
    statuses = list(run.games.values_list("match__status", flat=True))
    done = sum(1 for status in statuses if status == Match.Status.FINISHED)
    total = len(statuses)
    return {"done": done, "total": total, "percent": 100 if not total else round(100 * done / total)}


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """A grading game ended: advance the runs waiting for it once the result has committed."""
    if match.purpose != Match.Purpose.GRADING:
        return
    for run_id in GradingRun.objects.in_progress().filter(games__match=match).values_list("pk", flat=True):
        publish_on_commit("grading.tasks.advance_grading_run", run_id)
