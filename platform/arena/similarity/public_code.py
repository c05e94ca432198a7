"""Code every student can copy without copying each other: the built-in bots of a game.

Passed as `public` to `compare_all` so that two students who both started from `builtin:greedy`'s code
are not shown as similar for that.
"""

from __future__ import annotations

import inspect
import textwrap

from games import get_game


def builtin_bot_sources(game_name: str) -> list[str]:
    """The source of each built-in bot class of the game (KeyError for an unknown game)."""
    bots = get_game(game_name).builtin_bots().values()
    return [textwrap.dedent(inspect.getsource(bot)) for bot in bots]
