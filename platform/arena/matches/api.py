"""The API of matches: challenges, results, seats and replays."""

from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from arena.accounts.access import match_visible, visible_matches
from arena.core.api import ID_SCHEMA, query_number
from arena.core.pagination import RecentCountPagination
from arena.variants.access import RulesSeen

from . import serializers, services as match_services
from .models import Match, MatchSeat
from .replays import finished_view


class MatchViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Matches and their results are public, but for grading games and the games of a "results at the end"
    tournament still being played (accounts.access.match_visible); each seat's log only to those who may see
    that bot's code."""

    serializer_class = serializers.MatchSerializer
    budget_actions = ("create",)  # a challenge draws from the user's budget for bot work (arena.core.budget): 429
    pagination_class = RecentCountPagination

    def get_queryset(self):
        matches = Match.objects.all()
        if self.action != "list":  # a list reads its seats' plain values (MatchListSerializer)
            # The seats in one query (a prefetch each for bots, owners and versions cost a quarter of a page's
            # time), in seat order (the model's order by match would join the match table again).
            matches = matches.prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.shown().order_by("seat")))
        if self.action != "replay":  # the replay, the widest column by far, is the replay action's alone
            matches = matches.without_replay()
        params = self.request.query_params
        bot = query_number(self.request, "bot") if self.action == "list" else None
        if bot is not None:
            matches = matches.filter(seats__bot_id=bot).distinct()
        if params.get("mine") == "1":
            matches = matches.filter(seats__bot__owner=self.request.user).distinct()
        return visible_matches(matches, self.request.user) if self.action == "list" else matches

    def get_object(self):
        match = super().get_object()
        if not match_visible(self.request.user, match):
            raise NotFound("no such match")
        return match

    @extend_schema(parameters=[OpenApiParameter("bot", ID_SCHEMA, description="only matches this bot played"),
                               OpenApiParameter("mine", str, description="1: only matches of your bots")])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=serializers.ChallengeSerializer, responses={201: serializers.MatchSerializer})
    def create(self, request, *args, **kwargs):
        """Challenge: your active bot against other active bots (or built-ins), rated or not, or unrated
        with a `variant` of a course you take."""
        challenge = serializers.ChallengeSerializer(data=request.data, context={"request": request})
        challenge.is_valid(raise_exception=True)
        data = challenge.validated_data
        # Over the user's budget for bot work: OverBudget, a 429 with Retry-After (arena.core.errors).
        match = match_services.challenge(request.user, data["bot"], data["opponents"], rated=data["rated"],
                                         variant=data.get("variant"))
        return Response(self.get_serializer(match).data, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[OpenApiParameter("seat", {"type": "integer", "minimum": 0},
                                                description="one seat's view (default: full view)")],
                   responses=dict)
    @action(detail=True)
    def replay(self, request, pk=None):
        """The replay, every step's table, and the solver's analysis of every move."""
        match = self.get_object()
        if match.status != Match.Status.FINISHED:
            raise NotFound("the match has not finished")
        if not RulesSeen(request.user)(match):
            raise NotFound("this match was played on a course's own rules: its replay is that course's")
        seat = query_number(request, "seat", below=match.seats.count())
        return Response({"replay": match.replay, **finished_view(match, seat)})
