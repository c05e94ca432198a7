"""The REST API: everything the pages do. Thin views over the apps' services and querysets."""

from django.contrib.auth import get_user_model
from django.db.models import Prefetch
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, extend_schema
from games import available_games, get_game
from games.core import ScoreOrder
from rest_framework import generics, mixins, parsers, permissions, status, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.accounts.access import courses_seen_by, match_visible, visible_matches, with_private_access
from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.bots.services import code_download, create_bot, upload_version
from arena.bots.validation import BotError, read_upload
from arena.matches.models import Match, MatchSeat
from arena.matches.replays import finished_view
from arena.matches import services as match_services
from arena.matches.services import TooManyInFlight
from arena.ratings.presentation import standing_rows, standings
from arena.ratings.services import history, team_ladder
from arena.variants.access import RulesSeen
from arena.variants.models import Variant
from arena.variants.services import VariantRefused, create_variant, delete_variant

from . import serializers
from arena.accounts.tokens import fresh_token
from arena.bots.permissions import CanSeePrivate
from arena.core.pagination import ASCII_NUMBER, RecentCountPagination
from arena.core.parsers import BoundedJSONParser
from arena.core.throttles import ChallengeThrottle, CredentialsAddressThrottle, RegisterThrottle, SignInThrottle, UploadThrottle

# Ids are 64-bit: a larger number, or anything but ASCII digits, is a 400 rather than a database error.
MAX_ID = 2**63 - 1
ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_ID}


def query_number(request, name: str, below: int = MAX_ID + 1) -> int | None:
    """The query parameter `name` as a number from 0 to below - 1; None if absent; else a 400."""
    text = request.query_params.get(name)
    if text is None:
        return None
    if not ASCII_NUMBER.fullmatch(text) or int(text) >= below:
        raise ValidationError({name: [f"{name} must be a whole number from 0 to {below - 1} (digits 0-9 only)"]})
    return int(text)


def game_info(game) -> dict:
    return {"name": game.name, "title": game.title, "min_players": game.min_players,
            "max_players": game.max_players, "builtin_bots": sorted(game.builtin_bots())}


class GameList(APIView):
    @extend_schema(responses=serializers.GameSerializer(many=True))
    def get(self, request):
        return Response([game_info(game) for _, game in sorted(available_games().items())])


class Register(generics.CreateAPIView):
    """Create a student account; the answer holds an API token."""

    permission_classes = [permissions.AllowAny]
    serializer_class = serializers.RegisterSerializer
    throttle_classes = [RegisterThrottle]

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = get_user_model().objects.create_user(**serializer.validated_data)
        token = Token.objects.create(user=user)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class ObtainToken(ObtainAuthToken):
    """Exchange a username and password for your API token (attempts are limited per address and account, and
    per address)."""

    parser_classes = [BoundedJSONParser, parsers.FormParser, parsers.MultiPartParser]
    throttle_classes = [SignInThrottle, CredentialsAddressThrottle]

    def post(self, request, *args, **kwargs):
        """Your token, a new one once it expired (ARENA_TOKEN_DAYS) or after a password change."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({"token": fresh_token(serializer.validated_data["user"]).key})


class CourseViewSet(viewsets.ReadOnlyModelViewSet):
    """The courses you teach or take, and their game variants."""

    serializer_class = serializers.CourseSerializer

    def get_queryset(self):
        user = self.request.user
        # The list is your own courses; a single one (and its variants) is also open to operators.
        courses = Course.objects.for_user(user) if self.action == "list" else courses_seen_by(user)
        return courses.order_by("code")

    @extend_schema(request={"application/json": serializers.NewVariantSerializer,
                            "multipart/form-data": serializers.NewVariantSerializer},
                   responses=serializers.VariantSerializer(many=True))
    @action(detail=True, methods=["get", "post"],
            parser_classes=[BoundedJSONParser, parsers.MultiPartParser, parsers.FormParser])
    def variants(self, request, pk=None):
        """GET: the course's game variants. POST (instructors): a new one from `config` (JSON) or a `file`."""
        course = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(course.variants.select_related("created_by"))
            return self.get_paginated_response(serializers.VariantSerializer(page, many=True).data)
        new = serializers.NewVariantSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        try:
            variant = create_variant(request.user, course, **new.validated_data)
        except VariantRefused as exc:
            raise ValidationError(exc.problems) from exc
        return Response(serializers.VariantSerializer(variant).data, status=status.HTTP_201_CREATED)


