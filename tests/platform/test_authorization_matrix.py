"""Every URL of the site tried by every kind of user, each answer declared once in ROUTES.

The routes come from the URL configuration itself (DRF routers with their methods included), so a new page or
endpoint fails `test_route_answers_every_role_as_declared` until its row is added to ROUTES. The users are
ROLES: adding a kind of user (a teaching assistant, say) is one line there; until a route names the new role,
it is expected to answer it as it answers the role given as `like`.

One world is built per module (inside a transaction that is rolled back at the end) and every request runs in
a savepoint rolled back after it, so an allowed POST (a cancelled tournament, a deleted variant) never changes
what the next role sees.
"""

import json
import re
from datetime import timedelta
from dataclasses import dataclass, field
from typing import Callable

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from games.sortinggame.deck import STANDARD_DECK

from arena.accounts import people as people_services
from arena.accounts import tokens as api_tokens
from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.grading import runs as grading_runs
from arena.grading import services as grading_services
from grading_helpers import open_assignment, pass_deadline, play_run
from arena.matches import services as match_services
from platform_helpers import EXAMPLE_BOT, play_now
from tournament_helpers import LOOKAHEAD_BOT, accepted_bot, entered
from arena.tournaments import services as tournament_services
from arena.tournaments.models import Tournament
from arena.rooms import services as room_services
from arena.tables import services as table_services
from arena.tables.models import Table
from arena.tables.services import SeatChoice
from arena.variants.services import create_variant

pytestmark = pytest.mark.django_db
ADA_STDERR = "ada's private stderr"


# --- Who asks -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Role:
    name: str
    user: Callable | None  # world -> the user signed in (None: anonymous)
    like: str | None = None  # routes that do not name this role expect the answer this role gets


ROLES = [
    Role("anonymous", None),
    Role("owner", lambda w: w.users["ada"]),  # owns the bot, version and match in question; takes the course
    Role("classmate", lambda w: w.users["bob"]),  # another student of the same course
    Role("mate", lambda w: w.users["mia"], like="classmate"),  # a student of the course in ada's team
    Role("ta", lambda w: w.users["ta"], like="classmate"),  # a teaching assistant of the course
    Role("outsider", lambda w: w.users["olga"]),  # a student of another course
    Role("instructor", lambda w: w.users["teacher"]),  # teaches the course
    Role("other_instructor", lambda w: w.users["other_teacher"]),  # teaches the other course only
    Role("operator", lambda w: w.users["root"]),  # a superuser
    # A new kind of user is one more line here, with its user made in World; the routes where its answer
    # differs from its `like` role's name it in their expect(...).
]
ROLE_NAMES = {role.name for role in ROLES}


# --- What they get --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Redirect:
    """A 302 whose Location starts with `to`."""

    to: str

    def __repr__(self):
        return f"302 to {self.to}"


LOGIN = Redirect("/accounts/login/")
ADMIN_LOGIN = Redirect("/admin/login/")
ANY_REDIRECT = Redirect("")
UNAUTHENTICATED = 401  # the API: Token authentication first, so `WWW-Authenticate: Token`


@dataclass(frozen=True)
class Expect:
    """The answer to every role: `default`, except the roles named (and the roles `like` them)."""

    default: object
    roles: dict = field(default_factory=dict)

    def for_role(self, role: Role):
        name = role.name
        while name not in self.roles:
            name = next(r.like for r in ROLES if r.name == name)
            if name is None:
                return self.default
        return self.roles[name]


def expect(default, **roles) -> Expect:
    unknown = set(roles) - ROLE_NAMES
    assert not unknown, f"no such role {unknown}"
    return Expect(default, roles)


def answered(expected, response) -> bool:
    if isinstance(expected, Redirect):
        return response.status_code == 302 and response["Location"].startswith(expected.to)
    if isinstance(expected, int):
        return response.status_code == expected
    return response.status_code in expected


# Recurring answers.
PUBLIC = expect(200)
SIGNED_IN_PAGE = expect(200, anonymous=LOGIN)
SIGNED_IN_API = expect(200, anonymous=UNAUTHENTICATED)
POST_ONLY_PAGE = expect(405, anonymous=LOGIN)  # @login_required outside @require_POST
# Private material of ada's bot: ada, her team mate, her course's instructor and assistant, and operators;
# nobody else learns it exists.
PRIVATE_PAGE = expect(404, anonymous=LOGIN, owner=200, mate=200, ta=200, instructor=200, operator=200)
PRIVATE_API = expect(404, anonymous=UNAUTHENTICATED, owner=200, mate=200, ta=200, instructor=200, operator=200)
# The course's material: its members and operators; it does not exist for anyone else.
COURSE_PAGE = expect(200, anonymous=LOGIN, outsider=404, other_instructor=404)
COURSE_API = expect(200, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404)
# Changing the course's material: its instructor and operators; its students are refused; others see nothing.
STEER_API = expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=200, operator=200)
STEER_PAGE = expect(403, anonymous=LOGIN, outsider=404, other_instructor=404, instructor=ANY_REDIRECT,
                    operator=ANY_REDIRECT)
DRAFT_STEER_PAGE = expect(404, anonymous=LOGIN, ta=403, instructor=ANY_REDIRECT, operator=ANY_REDIRECT)
# Everyone's work in the course (all submissions, grades, runs): its staff, instructors and assistants; its
# students are refused; it does not exist for anyone else.
STAFF_PAGE = expect(403, anonymous=LOGIN, outsider=404, other_instructor=404, ta=200, instructor=200, operator=200)
STAFF_API = expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, ta=200, instructor=200,
                   operator=200)
# What the staff may do (run grading, annotate a grade): the assistant too, unlike STEER_PAGE.
STAFF_ACTION_PAGE = expect(403, anonymous=LOGIN, outsider=404, other_instructor=404, ta=ANY_REDIRECT,
                           instructor=ANY_REDIRECT, operator=ANY_REDIRECT)
# Members of the course who send an empty form: told what is missing (a redirect with a message).
MEMBER_FORM_PAGE = expect(ANY_REDIRECT, anonymous=LOGIN, outsider=404, other_instructor=404)
# An instructors-only people endpoint sent nothing: the instructor is told what is missing.
PEOPLE_API = expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=400,
                    operator=400)
