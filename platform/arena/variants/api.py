"""The API of the games on offer and of the courses' variants of them."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from games import available_games
from rest_framework import mixins, viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from . import serializers
from .models import Variant
from .services import delete_variant


def game_info(game) -> dict:
    info = game.info()
    return {"name": info.name, "title": info.title, "min_players": info.min_players,
            "max_players": info.max_players, "builtin_bots": list(info.builtin_bots)}


class GameList(APIView):
    @extend_schema(responses=serializers.GameSerializer(many=True))
    def get(self, request):
        return Response([game_info(game) for _, game in sorted(available_games().items())])


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
