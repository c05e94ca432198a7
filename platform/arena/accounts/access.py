"""Who may see or do what: the rules every page and endpoint uses.

Operators are superusers. In a course, an **instructor** changes everything of it (rubrics, deadlines,
rosters, variants); a **teaching assistant** sees everything of it and may run grading and annotate, but
changes none of that; a **student** sees the course's material and only their own (and their team's) code
and logs. Private material (bot code, versions, stderr logs) follows `can_see_private`, which is scoped by
submission, never by membership; a course's own material
follows `teaches` (change it), `staffs` (see everyone's work in it) and `attends` (see and use it).
"""

from django.db import connection
from django.db.models import Q
from django.http import Http404

from arena.core import errors

from .models import Course, Team

INSTRUCTOR, ASSISTANT, STUDENT = "instructor", "assistant", "student"


class NotAllowed(errors.NotAllowed):
    """A verb that the user's role in the course does not allow (403); the message says whose it is. The
    apps' own errors derive from it for their refusals."""
# Each role may do what the roles after it may.
ROLES = (INSTRUCTOR, ASSISTANT, STUDENT)


def role_in(user, course) -> str | None:
    """`user`'s role in `course` (operators act as instructors), or None for an outsider."""
    if not user.is_authenticated:
        return None
    if user.is_superuser or course.instructors.filter(pk=user.pk).exists():
        return INSTRUCTOR
    if course.teaching_assistants.filter(pk=user.pk).exists():
        return ASSISTANT
    if course.students.filter(pk=user.pk).exists():
        return STUDENT
    return None


def has_role(user, course, needed: str) -> bool:
    """True if `user`'s role in `course` is `needed` or above it."""
    role = role_in(user, course)
    return role is not None and ROLES.index(role) <= ROLES.index(needed)


def can_see_private(user, bot) -> bool:
    """True if `user` may read the code, versions and logs of `bot`: bots_with_private_access for one bot."""
    return bool(bots_with_private_access(user, {bot.pk: bot.owner_id}))


def _private_bot_ids(user):
    """The bots, not owned by `user`, whose private material `user` may see: those submitted to an assignment
    of a course `user` staffs or entered in one of its tournaments, and those submitted for a team of `user`.

    Membership alone opens nothing: whoever adds a student to their course (a roster, a join link, a team,
    the admin) sees that student's bots only once the student has submitted them there (a submission is
    always the owner's own act, grading.services.submit) or accepted their entry in the course's tournaments
    (entry_consent)."""
    from django.apps import apps  # accounts is the base app: grading and tournaments build on it

    staffed = Course.objects.filter(Q(instructors=user) | Q(teaching_assistants=user)).values("pk")
    submitted = apps.get_model("grading", "Submission").objects.filter(
        Q(assignment__course__in=staffed) | Q(team__members=user)).values("bot")
    entered = apps.get_model("tournaments", "Entrant").objects.filter(
        tournament__course__in=staffed, consent=ACCEPTED_ENTRY).values("bot")
    return submitted, entered


def with_private_access(queryset, user, bot_field: str):
    """The rows of `queryset` whose bot (at `bot_field`; "" for a queryset of bots) has private material `user`
    may see, by the rule of bots_with_private_access."""
    if not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    submitted, entered = _private_bot_ids(user)
    owner, bot = (f"{bot_field}__owner", bot_field) if bot_field else ("owner", "pk")
    return queryset.filter(Q(**{owner: user}) | Q(**{f"{bot}__in": submitted}) | Q(**{f"{bot}__in": entered}))