# A draft tournament is its staff's alone (its assistants see it, but are refused changes to it).
DRAFT_PAGE = expect(404, anonymous=LOGIN, ta=200, instructor=200, operator=200)
DRAFT_API = expect(404, anonymous=UNAUTHENTICATED, ta=200, instructor=200, operator=200)
# An entry of ada's bot in a tournament: she alone answers it; nobody else learns it exists.
OWN_ENTRY_API = expect(404, anonymous=UNAUTHENTICATED, owner=200)
# A table of the course where ada and bob sit: they, the course's other students (mia) and its staff see it;
# nobody outside the course knows of it.
TABLE_PAGE = expect(404, anonymous=LOGIN, owner=200, classmate=200, mate=200, ta=200, instructor=200, operator=200)
TABLE_API = expect(404, anonymous=UNAUTHENTICATED, owner=200, classmate=200, mate=200, ta=200, instructor=200,
                   operator=200)


# Playing in a pairing room (joining it): its students; its staff run it and are refused.
ROOM_PLAYER_PAGE = expect(ANY_REDIRECT, anonymous=LOGIN, outsider=404, other_instructor=404, ta=403, instructor=403,
                          operator=403)


# --- The routes -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One way to call a route: which world objects fill its URL, what is sent, what each role gets."""

    methods: dict  # "GET" -> Expect
    objects: dict = field(default_factory=dict)  # e.g. {"tournament": "draft", "verb": "start"}
    data: Callable | None = None  # world -> (payload, content type or None for multipart)
    path: str | None = None  # for a catch-all pattern: a path that reaches it


def code_file(world):
    return {"file": SimpleUploadedFile("bot.py", EXAMPLE_BOT)}, None


def deck_file(world):
    deck = json.loads(STANDARD_DECK.read_text(encoding="utf-8"))
    return {"game": "sortinggame", "name": "matrix deck",
            "file": SimpleUploadedFile("deck.json", json.dumps(deck).encode())}, None


def as_json(build):
    return lambda world: (build(world), "application/json")


CHALLENGE = as_json(lambda w: {"bot": w.bots["ada"].pk, "opponents": [w.bots["bob"].pk]})
NEW_TOURNAMENT = as_json(lambda w: {"course": w.course.pk, "name": "New cup", "game": "endgame",
                                    "format": "round-robin", "seeding": "given"})
ENTER_BOB = as_json(lambda w: {"bot": w.bots["bob"].pk})
NEW_ASSIGNMENT = as_json(lambda w: {"course": w.course.pk, "title": "Second", "game": "endgame",
                                    "opens_at": "2030-01-01T00:00:00Z", "deadline": "2030-02-01T00:00:00Z"})
NEW_PART = as_json(lambda w: {"kind": "reliability", "weight": 10, "params": {"opponent": "greedy", "games": 2}})
NOTE = as_json(lambda w: {"points": 0, "comment": "checked by hand"})
BONUS = as_json(lambda w: {"points": 5, "comment": "a clever endgame"})
NEW_TABLE = as_json(lambda w: {"game": "endgame", "seats": [{"kind": "me"}, {"kind": "builtin", "builtin": "greedy"}]})
TABLE_MOVE = as_json(lambda w: {"turn": 0, "action": "left"})
NEW_ROOM = as_json(lambda w: {"course": w.course.pk, "game": "endgame"})


def bob_entry_form(world):
    return {"bot": world.bots["bob"].pk}, None


def page(answer) -> Case:
    """A plain page: GET and POST answered alike (the view does not look at the method)."""
    return Case({"GET": answer, "POST": answer})


def post_only(answer) -> Case:
    """A form's target: 405 to a GET (after the sign-in check), `answer` to a POST."""
    return Case({"GET": POST_ONLY_PAGE, "POST": answer})


def running(**methods) -> tuple[Case, Case]:
    """A tournament route tried on a running tournament (its students see it) and on a draft (they do not)."""
    draft = {method: DRAFT_API if answer is COURSE_API else DRAFT_PAGE if answer is COURSE_PAGE else answer
             for method, answer in methods.items()}
    return Case(methods, {"tournament": "running"}), Case(draft, {"tournament": "draft"})


