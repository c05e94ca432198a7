"""The API's shapes of matches, their seats and challenges."""

from functools import cached_property

from django.utils import timezone
from rest_framework import serializers

from arena.accounts.access import bots_with_private_access, can_see_private
from arena.bots.models import Bot
from arena.variants.access import RulesSeen
from arena.variants.models import Variant

from .models import Match, MatchSeat
from .services import RATED_CHALLENGE_REFUSED


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
    rated = serializers.BooleanField(
        default=False, help_text="Must be false (or left out): a challenge is unrated practice; the platform "
                                 "chooses the ladder's rated matches.")
    variant = serializers.PrimaryKeyRelatedField(
        queryset=Variant.objects.none(), required=False, allow_null=True,
        error_messages={"does_not_exist": "no variant {pk_value} among your courses' variants"},
        help_text="A variant of a course you take: its rules instead of the standard ones (never rated).",
    )

    def validate_rated(self, rated: bool) -> bool:
        if rated:
            raise serializers.ValidationError(RATED_CHALLENGE_REFUSED)
        return rated

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Another course's variant is answered like one that does not exist: its existence is private.
        request = self.context.get("request")
        if request is not None:
            self.fields["variant"].queryset = Variant.objects.visible_to(request.user)
