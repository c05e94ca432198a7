"""What the inbox hears about: finished or cancelled matches (challenges and validations), tournament rounds
and their end (a champion, or a cancel), and, for the staff, matches the platform set aside.

The match receivers run inside the transaction that records the change (matches.signals), so a notification
is written exactly when the result is; the e-mail waits for the commit (services.notify). They read the match,
its seats and the database as the change left them, never what another receiver writes (a validation's
verdict is worked out here as the matches app works it out), so the order receivers run in changes nothing.
"""

from django.contrib.auth import get_user_model
from django.urls import reverse
from games import get_game

from arena.bots.models import BotVersion
from arena.grading.models import Assignment
from arena.matches.models import Match
from arena.matches.validation import verdict_of
from arena.tournaments.models import Tournament

from .models import Notification
from .services import notify, notify_all


def on_match_finished(sender, match: Match, **kwargs) -> None:
    if match.status == Match.Status.SET_ASIDE:
        _set_aside(match)
    _tell_the_student(match)


def on_match_status_changed(sender, match: Match, status: str, **kwargs) -> None:
    """A match cancelled (by the staff) is an ending its student hears of too; the endings with a result are
    told by on_match_finished."""
    if status == Match.Status.CANCELLED:
        _tell_the_student(match)


def _tell_the_student(match: Match) -> None:
    if match.purpose == Match.Purpose.VALIDATION:
        _validation_finished(match)
    elif match.purpose == Match.Purpose.CHALLENGE:
        _challenge_finished(match)


def _challenge_finished(match: Match) -> None:
    seats = list(match.seats.all())  # with their bots and owners (matches.services.with_seats)
    rules = get_game(match.game)
    if rules.cooperative:  # one team, often one bot in every seat: name each bot once
        labels = "team of " + ", ".join(dict.fromkeys(seat.bot.label for seat in seats))
    else:
        labels = " vs ".join(seat.bot.label for seat in seats)
    if match.status == Match.Status.FINISHED and rules.cooperative:
        text = f"Match #{match.pk} finished ({labels}): {team_result(rules, match.winners, seats[0].score)}"
    elif match.status == Match.Status.FINISHED:
        winners = ", ".join(seat.bot.label for seat in seats if seat.placing == 1)
        text = f"Match #{match.pk} finished ({labels}): {'draw between' if len(match.winners) > 1 else 'won by'} {winners}"
    elif match.status == Match.Status.CANCELLED:
        text = f"Match #{match.pk} ({labels}) was cancelled by the staff before it finished"
    else:
        text = f"Match #{match.pk} ({labels}) could not be played: {match.error}"
    owners = {seat.bot.owner_id: seat.bot.owner for seat in seats}
    # The challenger (usually the owner of a seat already loaded), and every other student whose bot was challenged.
    challenger = owners.get(match.created_by_id) or match.created_by
    notify_all([challenger, *owners.values()], Notification.Kind.MATCH, text, reverse("matches:match", args=[match.pk]))


def team_result(rules, won: bool, score: float | None) -> str:
    """A cooperative game's result in words: "the team did not win: it scored 40; perfect is 0"."""
    perfect = "" if rules.perfect_score is None else f"; perfect is {rules.perfect_score:g}"
    return f"the team {'won' if won else 'did not win'}: it scored {score:g}{perfect}"


def _validation_finished(match: Match) -> None:
    version = BotVersion.objects.filter(validation_match=match).select_related("bot__owner").first()
    if version is None:
        return
    bot = version.bot
    if match.status == Match.Status.CANCELLED:
        text = (f"{bot.label} v{version.number}: its validation was cancelled by the staff; the version stays "
                "pending until it is played again")
        notify(bot.owner, Notification.Kind.VALIDATION, text, reverse("bots:bot", args=[bot.pk]))
        return
    decided = verdict_of(match, version)
    if decided.status == BotVersion.Status.ACCEPTED:
        text = f"{bot.label} v{version.number} passed validation and is now active"
    elif match.status == Match.Status.SET_ASIDE:
        text = f"{bot.label} v{version.number} could not be validated yet: {decided.verdict}"
    else:
        text = f"{bot.label} v{version.number} was rejected by validation: {decided.verdict or match.error}"
    notify(bot.owner, Notification.Kind.VALIDATION, text, reverse("bots:bot", args=[bot.pk]))


def on_series_saved(sender, instance, created: bool, **kwargs) -> None:
    """A new series is a new round for its entrants' owners (a bye says so)."""
    if not created:
        return
    tournament = instance.tournament
    entrants = {e.seed: e for e in tournament.entrants.filter(seed__in=instance.entrants).select_related("bot__owner")}
    table = " vs ".join(entrants[seed].bot.label for seed in instance.entrants if seed in entrants)
    url = reverse("tournaments:detail", args=[tournament.pk])
    for seed in instance.entrants:
        entrant = entrants.get(seed)
        if entrant is None:
            continue
        what = "has a bye" if instance.bye else f"plays {table}"
        notify(entrant.bot.owner, Notification.Kind.TOURNAMENT,
               f"{tournament.name}, round {instance.round}: {entrant.bot.label} {what}", url)


def on_tournament_status_changed(sender, tournament: Tournament, status: str, **kwargs) -> None:
    """The tournament finished (who won) or was cancelled: tell every entrant's owner."""
    if status == Tournament.Status.FINISHED:
        champion = tournament.champion.bot.label if tournament.champion else "no champion"
        text = f"{tournament.name} is over: {champion} won"
    elif status == Tournament.Status.CANCELLED:
        text = f"{tournament.name} was cancelled by the course's instructors: it has no champion"
    else:
        return
    url = reverse("tournaments:detail", args=[tournament.pk])
    owners = [entrant.bot.owner for entrant in tournament.entrants.select_related("bot__owner")]
    notify_all(owners, Notification.Kind.TOURNAMENT, text, url)


def _set_aside(match: Match) -> None:
    """Tell the staff who can play the match again: the instructors and assistants of the course whose
    tournament or grading run it belongs to, else (a challenge, a validation) the operators."""
    tournament = Tournament.objects.filter(series__games__match=match).select_related("course").first()
    assignments = list(Assignment.objects.filter(runs__games__match=match).select_related("course").distinct())
    if tournament is not None:
        courses, where = [tournament.course], (tournament.name, reverse("tournaments:detail", args=[tournament.pk]))
    elif assignments:
        courses = [assignment.course for assignment in assignments]
        where = (f"grading of {assignments[0].title}", reverse("grading:assignment", args=[assignments[0].pk]))
    else:
        courses, where = [], (f"{match.purpose} match", reverse("admin:matches_match_change", args=[match.pk]))
    staff = [user for course in courses
             for user in [*course.instructors.all(), *course.teaching_assistants.all()]]
    if not staff:
        staff = list(get_user_model().objects.filter(is_superuser=True, is_active=True))
    name, url = where
    notify_all(staff, Notification.Kind.SET_ASIDE,
               f"Match #{match.pk} ({name}) was set aside: {match.error}. Play it again once the cause is fixed.", url)
