"""The API of pairing rooms: /api/rooms/ (see docs/reference.md, "Pairing rooms")."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from arena.accounts.access import attended_course, courses_seen_by
from arena.core.api import MAX_ID, query_number
from arena.core.downloads import csv_download

from . import serializers, services
from .models import Room
from .presentation import results_csv, room_view


class RoomViewSet(viewsets.GenericViewSet):
    """The pairing rooms of the courses you teach or take: the staff open and run them, the students join them
    and are paired round by round."""

    serializer_class = serializers.RoomSerializer
    budget_actions = ("start",)  # a round's games against the room's bot draw from the staff's budget: 429
    lookup_value_regex = r"[0-9]{1,19}"

    def get_queryset(self):
        rooms = Room.objects.filter(course__in=courses_seen_by(self.request.user).values("pk")).select_related("course")
        course = query_number(self.request, "course")
        return rooms if course is None else rooms.filter(course_id=course)

    def get_object(self) -> Room:
        return services.room_for(self.request.user, int(self.kwargs["pk"]))

    def _answer(self, room: Room, code=status.HTTP_200_OK) -> Response:
        room.refresh_from_db()
        return Response(self.get_serializer(room_view(room, self.request.user)).data, status=code)

    @extend_schema(parameters=[OpenApiParameter("course", int, description="only this course's rooms")])
    def list(self, request):
        """Rooms, newest first, with their results."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer([room_view(room, request.user) for room in page],
                                                               many=True).data)

    @extend_schema(request=serializers.NewRoomSerializer, responses={201: serializers.RoomSerializer})
    def create(self, request):
        """Staff: open a room of your course for a two-player game."""
        new = serializers.NewRoomSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        data = dict(new.validated_data)
        course = attended_course(request.user, data.pop("course") if data["course"] <= MAX_ID else -1)
        return self._answer(services.open_room(request.user, course, **data), status.HTTP_201_CREATED)

    def retrieve(self, request, pk=None):
        """The room: its rules, round, results table, whether you are in it and the table you play at now."""
        return self._answer(self.get_object())

    def _verb(self, verb) -> Response:
        room = self.get_object()
        verb(self.request.user, room)
        return self._answer(room)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def join(self, request, pk=None):
        """Students: join the room (you are paired from its next round)."""
        return self._verb(services.join)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def leave(self, request, pk=None):
        """Leave the room: no more rounds for you; the game you are playing is lost."""
        return self._verb(services.leave)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        """Staff: pair the next round among the students present (409 while the last round is played)."""
        return self._verb(services.start_round)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def close(self, request, pk=None):
        """Staff: close the room (no more rounds, nobody joins)."""
        return self._verb(services.close)

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True)
    def results(self, request, pk=None):
        """Staff: the results as CSV (name, games, wins, draws, losses, points, points by round)."""
        room = self.get_object()
        services.check_runs(request.user, room, "download its results")
        return csv_download(results_csv(room), f"room-{room.pk}-results.csv")
