"""What a pairing room shows: its results table (the page, the live stream, the API) and its CSV download."""

import csv
import io
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from django.urls import reverse

from arena.accounts.access import attends
from arena.accounts.identity import display_names
from arena.accounts.models import RosterEntry
from arena.core.downloads import spreadsheet_text
from arena.tables.models import Table
from arena.tables.presentation import TableHome

from .models import Room, RoomGame
from .services import current_game, round_over


@dataclass
class Result:
    """One student's line: their games, wins, draws, losses and points (1 a win, 0.5 a draw), in all and by
    round (None for a round they did not play); only finished games count."""

    user_id: int
    name: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    by_round: list = field(default_factory=list)


def results(room: Room) -> list[Result]:
    """Every student who joined the room, best first (points, then wins, then name)."""
    room.refresh_from_db(fields=["rounds"])  # a round started since `room` was read has its column
    members = [member.user for member in room.members.select_related("user")]
    names = display_names(members)
    lines = {user.pk: Result(user.pk, names[user.pk], by_round=[None] * room.rounds) for user in members}
    for game in room.games.filter(status=RoomGame.Status.FINISHED):
        for seat, user_id in enumerate((game.first_id, game.second_id)):
            line = lines.get(user_id)
            if line is None:  # the built-in's seat, or an account that is gone
                continue
            points = game.points_of(seat)
            line.played += 1
            line.points += points
            line.wins += points == 1
            line.draws += points == 0.5
            line.losses += points == 0
            line.by_round[game.round - 1] = (line.by_round[game.round - 1] or 0) + points
    return sorted(lines.values(), key=lambda line: (-line.points, -line.wins, line.name.casefold(), line.user_id))


def round_games(room: Room) -> dict[int, list[RoomGame]]:
    """The room's games by round, latest round first; each game's `first_name` and `second_name` are its
    students' names as the results table shows them (None: the built-in's seat)."""
    games = list(room.games.select_related("first", "second").order_by("-round", "pair", "leg"))
    names = display_names({user.pk: user for game in games for user in (game.first, game.second) if user}.values())
    by_round = defaultdict(list)
    for game in games:
        game.first_name, game.second_name = (names[user.pk] if user else None for user in (game.first, game.second))
        by_round[game.round].append(game)
    return dict(by_round)


def room_view(room: Room, user) -> Room:
    """`room` with what `user` is shown of it (the API's serializer reads these): students present, whether
    `user` is one of them, the table they play at now, whether the last round is over, the results."""
    room.present = room.members.filter(present=True).count()
    room.joined = user.is_authenticated and room.members.filter(user=user, present=True).exists()
    game = current_game(room, user)
    room.my_table = game.table_id if game else None
    room.round_over = round_over(room)
    room.results = [asdict(line) for line in results(room)]
    return room


def results_csv(room: Room) -> str:
    """One line per student: student id, e-mail and name as the gradebook CSV names them (the roster's, else
    the account's: display names alone may repeat or say nothing to a spreadsheet of the class), games, wins,
    draws, losses, points, then their points in each round."""
    lines = results(room)
    roster = {entry.user_id: entry for entry in RosterEntry.objects.filter(
        course_id=room.course_id, user_id__in=[line.user_id for line in lines])}
    emails = dict(room.members.values_list("user_id", "user__email"))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["student_id", "email", "name", "games", "wins", "draws", "losses", "points",
                     *[f"round_{number}" for number in range(1, room.rounds + 1)]])
    for line in lines:
        entry = roster.get(line.user_id)
        writer.writerow([spreadsheet_text(entry.student_id if entry else ""),
                         spreadsheet_text(entry.email if entry else emails.get(line.user_id, "")),
                         spreadsheet_text(entry.name if entry else line.name), line.played, line.wins, line.draws,
                         line.losses, f"{line.points:g}",
                         *["" if points is None else f"{points:g}" for points in line.by_round]])
    return out.getvalue()


def table_home(table: Table, user) -> TableHome | None:
    """The way back from one of a room's tables (tagged by services._open_table "room:ID:..."): the room, for
    whoever attends its course, and once the game is over the table `user` plays at next in the room (the
    pair's second game, opened as the first ended), as the room's "go to your table" finds it."""
    _, _, rest = table.tag.partition(":")
    number = rest.split(":", 1)[0]
    room = Room.objects.select_related("course").filter(pk=int(number)).first() if number.isdigit() else None
    if room is None or not attends(user, room.course):
        return None
    game = current_game(room, user) if table.is_over else None
    following = game.table_id if game is not None and game.table_id != table.pk else None
    return TableHome(label=f"the pairing room ({room.title})", url=reverse("rooms:room", args=[room.pk]),
                     next_url=reverse("tables:table", args=[following]) if following else None)
