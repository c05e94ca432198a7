"""The API's shapes of the games on offer and the courses' variants of them."""

from games import available_games
from rest_framework import serializers

from .models import Variant


class GameField(serializers.ChoiceField):
    """A game's name. DRF builds each serializer's fields anew, so the choices are the games of that moment."""

    def __init__(self, **kwargs):
        super().__init__(choices=sorted(available_games()), **kwargs)


class GameSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    builtin_bots = serializers.ListField(child=serializers.CharField())


class VariantSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None,
                                       allow_null=True)

    class Meta:
        model = Variant
        fields = ["id", "course", "game", "name", "config", "created_by", "created_at"]
        read_only_fields = fields


class NewVariantSerializer(serializers.Serializer):
    game = GameField()
    name = serializers.CharField(max_length=60)
    config = serializers.JSONField(required=False, help_text="The options as a JSON object (JSON body), e.g. "
                                   "{\"robbery\": true, \"deck\": {...}}; or upload a file instead.")
    file = serializers.FileField(required=False, help_text="SortingGame: a deck as a JSON file (multipart); "
                                 "the variant's options become {\"deck\": <the file>}.")
