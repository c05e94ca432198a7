"""Grading runs: the games a rubric needs, played as ordinary matches, and the grades computed from them.

`start_run` fixes what is graded (the rubric as it is, each submission's version by the deadline rule) and
links the run to the games it needs, reusing every cached game (`GradingGame`: one match per version,
opponent, seed, seat and rules) and queueing only the missing ones. A run is a batch of games
(matches.batches): `advance_run` is its only step, run under a lock on the run row, idempotent: once every
game has settled it writes the grades. It runs when a grading match ends (the match_finished hook
publishes tasks.advance_grading_run once the result commits) and every minute for every run still
waiting (tasks.resume_grading_runs), so a lost message delays a run but never stalls it. Seeds derive
from the assignment's seed, so the same versions always meet the same boards: a run is reproducible, and
a re-run after a rubric change replays nothing it already has.

A game the platform could not run is set aside (matches.services) and never fails the run: the run
finishes for the rest of the class, and each part that needed the game is graded "incomplete: platform
error" (no points yet, `Grade.incomplete`). The staff play the set-aside games again once the cause is
fixed (`replay_set_aside`, for the whole run or one student); as they finish, the incomplete grades of the
run are written again, complete.
"""

import hashlib
import json
import logging

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from games import get_game

from arena.accounts.access import staffs
from arena.core import live
from arena.core.queue import Priority, publish_on_commit
from arena.bots.models import Bot, BotVersion
from arena.matches import batches
from arena.matches import services as match_services
from arena.matches.models import Match

from . import parts
from .models import Assignment, Grade, GradingGame, GradingRun, Submission
from .services import WITHDRAWN, Graded, GradingConflict, GradingError, GradingNotAllowed, graded_version, late_factor

log = logging.getLogger(__name__)