ROUTES: dict[str, Case | tuple[Case, ...]] = {
    # Site pages (web).
    "core:home": page(PUBLIC),
    "accounts:register": page(PUBLIC),  # POST without a form: the form again, with errors
    "bots:new_bot": Case({"GET": POST_ONLY_PAGE, "POST": expect(400, anonymous=LOGIN)}),  # no name: the form again
    "bots:versions_live": page(PRIVATE_PAGE),  # its live stream: one final snapshot, no version validating
    # bob has one bot of the game: on to its challenge form; the others pick among theirs (none here).
    "matches:challenge_opponent": page(expect(200, anonymous=LOGIN, classmate=ANY_REDIRECT, mate=200, ta=200)),
    "bots:bot": page(SIGNED_IN_PAGE),
    "bots:upload": Case({"GET": POST_ONLY_PAGE, "POST": expect(403, anonymous=LOGIN, owner=ANY_REDIRECT)},
                       data=code_file),
    "matches:challenge": Case({"GET": POST_ONLY_PAGE, "POST": expect(403, anonymous=LOGIN, owner=ANY_REDIRECT)},
                          data=lambda w: ({"opponents": [w.bots["bob"].pk]}, None)),
    "bots:version_code": page(PRIVATE_PAGE),
    "accounts:course": page(COURSE_PAGE),
    "variants:new_variant": Case({"GET": POST_ONLY_PAGE, "POST": expect(
        403, anonymous=LOGIN, outsider=404, other_instructor=404, instructor=ANY_REDIRECT, operator=ANY_REDIRECT)},
        data=deck_file),
    "variants:delete_variant": Case({"GET": POST_ONLY_PAGE, "POST": expect(
        403, anonymous=LOGIN, outsider=404, other_instructor=404, instructor=ANY_REDIRECT, operator=ANY_REDIRECT)}),
    # The world's match is a finished ladder challenge: public (accounts.access.public_matches); the other
    # kinds stay behind the sign-in (test_front_door).
    "matches:match": page(PUBLIC),
    "matches:replay": page(PUBLIC),
    "matches:match_live": page(PUBLIC),
    "matches:stream": page(PUBLIC),
    "matches:replay_data": page(PUBLIC),
    "matches:replay_file": page(PUBLIC),
    # Streamed move analysis is Sprouts' only: the world's match (End Game) has none to stream.
    "matches:replay_analysis": page(expect(404)),
    # The inbox: everyone their own.
    "notifications:inbox": page(SIGNED_IN_PAGE),
    "notifications:email": Case({"GET": POST_ONLY_PAGE, "POST": expect(ANY_REDIRECT, anonymous=LOGIN)}),
    # The mail sent without a mail server holds other people's links: operators only.
    "notifications:outbox": page(expect(403, anonymous=LOGIN, operator=200)),
    # Making a course: users an operator allowed to (operators themselves here); an empty form is shown again.
    "accounts:new_course": Case({"GET": expect(403, anonymous=LOGIN, operator=200),
                                 "POST": expect(403, anonymous=LOGIN, operator=400)}),
    "notifications:mark_read": Case({"GET": POST_ONLY_PAGE, "POST": expect(ANY_REDIRECT, anonymous=LOGIN)}),
    # Grading pages: people.
    # The invitation link: anyone sees which course it is (signed out, with the way to sign in and come back);
    # a signed-in user joins by POST (the course then opens); its staff are refused (the page, with the reason).
    "grading:join": Case({"GET": PUBLIC, "POST": expect(ANY_REDIRECT, anonymous=LOGIN, ta=200, instructor=200,
                                                          operator=200)}),
    # One's own account: the profile (an empty form is shown again, with errors), the confirmation of an
    # address and a roster invitation (a link that is not valid: sent on with the reason).
    "accounts:profile": Case({"GET": SIGNED_IN_PAGE, "POST": expect(400, anonymous=LOGIN)}),
    "accounts:resend_confirmation": post_only(expect(ANY_REDIRECT, anonymous=LOGIN)),
    "accounts:tokens": Case({"GET": SIGNED_IN_PAGE, "POST": expect(400, anonymous=LOGIN)}),  # no name: 400
    "accounts:revoke_token": post_only(expect(404, anonymous=LOGIN, owner=ANY_REDIRECT)),
    "accounts:confirm_email": page(expect(ANY_REDIRECT)),
    "accounts:invitation": page(expect(ANY_REDIRECT)),
    "grading:people": page(COURSE_PAGE),
    "grading:upload_roster": post_only(STEER_PAGE),
    "grading:resend_invitation": post_only(STEER_PAGE),  # the world has no invitation: refused on the page
    "grading:add_assistant": post_only(STEER_PAGE),
    "grading:add_instructor": post_only(STEER_PAGE),
    "grading:create_team": post_only(STEER_PAGE),
    "grading:reset_invite": post_only(STEER_PAGE),
    "grading:set_time_zone": post_only(STEER_PAGE),
    "grading:ask_student_ids": post_only(STEER_PAGE),
    # Grading pages: assignments (ada's graded submission in the drill-down routes).
    "grading:assignments": page(COURSE_PAGE),  # an empty form: shown with errors
    "grading:assignment": page(COURSE_PAGE),
    "grading:edit": post_only(STEER_PAGE),
    "grading:add_part": post_only(STEER_PAGE),
    "grading:remove_part": post_only(STEER_PAGE),
    "grading:submit": post_only(MEMBER_FORM_PAGE),
    "grading:withdraw": post_only(MEMBER_FORM_PAGE),
    "grading:run_progress": page(STAFF_PAGE),
    "grading:start_run": post_only(STAFF_ACTION_PAGE),
    "grading:replay_set_aside": post_only(STAFF_ACTION_PAGE),  # nothing set aside: a message says so
    # ada's team's grade is theirs alone among the students.
    "grading:grade": page(expect(403, anonymous=LOGIN, outsider=404, other_instructor=404, owner=200, mate=200, ta=200,
                                 instructor=200, operator=200)),
    "grading:adjust": post_only(STAFF_ACTION_PAGE),
    "grading:export": page(STAFF_PAGE),
    "ratings:ladder": page(PUBLIC),
    "variants:game_guide": page(PUBLIC),
    "variants:game_example": page(PUBLIC),
    "variants:doc": page(PUBLIC),  # the bot protocol (the operator guide is for staff: test_site_links)
    # The world's assignment has no starter code: 404 for all (test_game_guides downloads one that has).
    "grading:assignment_starter": page(expect(404, anonymous=LOGIN)),
    # Tournament pages.
    "tournaments:course": Case({"GET": COURSE_PAGE, "POST": expect(  # an empty form is shown again, with errors
        403, anonymous=LOGIN, outsider=404, other_instructor=404, instructor=400, operator=400)}),
    "tournaments:detail": running(GET=COURSE_PAGE, POST=COURSE_PAGE),
    "tournaments:live": running(GET=COURSE_PAGE, POST=COURSE_PAGE),
    "tournaments:add_entrant": (
        Case({"GET": POST_ONLY_PAGE, "POST": DRAFT_STEER_PAGE}, {"tournament": "draft"}, data=bob_entry_form),
        Case({"POST": STEER_PAGE}, {"tournament": "running"}, data=bob_entry_form),  # entrants frozen: a message
    ),
    "tournaments:add_course_bots": (
        Case({"GET": POST_ONLY_PAGE, "POST": DRAFT_STEER_PAGE}, {"tournament": "draft"}),
        Case({"POST": STEER_PAGE}, {"tournament": "running"}),  # entrants frozen: a message
    ),
    "tournaments:remove_entrant": (
        Case({"GET": POST_ONLY_PAGE, "POST": DRAFT_STEER_PAGE}, {"tournament": "draft"}),
        Case({"POST": STEER_PAGE}, {"tournament": "running"}),
    ),
    "tournaments:steer": (
        Case({"GET": POST_ONLY_PAGE, "POST": DRAFT_STEER_PAGE}, {"tournament": "draft", "verb": "start"}),
        Case({"POST": STEER_PAGE}, {"tournament": "running", "verb": "pause"}),
        Case({"POST": STEER_PAGE}, {"tournament": "paused", "verb": "resume"}),
        Case({"POST": STEER_PAGE}, {"tournament": "running", "verb": "cancel"}),
        Case({"POST": STEER_PAGE}, {"tournament": "running", "verb": "replay"}),  # nothing set aside: a message
        Case({"POST": DRAFT_STEER_PAGE}, {"tournament": "draft", "verb": "discard"}),
    ),
    # Django's sign-in pages.
    "login": page(PUBLIC),
    "logout": Case({"GET": expect(405), "POST": expect(ANY_REDIRECT)}),
    "password_change": page(SIGNED_IN_PAGE),
    "password_change_done": Case({"GET": SIGNED_IN_PAGE, "POST": expect(405, anonymous=LOGIN)}),
    "password_reset": page(PUBLIC),
    "password_reset_done": Case({"GET": PUBLIC, "POST": expect(405)}),
    "password_reset_confirm": page(PUBLIC),  # a bad link: the page says so
    "password_reset_complete": Case({"GET": PUBLIC, "POST": expect(405)}),
    # The REST API.
    "api-root": Case({"GET": SIGNED_IN_API}),
    "games": Case({"GET": SIGNED_IN_API}),
    "ladder": Case({"GET": SIGNED_IN_API}),
    "register": Case({"POST": expect(400)}),
    "token": Case({"POST": expect(400)}),
    # One's own tokens: listed, issued (a name is needed: 400 without), revoked; ada's one token is hers alone.
    "tokens": Case({"GET": SIGNED_IN_API, "POST": expect(400, anonymous=UNAUTHENTICATED),
                    "DELETE": expect(204, anonymous=UNAUTHENTICATED)}),
    "token-detail": Case({"DELETE": expect(404, anonymous=UNAUTHENTICATED, owner=204)}),
    "schema": Case({"GET": PUBLIC}),
    "docs": Case({"GET": PUBLIC}),
    "api/": Case({"GET": expect(404), "POST": expect(404)}, path="/api/no-such-endpoint/"),
    "course-list": Case({"GET": SIGNED_IN_API}),
    "course-detail": Case({"GET": COURSE_API}),
    "course-variants": Case({"GET": COURSE_API, "POST": expect(
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=201, operator=201)},
        data=deck_file),
    "bot-list": Case({"GET": SIGNED_IN_API, "POST": expect(400, anonymous=UNAUTHENTICATED)}),  # no name: 400
    "bot-detail": Case({"GET": SIGNED_IN_API}),
    "bot-ratings": Case({"GET": SIGNED_IN_API}),
    "bot-versions": Case({"GET": expect(403, anonymous=UNAUTHENTICATED, owner=200, mate=200, ta=200, instructor=200,
                                        operator=200),
                          "POST": expect(403, anonymous=UNAUTHENTICATED, owner=201)}, data=code_file),
    "version-list": Case({"GET": SIGNED_IN_API}),
    "version-detail": Case({"GET": PRIVATE_API}),
    "version-code": Case({"GET": PRIVATE_API}),
    "match-list": Case({"GET": SIGNED_IN_API, "POST": expect(403, anonymous=UNAUTHENTICATED, owner=201)},
                       data=CHALLENGE),
    "match-detail": Case({"GET": SIGNED_IN_API}),
    "match-replay": Case({"GET": SIGNED_IN_API}),
    "variant-list": Case({"GET": SIGNED_IN_API}),
    "variant-detail": Case({"GET": COURSE_API, "DELETE": expect(
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=204, operator=204)}),
    "tournament-list": Case({"GET": SIGNED_IN_API, "POST": expect(
        403, anonymous=UNAUTHENTICATED, instructor=201, operator=201)}, data=NEW_TOURNAMENT),
    "tournament-detail": running(GET=COURSE_API),
    "tournament-series": running(GET=COURSE_API),
    "tournament-rounds": running(GET=COURSE_API),
    "tournament-standings": running(GET=COURSE_API),
    "tournament-bracket": (Case({"GET": COURSE_API}, {"tournament": "running"}),
                           Case({"GET": expect(404, anonymous=UNAUTHENTICATED)}, {"tournament": "draft"})),  # none yet
    "tournament-entrants": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, ta=403, instructor=201,
                                                operator=201)},
                                {"tournament": "draft"}, data=ENTER_BOB),
    "tournament-start": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, ta=403, instructor=200, operator=200)},
                             {"tournament": "draft"}),
    "tournament-course-entrants": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, ta=403, instructor=201,
                                                       operator=201)}, {"tournament": "draft"}),
    "tournament-discard": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, ta=403, instructor=204,
                                               operator=204)}, {"tournament": "draft"}),
    "tournament-pause": Case({"POST": STEER_API}, {"tournament": "running"}),
    "tournament-resume": Case({"POST": STEER_API}, {"tournament": "paused"}),
    "tournament-cancel": Case({"POST": STEER_API}, {"tournament": "running"}),
    # Nothing set aside to play again: refused with the reason, to those who may steer.
    "tournament-replay": Case({"POST": expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404,
                                              instructor=409, operator=409)}, {"tournament": "running"}),
    # Entries of one's bots in tournaments not started yet (ada's in the draft): their owner's alone.
    "entry-request-list": Case({"GET": SIGNED_IN_API}),
    "entry-request-detail": Case({"GET": OWN_ENTRY_API}, {"tournament": "draft"}),
    "entry-request-accept": Case({"POST": OWN_ENTRY_API}, {"tournament": "draft"}),
    "entry-request-decline": Case({"POST": OWN_ENTRY_API}, {"tournament": "draft"}),
    "tournaments:answer_entry": Case({"GET": POST_ONLY_PAGE, "POST": expect(404, anonymous=LOGIN,
                                                                            owner=ANY_REDIRECT)},
                                     {"tournament": "draft", "answer": "decline"}),
    # The grading API.
    "course-people": Case({"GET": COURSE_API}),
    "course-roster": Case({"POST": PEOPLE_API}),
    "course-teams": Case({"POST": PEOPLE_API}),
    "course-assistants": Case({"POST": PEOPLE_API}),
    "course-instructors": Case({"POST": PEOPLE_API}),
    "assignment-list": Case({"GET": SIGNED_IN_API, "POST": expect(
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=201, operator=201)},
        data=NEW_ASSIGNMENT),
    "assignment-detail": Case({"GET": COURSE_API, "PATCH": expect(  # nothing sent: nothing changed
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=200, operator=200),
        "PUT": expect(  # nothing sent: every field missing
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=400, operator=400)}),
    "assignment-rubric": Case({"GET": COURSE_API, "POST": expect(
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=201, operator=201)},
        data=NEW_PART),
    # Your own (team's) submission: only ada's team has one; a submission sent without a bot is refused.
    "assignment-submission": Case({"GET": expect(404, anonymous=UNAUTHENTICATED, owner=200, mate=200),
                                   "POST": expect(400, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404),
                                   # Withdrawing: the world's assignment is closed, so its students are told so
                                   # (409: the wrong time); its staff submit nothing (403).
                                   "DELETE": expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404,
                                                    owner=409, classmate=409, ta=403)}),
    "assignment-runs": Case({"GET": STAFF_API, "POST": expect(
        403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, ta=201, instructor=201, operator=201)}),
    "assignment-grades": Case({"GET": COURSE_API}),  # a student's list holds their own grade only
    "assignment-export": Case({"GET": STAFF_API}),
    "assignment-similarity": Case({"GET": DRAFT_API}),  # as its page: to students it does not exist
    "grading-run-list": Case({"GET": SIGNED_IN_API}),  # the runs of the courses one staffs
    "grading-run-detail": Case({"GET": STAFF_API}),
    "grading-run-replay": Case({"POST": expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404,
                                               ta=409, instructor=409, operator=409)}),  # nothing set aside
    "submission-adjustments": (
        Case({"GET": STAFF_API, "POST": expect(
            403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, ta=201, instructor=201, operator=201)},
            data=NOTE),
        # Changing the points is the instructors': the assistant is refused (403, with the reason).
        Case({"POST": expect(403, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, instructor=201,
                             operator=201)}, data=BONUS),
    ),
    # Static files (served by Django in the embedded setup).
    "^static/(?P<path>.*)$": page(PUBLIC),
    # An assignment's code similarity: the course's staff and operators; to students it does not exist (the
    # answers of a draft tournament).
    "grading:similarity": page(DRAFT_PAGE),
    "grading:similarity_pair": page(DRAFT_PAGE),
    # Tables: ada (on move) and bob play End Game at a table of the course; its staff and its other students
    # (mia) may watch it (the public view only, test_tables), the outsiders do not know it exists. Opening one: any signed-in user (an
    # empty form: the seats missing, shown again with the reason).
    "tables:play": Case({"GET": SIGNED_IN_PAGE, "POST": expect(400, anonymous=LOGIN)}),
    "tables:table": page(TABLE_PAGE),
    "tables:table_data": page(TABLE_PAGE),
    # The live stream of a finished table: its final snapshot, then the stream ends.
    "tables:table_events": Case({"GET": TABLE_PAGE, "POST": TABLE_PAGE}, {"table": "finished"}),
    "tables:leave": post_only(expect(404, anonymous=LOGIN, owner=ANY_REDIRECT, classmate=ANY_REDIRECT, mate=403, ta=403,
                                     instructor=403, operator=403)),
    "tables:join": page(expect(404, anonymous=LOGIN)),  # the world's token is no invitation
    "tables:replay": Case({"GET": TABLE_PAGE, "POST": TABLE_PAGE}, {"table": "finished"}),
    "tables:replay_data": Case({"GET": TABLE_PAGE, "POST": TABLE_PAGE}, {"table": "finished"}),
    "tables:replay_file": Case({"GET": TABLE_PAGE, "POST": TABLE_PAGE}, {"table": "finished"}),
    "tables:replay_analysis": Case({"GET": expect(404, anonymous=LOGIN), "POST": expect(404, anonymous=LOGIN)},
                                   {"table": "finished"}),  # End Game sends its analysis whole
    "table-list": Case({"GET": SIGNED_IN_API, "POST": expect(201, anonymous=UNAUTHENTICATED)}, data=NEW_TABLE),
    "table-detail": Case({"GET": TABLE_API}),
    # ada is on move; bob's move is out of turn (409); mia and the staff watch but have no seat to play (403).
    "table-move": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, owner=200, classmate=409, mate=403, ta=403,
                                       instructor=403, operator=403)}, data=TABLE_MOVE),
    "table-leave": Case({"POST": expect(404, anonymous=UNAUTHENTICATED, owner=200, classmate=200, mate=403, ta=403,
                                        instructor=403, operator=403)}),
    "table-join": Case({"POST": expect(404, anonymous=UNAUTHENTICATED)}, data=as_json(lambda w: {"token": "nope"})),
    # Pairing rooms: the course's room, which ada and bob joined. Its staff open, start, close it and download
    # its results; its students join it (the staff are refused: they run it); any member may leave it.
    "rooms:open": post_only(STAFF_ACTION_PAGE),
    "rooms:room": page(COURSE_PAGE),
    "rooms:events": page(COURSE_PAGE),
    "rooms:results": page(STAFF_PAGE),
    "rooms:act": (
        Case({"GET": POST_ONLY_PAGE, "POST": ROOM_PLAYER_PAGE}, {"verb": "join"}),
        Case({"POST": expect(ANY_REDIRECT, anonymous=LOGIN, outsider=404, other_instructor=404)}, {"verb": "leave"}),
        Case({"POST": STAFF_ACTION_PAGE}, {"verb": "start"}),
        Case({"POST": STAFF_ACTION_PAGE}, {"verb": "close"}),
    ),
    "room-list": Case({"GET": SIGNED_IN_API, "POST": expect(403, anonymous=UNAUTHENTICATED, outsider=404,
                                                            other_instructor=404, ta=201, instructor=201,
                                                            operator=201)}, data=NEW_ROOM),
    "room-detail": Case({"GET": COURSE_API}),
    "room-join": Case({"POST": expect(200, anonymous=UNAUTHENTICATED, outsider=404, other_instructor=404, ta=403,
                                      instructor=403, operator=403)}),
    "room-leave": Case({"POST": COURSE_API}),
    "room-start": Case({"POST": STAFF_API}),
    "room-close": Case({"POST": STAFF_API}),
    "room-results": Case({"GET": STAFF_API}),
}