def bots_with_private_access(user, owners_by_bot: dict) -> set[int]:
    """The ids among `owners_by_bot` ({bot id: its owner's id, None for a built-in}) whose code, versions and
    logs `user` may read, in one query however many bots.

    The owner may, operators (superusers) may; the staff (instructors and assistants) of a course may for the
    bots submitted to its assignments or entered in its tournaments with the owner's consent; team mates may
    for the bots submitted for their team. Nobody else, and never by membership of a course or team alone.
    Built-in bots have no private material.

    Every match page and match list asks this, so it is one plain SQL statement with one text for any list
    (psycopg parses it once): the ORM's version of such joins under OR cost milliseconds of CPU to compile.
    tests/platform/test_grading_people.py checks it against with_private_access."""
    owned = {bot for bot, owner in owners_by_bot.items() if bot is not None and owner is not None}
    if not user.is_authenticated or not owned:
        return set()
    if user.is_superuser:
        return owned
    visible = {bot for bot in owned if owners_by_bot[bot] == user.pk}
    others = sorted(owned - visible)
    if others:
        submissions, assignments = _table("grading.Submission"), _table("grading.Assignment")
        entrants, tournaments = _table("tournaments.Entrant"), _table("tournaments.Tournament")
        members, team, member = _through(Team, "members")
        instructors, taught, instructor = _through(Course, "instructors")
        assistants, assisted, assistant = _through(Course, "teaching_assistants")
        if connection.vendor == "postgresql":
            listed, ids = "= ANY(%s::bigint[])", [others]
        else:
            listed, ids = f"IN ({', '.join(['%s'] * len(others))})", others
        staffed = (f"(SELECT {taught} FROM {instructors} WHERE {instructor} = %s"
                   f" UNION SELECT {assisted} FROM {assistants} WHERE {assistant} = %s)")
        sql = (f"SELECT s.bot_id FROM {submissions} s JOIN {assignments} a ON a.id = s.assignment_id"
               f" WHERE s.bot_id {listed} AND (a.course_id IN {staffed}"
               f" OR s.team_id IN (SELECT {team} FROM {members} WHERE {member} = %s))"
               f" UNION SELECT e.bot_id FROM {entrants} e JOIN {tournaments} t ON t.id = e.tournament_id"
               f" WHERE e.bot_id {listed} AND e.consent = %s AND t.course_id IN {staffed}")
        with connection.cursor() as cursor:
            cursor.execute(sql, [*ids, user.pk, user.pk, user.pk, *ids, ACCEPTED_ENTRY, user.pk, user.pk])
            visible |= {row[0] for row in cursor.fetchall()}
    return visible


# --- Entering a bot in a tournament: the owner's consent ------------------------------------------------------

ACCEPTED_ENTRY = "accepted"  # tournaments.Entrant.Consent.ACCEPTED (accounts is the base app)


def entry_consent(user, bot) -> str:
    """The consent an entry of `bot` made by `user` starts with: accepted when it is their own bot or a
    built-in, else only requested. Entering a bot opens its code, versions and logs to the tournament's
    course staff (bots_with_private_access) and plays it under its owner's name, so nobody does that to
    someone else's bot without the owner accepting (tournaments.services.answer_entry); an operator neither."""
    return ACCEPTED_ENTRY if bot.owner_id is None or bot.owner_id == user.pk else "requested"


def _table(label: str) -> str:
    from django.apps import apps  # accounts is the base app: grading and tournaments build on it

    return connection.ops.quote_name(apps.get_model(label)._meta.db_table)


def _through(model, name: str) -> tuple[str, str, str]:
    """(table, column of `model`'s side, column of the user's side) of `model`'s many-to-many field `name`."""
    field = model._meta.get_field(name)
    through = field.remote_field.through._meta
    return (connection.ops.quote_name(through.db_table), through.get_field(field.m2m_field_name()).column,
            through.get_field(field.m2m_reverse_field_name()).column)


def courses_seen_by(user):
    """The courses whose material `user` sees: the ones they teach, assist in or take; all for operators."""
    return Course.objects.all() if user.is_superuser else Course.objects.for_user(user)


def attends(user, course) -> bool:
    """True if `user` may see and use `course`'s material: its instructors, assistants and students."""
    return has_role(user, course, STUDENT)


def staffs(user, course) -> bool:
    """True if `user` sees every student's work in `course` and may grade it: instructors and assistants."""
    return has_role(user, course, ASSISTANT)


def attended_course(user, pk) -> Course:
    """The course `pk` for a page of its material: Http404 unless `user` attends it, so that to anyone else
    it is exactly like a course that does not exist."""
    course = Course.objects.filter(pk=pk).first()
    if course is None or not attends(user, course):
        raise Http404("no such course")
    return course


def teaches(user, course) -> bool:
    """True if `user` may change `course`'s material: its instructors, and operators."""
    return has_role(user, course, INSTRUCTOR)


# --- Which matches show: grading games and held-back tournament games are not everyone's ----------------------

def _staffed(user):
    """The courses `user` is an instructor or assistant of (as a subquery)."""
    if not user.is_authenticated:
        return Course.objects.none().values("pk")
    return Course.objects.filter(Q(instructors=user) | Q(teaching_assistants=user)).values("pk")