class VariantViewSet(mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """The game variants of the courses you teach or take; their instructors may delete them."""

    serializer_class = serializers.VariantSerializer

    def get_queryset(self):
        variants = Variant.objects.visible_to(self.request.user).select_related("created_by")
        game = self.request.query_params.get("game")
        return variants.filter(game=game) if game else variants

    @extend_schema(parameters=[OpenApiParameter("game", str, description="only variants of this game")])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def perform_destroy(self, instance):
        delete_variant(self.request.user, instance)


class BotViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Every bot is listed publicly; its versions, code and logs only to those who may see them."""

    serializer_class = serializers.BotSerializer

    def get_queryset(self):
        bots = Bot.objects.select_related("owner", "rating").with_active_version().order_by("game", "id")
        params = self.request.query_params
        if params.get("game"):
            bots = bots.for_game(params["game"])
        if params.get("mine") == "1":
            bots = bots.owned_by(self.request.user)
        if params.get("active") == "1":
            bots = bots.active()
        return bots

    @extend_schema(parameters=[
        OpenApiParameter("game", str, description="only bots of this game"),
        OpenApiParameter("mine", str, description="1: only your own bots"),
        OpenApiParameter("active", str, description="1: only bots that can play (built-ins, validated uploads)"),
    ])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def perform_create(self, serializer):
        serializer.instance = create_bot(self.request.user, serializer.validated_data["game"],
                                         serializer.validated_data["name"])

    @extend_schema(request={"multipart/form-data": serializers.UploadSerializer},
                   responses=serializers.VersionSerializer(many=True))
    @action(detail=True, methods=["get", "post"], parser_classes=[parsers.MultiPartParser, parsers.FormParser],
            permission_classes=[permissions.IsAuthenticated, CanSeePrivate], throttle_classes=[UploadThrottle])
    def versions(self, request, pk=None):
        """GET: all versions, newest first. POST (multipart, field `file`): upload a new version."""
        bot = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(bot.versions.order_by("-number"))
            return self.get_paginated_response(serializers.VersionSerializer(page, many=True).data)
        if bot.owner_id != request.user.pk:
            raise PermissionDenied("only the bot's owner can upload versions")
        upload = serializers.UploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        file = upload.validated_data["file"]
        try:
            version = upload_version(bot, read_upload(file), file.name)
        except BotError as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        return Response(serializers.VersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=serializers.RatingPointSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def ratings(self, request, pk=None):
        """The bot's rating after each of its rated matches."""
        return Response(serializers.RatingPointSerializer(history(self.get_object()), many=True).data)


class VersionViewSet(viewsets.ReadOnlyModelViewSet):
    """Versions you may see: your own (and, for course staff, those submitted to their course)."""

    serializer_class = serializers.VersionSerializer
    permission_classes = [permissions.IsAuthenticated, CanSeePrivate]

    def get_queryset(self):
        versions = BotVersion.objects.select_related("bot__owner")
        # The list is your own versions; a single one is shown to whoever may see its bot's code, and is
        # "not found" for anyone else, exactly like a version that does not exist.
        if self.action == "list":
            return versions.filter(bot__owner=self.request.user)
        return with_private_access(versions, self.request.user, "bot")

    @extend_schema(responses={(200, "text/x-python"): str})
    @action(detail=True)
    def code(self, request, pk=None):
        """Download the uploaded file."""
        return code_download(self.get_object())


class MatchViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Matches and their results are public, but for grading games and the games of a "results at the end"
    tournament still being played (accounts.access.match_visible); each seat's log only to those who may see
    that bot's code."""

    serializer_class = serializers.MatchSerializer
    throttle_classes = [ChallengeThrottle]
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
        try:
            match = match_services.challenge(request.user, data["bot"], data["opponents"], rated=data["rated"],
                                             variant=data.get("variant"))
        except TooManyInFlight as exc:  # as DRF's throttles say it (Throttled's wording); other refusals: arena.errors
            raise Throttled(wait=exc.retry_after, detail=str(exc)) from exc
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


@csrf_exempt  # it changes nothing, and must answer JSON whatever the method
def not_found(request, *args, **kwargs):
    """Any other path under /api/ (e.g. /api/bots/abc/): a JSON 404 like every API answer, not an HTML page."""
    return JsonResponse({"detail": "Not found."}, status=404)
