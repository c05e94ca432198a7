"""The API's shapes of bots and their versions."""

from rest_framework import serializers

from arena.variants.serializers import GameField

from .models import Bot, BotVersion


class VersionSummarySerializer(serializers.ModelSerializer):
    sha256 = serializers.SerializerMethodField(
        help_text="The owner's only (null for others): a hash lets anyone confirm a guess of the code. Whoever "
                  "may read the code finds it under /api/versions/.")

    class Meta:
        model = BotVersion
        fields = ["id", "number", "uploaded_at", "sha256"]

    def get_sha256(self, version) -> str | None:
        request = self.context.get("request")
        owner = request is not None and request.user.is_authenticated and version.bot.owner_id == request.user.pk
        return version.sha256 if owner else None


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True, default=None, allow_null=True,
                                  help_text="null for a built-in bot")
    active_version = VersionSummarySerializer(read_only=True, allow_null=True)
    rating = serializers.FloatField(source="rating.value", read_only=True, default=None, allow_null=True,
                                    help_text="null until the bot played a rated match")
    game = GameField()

    class Meta:
        model = Bot
        fields = ["id", "label", "name", "game", "owner", "is_builtin", "active_version", "rating", "created_at"]
        read_only_fields = ["created_at"]


class VersionSerializer(serializers.ModelSerializer):
    """A version as its owner sees it: with the validation verdict and log."""

    bot = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = BotVersion
        fields = ["id", "bot", "number", "filename", "sha256", "size", "uploaded_at", "status", "verdict",
                  "validation_log", "validation_match"]
        read_only_fields = fields


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The bot's .py file.")