def visible_matches(queryset, user):
    """The matches of `queryset` that `user` may find in a list: all but grading games (their course's staff
    only; a student reaches theirs from their grade once published, see match_visible) and the games of a
    "results at the end" tournament still being played (its course's staff only)."""
    if user.is_authenticated and user.is_superuser:
        return queryset
    from django.apps import apps

    grading_game, tournament = apps.get_model("grading", "GradingGame"), apps.get_model("tournaments", "Tournament")
    staffed = _staffed(user)
    graded_elsewhere = Q(purpose="grading") & ~Q(
        pk__in=grading_game.objects.filter(runs__assignment__course__in=staffed).values("match"))
    held_back = Q(purpose="tournament", series_game__series__tournament__in=tournament.objects.filter(
        visibility=tournament.Visibility.AT_END).exclude(status__in=[tournament.Status.FINISHED,
                                                                      tournament.Status.CANCELLED]).exclude(
        course__in=staffed).values("pk"))
    return queryset.exclude(graded_elsewhere | held_back)


def match_visible(user, match) -> bool:
    """Whether `user` may open `match` (its page, its replay, the API's detail): visible_matches, and besides
    a grading game for whoever may see the graded bot's code once the assignment's results are published."""
    if visible_matches(type(match).objects.filter(pk=match.pk), user).exists():
        return True
    if match.purpose != "grading" or not user.is_authenticated:
        return False
    from django.apps import apps

    run = apps.get_model("grading", "GradingRun").objects.filter(games__match=match).select_related(
        "assignment").first()
    if run is None or not run.assignment.results_published:
        return False
    seats = match.seats.values_list("bot_id", "bot__owner_id")
    return bool(bots_with_private_access(user, dict(seats)))


# --- Tables: people playing in the browser --------------------------------------------------------------------

def seatable_bots(user, game: str):
    """The bots `user` may seat at a table of `game` they open: the built-ins, their own active bots, and the
    active bots of their classmates (the owners who attend a course `user` attends), unrated. Seating a bot
    shows nobody its code: it plays in the sandbox as in any match, under its owner's name."""
    from django.apps import apps  # accounts is the base app: bots build on it

    bots = apps.get_model("bots", "Bot").objects.for_game(game).active()
    if not user.is_authenticated:
        return bots.filter(owner__isnull=True)
    courses = courses_seen_by(user).values("pk")
    classmates = (Q(owner__courses__in=courses) | Q(owner__taught_courses__in=courses)
                  | Q(owner__assisted_courses__in=courses))
    return bots.filter(Q(owner__isnull=True) | Q(owner=user) | classmates).distinct()


def may_seat_bot(user, bot) -> bool:
    """Whether `user` may seat `bot` at a table they open (seatable_bots)."""
    return seatable_bots(user, bot.game).filter(pk=bot.pk).exists()


def may_watch_table(user, table) -> bool:
    """Whether `user` may open `table`'s page and see its public view (never a seat's own observation, which
    is its person's only): the people seated, whoever opened it, operators, and the staff and students of its
    course (a class watches its classmates play; a table without a course is its people's only)."""
    if not user.is_authenticated:
        return False
    if user.is_superuser or table.opened_by_id == user.pk or table.seats.filter(user=user).exists():
        return True
    return table.course_id is not None and (staffs(user, table.course) or attends(user, table.course))


# --- Public matches (the site's front door) ---------------------------------------------------------------

def public_matches(queryset):
    """The matches of `queryset` anyone may watch, signed in or not, with their replays: finished challenges
    and ladder matches on the standard rules, while the operator leaves ARENA_PUBLIC_MATCHES on. Never a
    course's, grading or tournament game (their results may be held back); code and logs stay private
    whatever this says (`can_see_private`)."""
    from django.conf import settings

    if not settings.ARENA_PUBLIC_MATCHES:
        return queryset.none()
    return queryset.filter(purpose__in=["challenge", "ladder"], variant__isnull=True, status="finished")


# --- Pairing rooms: a class plays a game in rounds ---------------------------------------------------------

def runs_rooms(user, course) -> bool:
    """Whether `user` may open `course`'s pairing rooms, start their rounds, close them and download their
    results: its staff (instructors and assistants, who run a class's exercise alike) and operators."""
    return staffs(user, course)


def plays_in_rooms(user, course) -> bool:
    """Whether `user` may join `course`'s pairing rooms and be paired there: its students only (the staff
    run the room; an operator is no student)."""
    return role_in(user, course) == STUDENT
