"""Head-to-head on a bot's page: its results against each opponent, version by version, with the games."""

from dataclasses import dataclass, field

from arena.accounts.access import visible_matches
from arena.bots.models import Bot
from arena.matches.models import Match, MatchSeat

# The games linked per line (the newest); the line's counts cover all of them.
GAMES_SHOWN = 8


@dataclass
class HeadToHead:
    """The bot's record against one version of one opponent (version None: a built-in)."""

    opponent_id: int
    opponent: str  # its label
    version: int | None
    rated: int = 0  # of the games below, those the ladder rated
    wins: int = 0  # placed better than this opponent
    draws: int = 0
    losses: int = 0
    games: list[int] = field(default_factory=list)  # match ids, newest first

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def more(self) -> int:
        return self.played - len(self.games)


def head_to_head(bot: Bot, viewer) -> list[HeadToHead]:
    """The bot's finished games the viewer may see, per opponent and opponent version (most met first):
    a win where it placed better than that opponent, a draw on the same placing. A cooperative game's
    seats are teammates, not opponents: none."""
    from games import get_game

    if get_game(bot.game).cooperative:
        return []
    matches = visible_matches(Match.objects.filter(status=Match.Status.FINISHED, seats__bot=bot), viewer)
    seats = (MatchSeat.objects.filter(match__in=matches.values("pk"), placing__isnull=False)
             .order_by("-match_id", "seat")
             .values_list("match_id", "bot_id", "version__number", "placing", "match__rated"))
    by_match: dict[int, list[tuple]] = {}
    for match_id, *seat in seats:
        by_match.setdefault(match_id, []).append(seat)
    lines: dict[tuple[int, int | None], HeadToHead] = {}
    for match_id, table in by_match.items():  # newest first
        own = [placing for bot_id, _, placing, _ in table if bot_id == bot.pk]
        if len(own) != 1:
            continue  # a bot seated twice plays itself: no opponent to count
        for bot_id, version, placing, rated in table:
            if bot_id == bot.pk:
                continue
            line = lines.setdefault((bot_id, version), HeadToHead(bot_id, "", version))
            outcome = "wins" if own[0] < placing else "draws" if own[0] == placing else "losses"
            setattr(line, outcome, getattr(line, outcome) + 1)
            line.rated += rated
            if len(line.games) < GAMES_SHOWN:
                line.games.append(match_id)
    labels = {other.pk: other.label for other in Bot.objects.filter(pk__in={key[0] for key in lines})
              .select_related("owner")}
    for (bot_id, _), line in lines.items():
        line.opponent = labels[bot_id]
    return sorted(lines.values(), key=lambda line: (-line.played, line.opponent, -(line.version or 0)))