# The Django admin: operators only; everyone else is sent to its sign-in page. Routes differing are named.
ADMIN = Case({"GET": expect(ADMIN_LOGIN, operator=200)})
ADMIN_ROUTES = {
    "admin/login/": Case({"GET": expect(200, operator=Redirect("/admin/"))}),  # the site's rate-limited wrapper
    "admin:login": Case({"GET": expect(200, operator=Redirect("/admin/"))}),
    "admin:logout": Case({"GET": expect(Redirect("/admin/"), operator=405)}),  # signing out is a POST
    "admin:autocomplete": Case({"GET": expect(ADMIN_LOGIN, operator=403)}),  # 403 without its parameters
    "admin:view_on_site": Case({"GET": expect(ADMIN_LOGIN, operator=404)}),  # bots have no public URL
    "admin/(?P<url>.*)$": Case({"GET": expect(ADMIN_LOGIN, operator=404)}),  # unknown admin page
}
ADMIN_OBJECT_REDIRECT = Case({"GET": expect(ADMIN_LOGIN, operator=Redirect("/admin/"))})  # <id>/ -> <id>/change/


# --- Reading the URL configuration ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Endpoint:
    key: str  # the route's name ("namespace:name"), or its pattern when it has none
    pattern: str  # the full pattern, from the site's root
    methods: tuple[str, ...]
    callback: Callable