def rules_digest(assignment: Assignment) -> str:
    """What, besides the bots and the seed, decides a game: the game and its options."""
    text = json.dumps([assignment.game, assignment.config or {}], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def start_run(user, assignment: Assignment) -> GradingRun:
    """Grade every submission of `assignment` with its current rubric (instructors and assistants)."""
    if not staffs(user, assignment.course):
        raise GradingNotAllowed("only the course's instructors and teaching assistants can run grading")
    rubric = [{"part": p.pk, "kind": p.kind, "label": p.label, "weight": p.weight, "params": p.params}
              for p in assignment.rubric.all()]
    if not rubric:
        raise GradingConflict("the rubric is empty: add at least one part first")
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
        # A cached game an earlier run saw set aside is played again: a new run is the staff asking anew.
        batches.replay(Match.objects.filter(grading_game__runs=run))
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
            match = batches.queue(assignment.game, bots, purpose=Match.Purpose.GRADING, seed=need.seed,
                                  versions={version.bot_id: version}, config=assignment.config,
                                  variant=assignment.variant)
            return GradingGame.objects.create(match=match, **key)
    except IntegrityError:
        return GradingGame.objects.get(**key)


def advance_run(run_id: int) -> None:
    """Once every game of a running run has settled, write the grades and finish it; in a finished run, write
    again the incomplete grades whose set-aside games have been played since."""
    with transaction.atomic():
        run = GradingRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return
        live.publish(topic(run.assignment_id))  # once this commits: a game settled, perhaps the grades
        if run.status == GradingRun.Status.RUNNING:
            settlement = batches.settle(game.match for game in run.games.select_related("match"))
            if not settlement.settled:
                return
            write_grades(run)
            run.status, run.finished_at = GradingRun.Status.FINISHED, timezone.now()
            run.save(update_fields=["status", "finished_at"])
        elif run.status == GradingRun.Status.FINISHED:
            write_grades(run, run.assignment.submissions.filter(grades__run=run, grades__incomplete=True))
        else:
            return
        incomplete = run.grades.filter(incomplete=True).count()
        note = (f"{incomplete} grade{'s' if incomplete != 1 else ''} {batches.INCOMPLETE}: "
                "play the set-aside games again once the cause is fixed" if incomplete else "")
        if note != run.note:
            run.note = note
            run.save(update_fields=["note"])
            if incomplete:
                log.error("grading run %s: %s", run.pk, note)


def topic(assignment_id: int) -> str:
    """The live topic (arena.core.live) of an assignment's grading runs, published by each `advance_run` (a
    game of the run ended, the grades were written): the assignment page's progress bar follows it."""
    return f"assignment:{assignment_id}"


def replay_set_aside(user, run: GradingRun, submission: Submission | None = None) -> int:
    """The staff play the run's set-aside games again (only `submission`'s: re-grading one student); the
    grades that lacked them are written again as they finish. How many games were queued."""
    if not staffs(user, run.assignment.course):
        raise GradingNotAllowed("only the course's instructors and teaching assistants can play games again")
    games = Match.objects.filter(grading_game__runs=run)
    if submission is not None:
        planned = run.plan.get(str(submission.pk))
        if planned is None or planned["version"] is None:
            raise GradingError(f"{submission.label} has no game in run {run.pk}")
        games = games.filter(grading_game__version_id=planned["version"])
    queued = batches.replay(games)
    if not queued:
        raise GradingConflict("no game of this run is set aside: nothing to play again")
    return queued


def write_grades(run: GradingRun, submissions=None) -> None:
    """One Grade per planned submission (of `submissions`, default all), each part's points with the matches,
    versions and seeds behind them; written again over an earlier one (an incomplete grade completed)."""
    assignment = run.assignment
    digest = rules_digest(assignment)
    submissions = assignment.submissions if submissions is None else submissions
    for submission in submissions.select_related("bot", "team", "student"):
        planned = run.plan.get(str(submission.pk))
        if planned is None:  # submitted after the run started
            continue
        version = BotVersion.objects.filter(pk=planned["version"]).first()
        measured_rows = [_measure(run, part, submission, version, digest) for part in run.rubric] if version else []
        rows = [row for row in measured_rows if row is not None]
        if len(rows) < len(measured_rows):  # a set-aside game played again is not over yet: the grade waits for it
            continue
        complete = [row for row in rows if not row.get("incomplete")]
        measured = round(sum(row["points"] for row in complete), 4)
        # A run planned before plans named the bot graded its submission's bot of that time.
        Grade.objects.update_or_create(run=run, submission=submission, defaults=dict(
            bot_id=planned.get("bot", submission.bot_id), version=version, late_days=planned["late_days"],
            parts=rows, measured=measured,
            total=round(measured * late_factor(assignment, planned["late_days"]), 4), note=planned["note"],
            incomplete=len(complete) < len(rows)))


def _measure(run, part: dict, submission, version, digest: str) -> dict | None:
    """A part's row of a grade; INCOMPLETE (no points) when a game it needs is set aside; None while one
    of them is still to be played."""
    part_type = parts.KINDS[part["kind"]]
    needs = part_type.needs(run.assignment, part["params"])
    played = {}
    for need in needs:
        game = (GradingGame.objects.select_related("match").prefetch_related("match__seats")
                .get(**cache_key(run.assignment, version, need, digest)))
        played[need] = game.match
    settlement = batches.settle(played.values())
    if not settlement.settled:
        return None
    row = {"part": part["part"], "kind": part["kind"], "label": part["label"], "weight": part["weight"],
           "version": version.pk, "seeds": sorted({need.seed for need in needs})}
    if settlement.set_aside:
        return {**row, "fraction": 0.0, "points": 0.0, "detail": batches.INCOMPLETE, "incomplete": True,
                "matches": sorted(match.pk for match in played.values()), "set_aside": list(settlement.set_aside),
                "facts": {}}
    measured = part_type.measure(parts.Context(run.assignment, submission, version, played), part["params"])
    return {**row, "fraction": round(measured.fraction, 6), "points": round(part["weight"] * measured.fraction, 4),
            "detail": measured.detail, "matches": measured.matches, "facts": measured.facts}


def progress(run: GradingRun) -> batches.Progress:
    return batches.progress(list(run.games.values_list("match__status", flat=True)))


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """A grading game ended: advance the runs waiting for it once the result has committed."""
    if match.purpose != Match.Purpose.GRADING:
        return
    for run_id in GradingRun.objects.awaiting().filter(games__match=match).values_list("pk", flat=True):
        publish_on_commit("grading.tasks.advance_grading_run", run_id, priority=Priority.GRADING)
