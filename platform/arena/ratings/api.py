"""The API of the ladders."""

from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from games import get_game
from rest_framework import generics
from rest_framework.exceptions import NotFound

from . import serializers
from .presentation import standing_rows, standings
from .services import LadderRow


class Ladder(generics.GenericAPIView):
    """The game's ladder, best first, a page at a time: `rank` counts from the top of the whole ladder."""

    serializer_class = serializers.LadderRowSerializer

    @extend_schema(responses=serializers.LadderRowSerializer(many=True))  # a list: paginated in the schema too
    def get(self, request, game):
        try:
            rules = get_game(game)
        except KeyError as exc:
            raise NotFound(str(exc)) from exc
        # As the ladder page: ranked bots first, then the provisional ones, unranked.
        page = self.paginate_queryset(standings(game).with_active_version())
        first = self.paginator.page.start_index()
        rows = _with_bots(standing_rows(page, first_place=first), page,
                          measure="team-skill" if rules.cooperative else "skill")
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)


def _with_bots(rows: list[LadderRow], bots, **more) -> list[dict]:
    """Ladder rows as the API answers them: each row's fields and `more`, with the whole bot (BotSerializer,
    from `bots`) in place of the row's LadderBot."""
    by_pk = {bot.pk: bot for bot in bots}
    return [{**asdict(row), **more, "bot": by_pk[row.bot.pk]} for row in rows]