PAGE_METHODS = ("GET", "POST")  # what a plain Django view is tried with: it may or may not refuse either


def view_methods(callback) -> tuple[str, ...]:
    actions = getattr(callback, "actions", None)  # a DRF viewset route: exactly its mapped methods
    if actions:
        return tuple(method.upper() for method in actions)
    view_class = getattr(callback, "cls", None)  # a DRF APIView: the handlers it defines
    if view_class is not None:
        return tuple(m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(view_class, m))
    return PAGE_METHODS


def endpoints(patterns=None, prefix="", namespace="") -> list[Endpoint]:
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = ":".join(filter(None, [namespace, entry.namespace]))
            found += endpoints(entry.url_patterns, prefix + str(entry.pattern), inner)
            continue
        assert isinstance(entry, URLPattern)
        pattern = prefix + str(entry.pattern)
        key = ":".join(filter(None, [namespace, entry.name])) if entry.name else pattern
        is_admin = pattern.startswith("admin/")
        found.append(Endpoint(key, pattern, ("GET",) if is_admin else view_methods(entry.callback), entry.callback))
    return found


def declaration(endpoint: Endpoint) -> tuple[Case, ...] | None:
    if endpoint.pattern.startswith("admin/"):
        if endpoint.key in ADMIN_ROUTES:
            return (ADMIN_ROUTES[endpoint.key],)
        return (ADMIN_OBJECT_REDIRECT,) if endpoint.pattern.endswith("<path:object_id>/") else (ADMIN,)
    declared = ROUTES.get(endpoint.key)
    return None if declared is None else declared if isinstance(declared, tuple) else (declared,)


