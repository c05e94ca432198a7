"""The API of bots and their versions: listed publicly, code and logs only to those who may see them."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, parsers, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from arena.accounts.access import with_private_access
from arena.core.throttles import UploadThrottle
from arena.ratings.serializers import RatingPointSerializer
from arena.ratings.services import history

from . import serializers
from .models import Bot, BotVersion
from .permissions import CanSeePrivate
from .services import code_download, create_bot, upload_version
from .validation import BotError, read_upload


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

    @extend_schema(responses=RatingPointSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def ratings(self, request, pk=None):
        """The bot's rating after each of its rated matches."""
        return Response(RatingPointSerializer(history(self.get_object()), many=True).data)


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
