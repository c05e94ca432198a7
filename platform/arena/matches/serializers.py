from functools import cached_property

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils import timezone
from games import available_games
from rest_framework import serializers

from arena.accounts.access import can_see_private, bots_with_private_access
from arena.accounts.usernames import clean_username
from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match, MatchSeat
from arena.variants.access import RulesSeen
from arena.variants.models import Variant


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


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{1,150}$")
    password = serializers.CharField(write_only=True)

    def validate_username(self, value):
        try:
            return clean_username(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc

    def validate(self, data):
        validate_password(data["password"], get_user_model()(username=data["username"]))
        return data


class CourseSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Course
        fields = ["id", "code", "name", "role"]

    def get_role(self, course) -> str:
        user = self.context["request"].user
        return "instructor" if course.instructors.filter(pk=user.pk).exists() else "student"


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


class SeatSerializer(serializers.ModelSerializer):
    bot_label = serializers.CharField(source="bot.label", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True, default=None, allow_null=True,
                                       help_text="null for a built-in bot")
    detail = serializers.SerializerMethodField(
        help_text="The referee's note on the bot's failure (it may quote the bot's own error message): only for "
                  "those who may see its code.")
    log = serializers.SerializerMethodField(help_text="The bot's stderr: only for those who may see its code.")

    class Meta:
        model = MatchSeat
        fields = ["seat", "bot", "bot_label", "version", "score", "placing", "status", "detail", "log",
                  "think_time", "decisions", "rating_before", "rating_after"]

    def _private(self, seat) -> bool:
        return can_see_private(self.context["request"].user, seat.bot)

    def get_detail(self, seat) -> str | None:
        return seat.detail if self._private(seat) else None

    def get_log(self, seat) -> str | None:
        return seat.log if self._private(seat) else None


class MatchListSerializer(serializers.ListSerializer):
    """A page of matches, each exactly as MatchSerializer answers it alone (tests/platform/test_api.py compares
    them), but built from plain values read in three queries for the whole page: a ModelSerializer per match
    and per seat, over model instances of every seat's bot, owner and version, made the match list the
    costliest read of the API (30 ms of CPU a page at 100,000 matches, bench/load_run.py)."""

    SEAT_VALUES = ("id", "match_id", "seat", "bot_id", "bot__builtin_name", "bot__owner_id", "bot__owner__username",
                   "bot__name", "version__number", "score", "placing", "status", "think_time", "decisions",
                   "rating_before", "rating_after")
    def to_representation(self, matches):
        matches = list(matches)
        seats = self._seats(matches)
        rules_seen = RulesSeen(self.context["request"].user)
        positions = Match.objects.queue_positions(matches)  # in one query for the page
        # The API's one format for times, as MatchSerializer's own fields give it, in the zone looked up once:
        # a field without one asks for the current zone for each of the page's 75 times (2 ms a page).
        time = serializers.DateTimeField(default_timezone=timezone.get_current_timezone()).to_representation
        rows = []
        for match in matches:
            shown = rules_seen(match)
            rows.append({
                "id": match.pk, "game": match.game, "purpose": match.purpose, "rated": match.rated,
                "status": match.status, "queue_position": positions.get(match.pk), "seed": match.public_seed,
                "config": match.config if shown else None, "variant": match.variant_id if shown else None,
                **{name: getattr(match, name) and time(getattr(match, name))
                   for name in ("created_at", "started_at", "finished_at")},
                "winners": match.winners, "error": match.error, "seats": seats.get(match.pk, []),
            })
        return rows

    def _seats(self, matches) -> dict[int, list[dict]]:
        """{match id: its seats' rows}; a seat's failure note and stderr only where the viewer may see them."""
        values = list(MatchSeat.objects.filter(match__in=matches).order_by("seat").values(*self.SEAT_VALUES))
        private_bots = bots_with_private_access(self.context["request"].user,
                                                {value["bot_id"]: value["bot__owner_id"] for value in values})
        private = MatchSeat.objects.private_text(
            [value["id"] for value in values if value["bot_id"] in private_bots])
        seats: dict[int, list[dict]] = {}
        for value in values:
            detail, log = private.get(value["id"], (None, None))
            seats.setdefault(value["match_id"], []).append({
                "seat": value["seat"], "bot": value["bot_id"],
                "bot_label": Bot.label_of(value["bot__builtin_name"], value["bot__owner__username"], value["bot__name"]),
                "version": value["version__number"], "score": value["score"], "placing": value["placing"],
                "status": value["status"], "detail": detail, "log": log, "think_time": value["think_time"],
                "decisions": value["decisions"], "rating_before": value["rating_before"],
                "rating_after": value["rating_after"],
            })
        return seats


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    queue_position = serializers.SerializerMethodField(help_text="1 = next to run; null unless queued.")
    seed = serializers.SerializerMethodField(
        help_text="All chance in the match (a card game's every hand) comes from it: null until it finished.")

    class Meta:
        model = Match
        fields = ["id", "game", "purpose", "rated", "status", "queue_position", "seed", "config", "variant",
                  "created_at", "started_at", "finished_at", "winners", "error", "seats"]
        list_serializer_class = MatchListSerializer
        extra_kwargs = {
            "config": {"allow_null": True,
                       "help_text": "The options played; null for a match on a variant of a course you do not take."},
            "variant": {"help_text": "The course variant played, if any; null too for a course you do not take."},
        }

    def get_queue_position(self, match) -> int | None:
        return match.queue_position()

    def get_seed(self, match) -> int | None:
        return match.public_seed

    def to_representation(self, match):
        data = super().to_representation(match)
        if not self._rules_seen(match):
            data["config"] = data["variant"] = None
        return data

    @cached_property
    def _rules_seen(self) -> RulesSeen:
        # One instance serves a whole list (the ListSerializer's child): one query for any number of matches.
        return RulesSeen(self.context["request"].user)


class ChallengeSerializer(serializers.Serializer):
    bot = serializers.PrimaryKeyRelatedField(queryset=Bot.objects.all(), help_text="Your own active bot.")
    opponents = serializers.PrimaryKeyRelatedField(
        queryset=Bot.objects.all(), many=True, help_text="Active bots (or built-ins) to play against."
    )
    rated = serializers.BooleanField(default=False)
    variant = serializers.PrimaryKeyRelatedField(
        queryset=Variant.objects.none(), required=False, allow_null=True,
        error_messages={"does_not_exist": "no variant {pk_value} among your courses' variants"},
        help_text="A variant of a course you take: its rules instead of the standard ones (never rated).",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Another course's variant is answered like one that does not exist: its existence is private.
        request = self.context.get("request")
        if request is not None:
            self.fields["variant"].queryset = Variant.objects.visible_to(request.user)


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


class LadderRowSerializer(serializers.Serializer):
    measure = serializers.ChoiceField(
        choices=["elo", "average-score"],
        help_text="elo: ranked by Elo rating; average-score: a cooperative game, ranked by the average team score "
                  "over the bot's matches (lower_is_better says which way).")
    rank = serializers.IntegerField(allow_null=True, help_text="Null for a provisional bot: fewer than "
                                                               "ARENA_PROVISIONAL_GAMES rated matches (Elo), or no "
                                                               "match yet (cooperative games); listed after the ranked.")
    provisional = serializers.BooleanField(help_text="Not ranked yet, as the ladder page lists it apart.")
    bot = BotSerializer()
    rating = serializers.FloatField(allow_null=True, help_text="Elo; null for a cooperative game.")
    average_score = serializers.FloatField(allow_null=True, required=False,
                                           help_text="Cooperative games: the average team score; null before any match.")
    lower_is_better = serializers.BooleanField(required=False)
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField(required=False)
    losses = serializers.IntegerField()


class RatingPointSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