ENDPOINTS = endpoints()
# Routes whose path a route listed before them answers: arena/urls.py's rate-limited sign-in wrappers.
SHADOWED = {"login", "admin:login", "password_reset"}
ROUTE_METHODS = sorted({(e.key, method) for e in ENDPOINTS for method in e.methods})


# --- The world ------------------------------------------------------------------------------------------------

class World:
    """Course `algo` (instructor teacher, assistant ta, students ada and bob, each with a bot, and mia, in a
    team with ada), course `other` (instructor other_teacher, student olga), an operator; a finished match of
    ada's bot against bob's, a SortingGame variant of `algo`, `algo` tournaments in the states the routes
    need, and an `algo` team assignment with ada's submission graded by a finished run (and adjusted once)."""

    def __init__(self):
        # No passwords (the sessions are made with force_login): hashing them is most of the setup's time.
        make = get_user_model().objects.create_user
        self.users = {name: make(username=name, email=f"{name}@uni.example")
                      for name in ("ada", "bob", "mia", "ta", "olga", "teacher", "other_teacher")}
        self.users["root"] = get_user_model().objects.create_superuser(username="root", email=None, password=None)
        self.course = Course.objects.create(code="algo", name="Algorithms")
        self.course.students.add(self.users["ada"], self.users["bob"], self.users["mia"])
        self.course.instructors.add(self.users["teacher"])
        self.course.teaching_assistants.add(self.users["ta"])
        self.team = people_services.create_team(self.users["teacher"], self.course, "pair",
                                                [self.users["ada"], self.users["mia"]])
        self.other_course = other = Course.objects.create(code="other", name="Other")
        other.students.add(self.users["olga"])
        other.instructors.add(self.users["other_teacher"])

        self.bots = {"ada": accepted_bot(self.users["ada"], "endgame", "mine", EXAMPLE_BOT.decode()),
                     "bob": accepted_bot(self.users["bob"], "endgame", "his", LOOKAHEAD_BOT)}
        self.version = self.bots["ada"].versions.get()
        with override_settings(ARENA_SANDBOX="none"):
            self.match = play_now(match_services.challenge(self.users["ada"], self.bots["ada"], [self.bots["bob"]]))
            # A ladder match the platform chose: the bots' rating rows (the ratings admin's pages).
            play_now(match_services.create_match("endgame", [self.bots["ada"], self.bots["bob"]],
                                                 purpose="ladder", rated=True))
        # ada's stderr in the match: what the private-material probes look for.
        self.match.seats.filter(bot=self.bots["ada"]).update(log=ADA_STDERR)
        deck = json.loads(STANDARD_DECK.read_text(encoding="utf-8"))
        self.variant = create_variant(self.users["teacher"], self.course, game="sortinggame", name="deck",
                                      config={"deck": deck})
        Group.objects.create(name="markers")
        self.token = api_tokens.issue(self.users["ada"], "ada's script")
        self.tournaments = {state: self._tournament(state) for state in ("draft", "running", "paused")}
        self._graded_assignment()
        self.tables = {state: self._table(state) for state in ("playing", "finished")}
        self.room = room_services.open_room(self.users["teacher"], self.course, "endgame")
        for name in ("ada", "bob"):
            room_services.join(self.users[name], self.room)

    def _table(self, state: str) -> Table:
        """ada and bob at a table of End Game of the course, ada on move; or its game over (bob left). Without
        a clock: ada's turn must not run out while the matrix asks (a person's default is 300 s, and under load
        the module has taken longer, turning her move into a 409)."""
        ada, bob = self.users["ada"], self.users["bob"]
        table = table_services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(user=bob)],
                                          course=self.course, move_seconds=None)
        if state == "finished":
            table_services.leave(table, bob)
        assert table.status == state
        return table

    def _graded_assignment(self):
        """ada submits her bot in time for her team (with mia); the teacher grades it (two games against greedy)
    and adds a note."""
        teacher = self.users["teacher"]
        self.assignment = open_assignment(teacher, self.course, team_size=2)  # ada submits for her team
        self.part = grading_services.add_part(teacher, self.assignment, "win_rate", 100,
                                              {"opponent": "greedy", "games": 2})
        self.submission = grading_services.submit(self.users["ada"], self.assignment, self.bots["ada"])
        pass_deadline(self.assignment)
        BotVersion.objects.filter(bot=self.bots["ada"]).update(uploaded_at=self.assignment.deadline - timedelta(hours=1))
        with override_settings(ARENA_SANDBOX="none"):
            self.run = play_run(grading_runs.start_run(teacher, self.assignment))
        assert self.run.grades.filter(submission=self.submission).exists()
        grading_services.adjust(teacher, self.submission, 1, "a bonus for the tidy code")

    def _tournament(self, state: str) -> Tournament:
        teacher = self.users["teacher"]
        tournament = entered(teacher, self.course, [self.bots["ada"], Bot.objects.builtin("endgame", "greedy")],
                             name=f"{state} cup", game="endgame", format="single-elimination")
        if state != "draft":
            tournament_services.start(teacher, tournament)
        if state == "paused":
            tournament_services.pause(teacher, tournament)
        tournament.refresh_from_db()
        assert tournament.status == state
        return tournament

    def url_values(self, endpoint: Endpoint, objects: dict) -> dict:
        """Every URL parameter a route may take, filled for `objects` (the world's defaults otherwise)."""
        tournament = self.tournaments[objects.get("tournament", "running")]
        ada_entry = tournament.entrants.get(bot=self.bots["ada"])
        by_segment = {"bots": self.bots["ada"], "versions": self.version, "matches": self.match,
                      "courses": self.course, "variants": self.variant, "tournaments": tournament,
                      "assignments": self.assignment, "submissions": self.submission,
                      "requests": ada_entry, "entries": ada_entry, "tokens": self.token,
                      "runs": self.run, "tables": self.tables[objects.get("table", "playing")], "rooms": self.room}  # "grading-runs/": the segment is read as word characters
        segment = re.search(r"(\w+)/[^/]*<(?:\w+:)?pk>|(\w+)/\(\?P<pk>", endpoint.pattern)
        values = {
            "number": self.version.number, "variant_pk": self.variant.pk,
            "entrant_pk": tournament.entrants.get(bot=self.bots["ada"]).pk,
            "game": "endgame", "slug": "bot-protocol", "invitation_pk": 0, "verb": objects.get("verb", "start"), "step": 0, "answer": objects.get("answer"),
            "app_label": "bots", "url": "no-such-page/", "path": "core/arena.css",
            "uidb64": "MQ", "token": "not-a-token",
            "id": self.users["ada"].pk,
            "part_pk": self.part.pk, "submission_pk": self.submission.pk, "code": self.course.invite_code,
            "run_pk": self.run.pk,
            "a_pk": self.submission.pk, "b_pk": self.submission.pk,  # a submission against itself
            "content_type_id": ContentType.objects.get_for_model(Bot).pk, "object_id": self.bots["ada"].pk,
        }
        if segment:
            values["pk"] = by_segment[segment[1] or segment[2]].pk
        model_admin = getattr(endpoint.callback, "model_admin", None)
        if model_admin is not None:  # an admin page of one object: the first one there is
            values["object_id"] = model_admin.model._default_manager.order_by("pk").first().pk
        return values


