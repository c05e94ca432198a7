"""The API of the ladders."""

from drf_spectacular.utils import extend_schema
from games import get_game
from games.core import ScoreOrder
from rest_framework import generics
from rest_framework.exceptions import NotFound

from . import serializers
from .presentation import standing_rows, standings
from .services import team_ladder


class Ladder(generics.GenericAPIView):
    """The game's ladder, best first, a page at a time: `rank` counts from the top of the whole ladder."""

    serializer_class = serializers.LadderRowSerializer

    @extend_schema(responses=serializers.LadderRowSerializer(many=True))  # a list: paginated in the schema too
    def get(self, request, game):
        try:
            rules = get_game(game)
        except KeyError as exc:
            raise NotFound(str(exc)) from exc
        if rules.cooperative:  # ranked in Python over every match (services.team_ladder): paged as a list
            lower = rules.score_order == ScoreOrder.LOWER_IS_BETTER
            rows = [{**row, "measure": "average-score", "rating": None, "lower_is_better": lower, "draws": 0,
                     "provisional": not row["played"]} for row in self.paginate_queryset(team_ladder(game))]
        else:  # as the ladder page: ranked bots first, then the provisional ones, unranked
            page = self.paginate_queryset(standings(game).with_active_version())
            first = self.paginator.page.start_index()
            rows = [{**row, "measure": "elo", "provisional": row["bot"].provisional}
                    for row in standing_rows(page, first_place=first)]
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)
