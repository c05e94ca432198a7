"""The API of tables: open one, look at it (your seat's view and moves), move, leave, take an invitation."""

from django.db.models import Q
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from . import serializers, services
from .models import Table
from .presentation import table_state


class TableViewSet(viewsets.GenericViewSet):
    """Tables you opened or sit at. A table shows you your own seat's observation and legal moves; a table you
    only watch (you opened it for others, or staff or take its course), the public view."""

    serializer_class = serializers.TableSerializer
    budget_actions = ("create",)  # a table with bots draws from the opener's budget for bot work: 429
    lookup_value_regex = r"[0-9]{1,19}"

    def get_queryset(self):
        user = self.request.user
        return Table.objects.filter(Q(opened_by=user) | Q(seats__user=user)).distinct()

    def get_object(self) -> Table:
        return services.table_for(self.request.user, int(self.kwargs["pk"]))

    def list(self, request):
        """Your tables, newest first."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(request=serializers.OpenTableSerializer, responses={201: dict})
    def create(self, request):
        """Open a table: the game, one entry per seat (you, a built-in, a bot of yours or a classmate's, a
        person by an invitation link), options and a person's time per move."""
        opening = serializers.OpenTableSerializer(data=request.data, context={"request": request})
        opening.is_valid(raise_exception=True)
        data = opening.validated_data
        table = services.open_table(request.user, data["game"], data["seat_choices"], config=data["config"],
                                    move_seconds=data["move_seconds"], course=data.get("course"))
        return Response(table_state(table, request.user), status=status.HTTP_201_CREATED)

    @extend_schema(responses=dict)
    def retrieve(self, request, pk=None):
        """The table as you see it: your seat's observation, whose move, the time left, your legal moves."""
        return Response(table_state(self.get_object(), request.user))

    @extend_schema(request=serializers.MoveSerializer, responses=dict)
    @action(detail=True, methods=["post"])
    def move(self, request, pk=None):
        """Play one of your `choices`' actions for the `turn` you saw: a move for a turn that is over (a second
        tab, a double click) is refused (409), an illegal one too (400), recording nothing."""
        table = self.get_object()
        played = serializers.MoveSerializer(data=request.data)
        played.is_valid(raise_exception=True)
        services.move(table, request.user, played.validated_data["turn"], played.validated_data["action"])
        return Response(table_state(table, request.user))

    @extend_schema(request=None, responses=dict)
    @action(detail=True, methods=["post"])
    def leave(self, request, pk=None):
        """Leave the game for good: your seat ends with the verdict `timeout`."""
        table = self.get_object()
        services.leave(table, request.user)
        return Response(table_state(table, request.user))

    @extend_schema(request=serializers.JoinSerializer, responses=dict)
    @action(detail=False, methods=["post"])
    def join(self, request):
        """Take the seat an invitation link offers (its token)."""
        joining = serializers.JoinSerializer(data=request.data)
        joining.is_valid(raise_exception=True)
        table = services.join(joining.validated_data["token"], request.user)
        return Response(table_state(table, request.user))
