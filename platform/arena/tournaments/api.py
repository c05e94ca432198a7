"""REST API of tournaments: /api/tournaments/ and its actions (see docs/platform-api.md)."""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response

from arena.accounts.access import teaches

from . import serializers, services
from .models import Entrant, Tournament
from .permissions import SteersTournament
from .presentation import overview


class TournamentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Tournaments of the courses you teach or take (drafts: their instructors only)."""

    serializer_class = serializers.TournamentSerializer
    permission_classes = [permissions.IsAuthenticated, SteersTournament]

    def get_queryset(self):
        return (Tournament.objects.visible_to(self.request.user)
                .select_related("course", "champion__bot__owner").order_by("-id"))

    def _view(self, tournament):
        tournament.view = overview(tournament, self.request.user)
        return tournament

    def get_object(self):
        return self._view(super().get_object())

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer([self._view(t) for t in page], many=True).data)

    @extend_schema(request=serializers.NewTournamentSerializer, responses={201: serializers.TournamentSerializer})
    def create(self, request, *args, **kwargs):
        """Instructors: a draft tournament of one of their courses."""
        new = serializers.NewTournamentSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        data = dict(new.validated_data)
        course = data.pop("course")
        if not teaches(request.user, course):
            raise PermissionDenied("only the course's instructors can create its tournaments")
        tournament = services.create_tournament(request.user, course, **data)
        return Response(self.get_serializer(self._view(tournament)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=serializers.NewEntrantSerializer, responses={201: serializers.TournamentSerializer})
    @action(detail=True, methods=["post"])
    def entrants(self, request, pk=None):
        """Enter a bot (a course member's or a built-in) in a draft tournament; someone else's bot is only
        requested (`consent`) until its owner accepts it (/api/entry-requests/)."""
        tournament = self.get_object()
        new = serializers.NewEntrantSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        services.add_entrant(request.user, tournament, new.validated_data["bot"], new.validated_data.get("seed"))
        return Response(self.get_serializer(self.get_object()).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=serializers.CourseEntrantsSerializer, responses={201: serializers.TournamentSerializer})
    @action(detail=True, methods=["post"], url_path="entrants/course")
    def course_entrants(self, request, pk=None):
        """Enter every bot of the game that the course's students and instructors own (`builtins`: the
        built-ins too), but those already entered, while a draft; the others' bots are requested from their owners."""
        tournament = self.get_object()
        options = serializers.CourseEntrantsSerializer(data=request.data)
        options.is_valid(raise_exception=True)
        services.add_course_bots(request.user, tournament, builtins=options.validated_data["builtins"])
        return Response(self.get_serializer(self.get_object()).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["post"])
    def discard(self, request, pk=None):
        """Delete a draft (a started tournament is cancelled instead)."""
        services.discard(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _steer(self, verb):
        tournament = self.get_object()
        verb(self.request.user, tournament)
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        """Freeze the entrants and their versions, seed them, and play the first round."""
        return self._steer(services.start)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request, pk=None):
        """Queue no more games (running ones finish); resume carries on."""
        return self._steer(services.pause)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        return self._steer(services.resume)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """End without a champion; queued and running games are cancelled."""
        return self._steer(services.cancel)

    @extend_schema(request=None, responses=serializers.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def replay(self, request, pk=None):
        """Play the games set aside by a platform fault again, once fixed: the series they hold go on."""
        return self._steer(services.replay_set_aside)

    @extend_schema(responses=serializers.SeriesSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def series(self, request, pk=None):
        """Every series known so far, future bracket slots included, in play order."""
        return Response(serializers.SeriesSerializer(self.get_object().view["series"], many=True).data)

    @extend_schema(responses=serializers.RoundSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def rounds(self, request, pk=None):
        """The series grouped by round."""
        return Response(serializers.RoundSerializer(self.get_object().view["rounds"], many=True).data)

    @extend_schema(responses=serializers.StandingSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def standings(self, request, pk=None):
        """The entrants ranked on the results so far, with the format's tie-breaks."""
        return Response(serializers.StandingSerializer(self.get_object().view["standings"], many=True).data)

    @extend_schema(responses=serializers.BracketSerializer)
    @action(detail=True, pagination_class=None)
    def bracket(self, request, pk=None):
        """Elimination formats: every series placed for drawing, with the connector lines (404 otherwise)."""
        bracket = self.get_object().view["bracket"]
        if bracket is None:
            raise NotFound("this tournament has no bracket (not an elimination format, or results not released)")
        return Response(serializers.BracketSerializer(bracket).data)


class EntryRequestViewSet(viewsets.ReadOnlyModelViewSet):
    """The entries of your bots in tournaments not started yet: an entry someone else made plays only once you
    accept it (accounts.access.entry_consent); you may change your answer until the tournament starts."""

    serializer_class = serializers.EntryRequestSerializer
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reads the model, as nobody
            return Entrant.objects.none()
        return services.entry_requests(self.request.user)

    def _answer(self, accept: bool):
        entrant = services.answer_entry(self.request.user, self.get_object(), accept)
        return Response(self.get_serializer(entrant).data)

    @extend_schema(request=None, responses=serializers.EntryRequestSerializer)
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        """Let your bot play in the tournament (its course's staff then see its code, versions and logs)."""
        return self._answer(True)

    @extend_schema(request=None, responses=serializers.EntryRequestSerializer)
    @action(detail=True, methods=["post"])
    def decline(self, request, pk=None):
        """Keep your bot out of the tournament."""
        return self._answer(False)