def url_path(endpoint: Endpoint, values: dict) -> str:
    """The path of `endpoint` with its parameters filled in (route `<conv:name>` and regex `(?P<name>...)`)."""
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: str(values[m[1]]), endpoint.pattern)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m[1]]), path)
    return "/" + path.replace("^", "").replace("$", "").replace("\\.", ".").replace("/?", "/")


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        built = World()
        built.sessions = {}
        for role in ROLES:
            if role.user is not None:
                client = Client()
                client.force_login(role.user(built))
                built.sessions[role.name] = client.cookies[settings.SESSION_COOKIE_NAME].value
        yield built
        transaction.set_rollback(True)


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    """Every role asks every route: far more requests than a person sends, which the rate limits would stop."""
    settings.ARENA_RATES = {scope: "100000/min" for scope in settings.ARENA_RATES}
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 100000, "rate": "100000/min",
                             "staff_in_flight": 100000, "staff_rate": "100000/min"}


def ask(world, role: Role, method: str, path: str, case: Case):
    """The answer `role` gets, in a savepoint rolled back afterwards (the world stays as it was)."""
    client = Client(raise_request_exception=False)
    if role.name in world.sessions:
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role.name]
    payload, content_type = case.data(world) if case.data and method == "POST" else (None, None)
    savepoint = transaction.savepoint()
    try:
        if content_type:
            return client.generic(method, path, json.dumps(payload), content_type=content_type)
        return getattr(client, method.lower())(path, payload) if payload else client.generic(method, path)
    finally:
        transaction.savepoint_rollback(savepoint)


def describe(response) -> str:
    location = f" to {response['Location']}" if response.status_code in (301, 302) else ""
    return f"{response.status_code}{location}"


# --- The tests ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("key", "method"), ROUTE_METHODS, ids=[f"{k} {m}" for k, m in ROUTE_METHODS])
def test_route_answers_every_role_as_declared(world, key, method):
    wrong = wrong_answers(world, key, method)
    assert not wrong, f"route {key!r}:\n" + "\n".join(wrong)


def wrong_answers(world, key: str, method: str) -> list[str]:
    """Every role's answer to `method` on route `key` that differs from its declaration."""
    routes = [e for e in ENDPOINTS if e.key == key and method in e.methods]
    cases = declaration(routes[0])
    assert cases is not None, (f"route {key!r} ({routes[0].pattern}) is not declared: add ROUTES[{key!r}] in "
                               f"{__name__} with the answer each role gets to {method}")
    cases = [case for case in cases if method in case.methods]
    assert cases, f"route {key!r}: no answer declared for {method}; add it to ROUTES[{key!r}]"
    wrong = []
    for endpoint in routes:
        for case in cases:
            path = case.path or url_path(endpoint, world.url_values(endpoint, case.objects))
            assert resolve(path).func is endpoint.callback or endpoint.key in SHADOWED, \
                f"{path} does not reach {key!r}: give the route's Case a `path`"
            for role in ROLES:
                expected = case.methods[method].for_role(role)
                response = ask(world, role, method, path, case)
                if not answered(expected, response):
                    wrong.append(f"{role.name}: {method} {path} {case.objects or ''} answered {describe(response)},"
                                 f" declared {expected!r}")
    return wrong


def test_every_declaration_names_a_route_of_the_site():
    keys = {e.key for e in ENDPOINTS}
    assert set(ROUTES) <= keys and set(ADMIN_ROUTES) <= keys, set(ROUTES) - keys | set(ADMIN_ROUTES) - keys
    methods = {(e.key, m) for e in ENDPOINTS for m in e.methods}
    for key, declared in ROUTES.items():
        for case in declared if isinstance(declared, tuple) else (declared,):
            assert {(key, m) for m in case.methods} <= methods, f"{key}: a method the route does not take"



@pytest.mark.parametrize(("role_name", "graded"), [("owner", ["ada"]), ("mate", ["ada"]), ("classmate", []),
                                                    ("ta", ["ada"]), ("instructor", ["ada"])])
def test_the_grades_list_holds_only_the_students_own_grade(world, role_name, graded):
    """The list answers every member of the course (above); it holds their own (team's) grade, or all for staff."""
    role = next(r for r in ROLES if r.name == role_name)
    response = ask(world, role, "GET", f"/api/assignments/{world.assignment.pk}/grades/", Case({}))
    assert response.status_code == 200
    assert [grade["submission"]["student"] for grade in response.json()] == graded


# --- State-changing attacks: every way to add someone to a course or a team ----------------------------------
# Each attack is made of the requests its attacker sends (all rolled back afterwards). The read matrix then runs
# again: every role must get exactly the declared answers, and ada's stderr must show to the same roles as
# before. Belonging somewhere opens nothing: only ada submitting her bot, or its entry in a tournament, shows it
# to a course's staff (accounts.access.can_see_private).

PRIVATE_ROLES = {"owner", "mate", "ta", "instructor", "operator"}


def roster_naming_ada(world, send):
    """other_teacher's roster names ada by her e-mail address."""
    roster = "student_id,email,name\n9001,ada@uni.example,Ada\n"
    assert send("other_instructor", "POST", f"/api/courses/{world.other_course.pk}/roster/",
                {"text": roster}).status_code == 200


