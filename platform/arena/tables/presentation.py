"""What a table shows to one user: their seat's own observation and legal moves, or the public view.

The same answer for the table page (which draws it with the replay viewer's game modules) and the API. A
seat's observation goes to the person of that seat only; everyone else who may watch (accounts.access.
may_watch_table) gets the game's public view: no hidden card, no seed.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.urls import reverse
from games import replay as replays
from games.contracts import is_verdict

from . import services
from .models import Table

# The moves listed under the table: the last ones (a long card game's first moves are in its replay).
MOVES_SHOWN = 12


@dataclass(frozen=True)
class TableHome:
    """Where a table another app opened belongs, for the table page's way back: `url` (the pairing room's
    page) named `label`, and `next_url`, the user's next table there once this game is over (None: none)."""

    label: str
    url: str
    next_url: str | None = None


# Who answers for the tables whose tag starts with "PREFIX:" (register_home): the app that opened them; tables
# knows no app that uses it.
_HOMES: dict[str, Callable[[Table, object], TableHome | None]] = {}


def register_home(prefix: str, home: Callable[[Table, object], TableHome | None]) -> None:
    """`home(table, user)` tells where the tables tagged "`prefix`:..." belong, as `user` may see it (None:
    nowhere they may go). Called from the opening app's AppConfig.ready."""
    _HOMES[prefix] = home


def table_home(table: Table, user) -> TableHome | None:
    home = _HOMES.get(table.tag.split(":", 1)[0]) if table.tag else None
    return home(table, user) if home else None


def table_state(table: Table, user) -> dict:
    game_table = services.current(table)
    game, state = game_table.game, game_table.state
    seat = services.seat_of(table, user)
    playing = table.status == Table.Status.PLAYING
    initial = game.new_game(len(game_table.seats), state.config, state.seed)
    if seat is None:
        view, first, text = game_table.public_view(), initial.public_view(), None
    else:
        view, first, text = state.observation(seat), initial.observation(seat), game.render(state, seat)
    on_move = game_table.seat_on_move if playing else None
    home = table_home(table, user)
    invitations = {row.seat: row.token for row in table.seats.all() if row.token} if user.pk == table.opened_by_id else {}
    return {
        "id": table.pk,
        "game": table.game,
        "title": game.title,
        "status": table.status,
        "version": table.version,
        "turn": game_table.turn,
        "seats": [{"seat": number, "name": entry.name, "person": entry.human, "you": number == seat,
                   "out": number in state.failed_seats,
                   "invitation": reverse("tables:join", args=[invitations[number]]) if number in invitations else None}
                  for number, entry in enumerate(game_table.seats)],
        "your_seat": seat,
        # The seat's person may leave while the game goes on and their seat is in it (services.leave).
        "may_leave": playing and seat is not None and seat not in state.failed_seats,
        "on_move": on_move,
        "move_seconds": table.move_seconds,
        "deadline": table.deadline.isoformat() if playing and table.deadline else None,
        "view": view,
        "initial": first,
        "picture": state.picture(),  # public, drawn beside the view (Sprouts' drawing)
        "text": text if text is not None else json.dumps(view, indent=1),
        "choices": ([{"label": choice.label, "action": choice.action} for choice in game_table.choices(seat)]
                    if playing and seat is not None and on_move == seat else []),
        "moves": _moves(game_table),
        "winners": table.winners if table.is_over else None,
        "scores": state.scores() if table.is_over else None,
        "replay": reverse("tables:replay", args=[table.pk]) if table.is_over else None,
        "home": None if home is None else {"label": home.label, "url": home.url,
                                           "next": home.next_url if table.is_over else None},
    }


def _moves(game_table) -> list[dict]:
    """The last moves, each as the game describes it (what every seat saw happen), newest last."""
    rows = []
    previous = None
    names = [seat.name for seat in game_table.seats]
    for step, (state, event) in enumerate(replays.states(game_table.replay())):
        if event is not None:
            seat = event["seat"]
            text = (f"{names[seat]} is out: {event['verdict']}" if is_verdict(event)
                    else f"{names[seat]} {game_table.game.describe_action(previous, event['action'])}")
            rows.append({"step": step, "seat": seat, "text": text})
        previous = state
    return rows[-MOVES_SHOWN:]