def ada_follows_a_join_link(world, send):
    """ada herself joins the other course by its invitation link."""
    assert send("owner", "POST", f"/join/{world.other_course.invite_code}/").status_code == 302
    assert world.other_course.students.filter(pk=world.users["ada"].pk).exists()


def a_team_with_ada_and_a_mate_submitting_her_bot(world, send):
    """Once ada is in the other course, its instructor puts her in a team with olga, opens a team assignment,
    and olga tries to submit ada's bot for the team (refused: only its owner submits a bot)."""
    ada_follows_a_join_link(world, send)
    other = world.other_course.pk
    team = send("other_instructor", "POST", f"/api/courses/{other}/teams/",
                {"name": "pulled in", "members": [world.users["ada"].pk, world.users["olga"].pk]})
    assert team.status_code == 201, team.content
    assignment = send("other_instructor", "POST", "/api/assignments/", {
        "course": other, "title": "Pairs", "game": "endgame", "team_size": 2,
        "opens_at": "2020-01-01T00:00:00Z", "deadline": "2090-01-01T00:00:00Z"})
    assert assignment.status_code == 201, assignment.content
    submitted = send("outsider", "POST", f"/api/assignments/{assignment.json()['id']}/submission/",
                     {"bot": world.bots["ada"].pk})
    assert submitted.status_code == 403, submitted.content


def an_operator_enrols_ada_and_teams_her_up(world, send):
    """The operator, in the admin, adds ada to the other course and to a team there with olga."""
    other = world.other_course
    form = {"code": other.code, "name": other.name, "time_zone": other.time_zone, "invite_code": other.invite_code,
            "instructors": [world.users["other_teacher"].pk],
            "students": [world.users["olga"].pk, world.users["ada"].pk],
            "roster-TOTAL_FORMS": "0", "roster-INITIAL_FORMS": "0", "roster-MIN_NUM_FORMS": "0",
            "roster-MAX_NUM_FORMS": "1000", "invitations-TOTAL_FORMS": "0", "invitations-INITIAL_FORMS": "0",
            "invitations-MIN_NUM_FORMS": "0", "invitations-MAX_NUM_FORMS": "1000"}
    changed = send("operator", "POST", f"/admin/accounts/course/{other.pk}/change/", form, content_type=None)
    assert changed.status_code == 302, changed.content.decode()[:2000]
    assert other.students.filter(pk=world.users["ada"].pk).exists()
    team = send("operator", "POST", "/admin/accounts/team/add/", {
        "course": other.pk, "name": "admin pair", "members": [world.users["ada"].pk, world.users["olga"].pk]},
        content_type=None)
    assert team.status_code == 302, team.content.decode()[:2000]


def _other_course_draft(world, send) -> int:
    """ada is in the other course (by its join link); its instructor makes a draft tournament there."""
    ada_follows_a_join_link(world, send)
    draft = send("other_instructor", "POST", "/api/tournaments/", {
        "course": world.other_course.pk, "name": "Pulled in", "game": "endgame", "format": "round-robin"})
    assert draft.status_code == 201, draft.content
    return draft.json()["id"]


def a_tournament_entry_of_adas_bot(world, send):
    """The other course's instructor enters ada's bot in their tournament: only a request, which ada has not
    accepted, so it shows them nothing (and the bot will not play)."""
    tournament = _other_course_draft(world, send)
    entry = send("other_instructor", "POST", f"/api/tournaments/{tournament}/entrants/",
                 {"bot": world.bots["ada"].pk})
    assert entry.status_code == 201, entry.content


def a_bulk_entry_of_the_course_bots(world, send):
    """The same with every course bot at once: ada's bot is only requested there too."""
    tournament = _other_course_draft(world, send)
    entry = send("other_instructor", "POST", f"/api/tournaments/{tournament}/entrants/course/", {"builtins": True})
    assert entry.status_code == 201, entry.content
    assert world.bots["ada"].pk in {e["bot"] for e in entry.json()["entrants"]}


def ada_declines_an_entry(world, send):
    """ada declines the request: still nothing shows."""
    a_tournament_entry_of_adas_bot(world, send)
    (request,) = [r for r in send("owner", "GET", "/api/entry-requests/").json()["results"]
                  if r["course"] == world.other_course.name]
    assert send("owner", "POST", f"/api/entry-requests/{request['id']}/decline/").json()["consent"] == "declined"


ATTACKS = [roster_naming_ada, ada_follows_a_join_link, a_team_with_ada_and_a_mate_submitting_her_bot,
           an_operator_enrols_ada_and_teams_her_up, a_tournament_entry_of_adas_bot, a_bulk_entry_of_the_course_bots,
           ada_declines_an_entry]


def private_material_shown(world) -> set[str]:
    """The roles to whom ada's stderr shows: in the match API, the match list of her bot, and the match page."""
    shown = set()
    for role in ROLES:
        reads = [ask(world, role, "GET", path, Case({})) for path in (
            f"/api/matches/{world.match.pk}/", f"/api/matches/?bot={world.bots['ada'].pk}",
            f"/matches/{world.match.pk}/")]
        if any(response.status_code == 200 and ADA_STDERR in response.content.decode() for response in reads):
            shown.add(role.name)
    return shown


def test_the_private_material_probe_sees_what_the_rule_allows(world):
    assert private_material_shown(world) == PRIVATE_ROLES


# Slow: each attack asks every GET route again as every role (about 1,150 requests), so the seven cost a
# quarter of the quick tier's time; the quick tier keeps the matrix itself (every route, every role), and the
# full suite (CI) runs these.
@pytest.mark.slow
@pytest.mark.long  # the whole matrix again, seven times: its module starts first (tests/conftest.py)
@pytest.mark.parametrize("attack", ATTACKS, ids=[attack.__name__ for attack in ATTACKS])
def test_no_way_of_adding_someone_to_a_course_or_team_opens_anything(world, attack):
    def send(role_name, method, path, payload=None, content_type="application/json"):
        client = Client(raise_request_exception=False)
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role_name]
        if content_type is None:
            return client.post(path, payload)
        return client.generic(method, path, json.dumps(payload or {}), content_type=content_type)

    savepoint = transaction.savepoint()
    try:
        attack(world, send)
        wrong = [answer for key, method in ROUTE_METHODS if method == "GET" and not key.startswith("admin")
                 for answer in wrong_answers(world, key, method)]
        assert not wrong, f"after {attack.__name__}:\n" + "\n".join(wrong)
        assert private_material_shown(world) == PRIVATE_ROLES
    finally:
        transaction.savepoint_rollback(savepoint)
