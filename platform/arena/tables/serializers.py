"""The API's shapes of tables: opening one (its seats), a move, an invitation taken, a table in a list."""

from games import available_games
from games.table import DEFAULT_MOVE_SECONDS, MAX_MOVE_SECONDS
from rest_framework import serializers

from arena.accounts.access import courses_seen_by, seatable_bots
from arena.bots.models import Bot
from arena.core.ids import id_field

from .models import Table
from .services import SeatChoice

# The most seats a table may have (no game takes more; a bound before the game is asked).
MAX_SEATS = 16
SEAT_KINDS = {
    "me": "you play this seat",
    "invite": "a person who takes the seat by its invitation link",
    "builtin": "a built-in bot, named by `builtin`",
    "bot": "a bot by its id (`bot`): yours, or a classmate's active bot",
}


class SeatRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(SEAT_KINDS.items()))
    builtin = serializers.CharField(required=False, max_length=40, help_text="for kind builtin: the bot's name")
    bot = id_field(required=False, help_text="for kind bot")


class OpenTableSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=sorted(available_games()))
    seats = serializers.ListField(child=SeatRequestSerializer(), min_length=1, max_length=MAX_SEATS)
    config = serializers.DictField(required=False, default=dict, help_text="the game's options (its defaults fill the rest)")
    move_seconds = serializers.FloatField(required=False, allow_null=True, default=DEFAULT_MOVE_SECONDS, min_value=1,
                                          max_value=MAX_MOVE_SECONDS, help_text="a person's time per move; null: no limit")
    course = id_field(required=False, allow_null=True,
                                      help_text="a course you take or teach: its staff and students may watch the table")

    def validate(self, data):
        user = self.context["request"].user
        data["seat_choices"] = [self._choice(user, data["game"], seat) for seat in data["seats"]]
        if data.get("course") is not None:
            data["course"] = courses_seen_by(user).filter(pk=data["course"]).first()
            if data["course"] is None:
                raise serializers.ValidationError({"course": "not a course you take"})
        return data

    @staticmethod
    def _choice(user, game: str, seat: dict) -> SeatChoice:
        kind = seat["kind"]
        if kind == "me":
            return SeatChoice(user=user)
        if kind == "invite":
            return SeatChoice(invite=True)
        if kind == "builtin":
            bot = Bot.objects.filter(game=game, owner__isnull=True, builtin_name=seat.get("builtin", "")).first()
        else:
            bot = seatable_bots(user, game).filter(pk=seat.get("bot", 0)).first()
        if bot is None:
            raise serializers.ValidationError({"seats": f"no {kind} bot {seat.get('builtin') or seat.get('bot')!r} "
                                                        f"you may seat at a table of {game}"})
        return SeatChoice(bot=bot)


class MoveSerializer(serializers.Serializer):
    turn = serializers.IntegerField(min_value=0, max_value=2**31, help_text="the table's turn your move answers")
    action = serializers.JSONField(help_text="one of the `choices`' actions")


class JoinSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=64, help_text="the invitation link's last part")


class TableSerializer(serializers.ModelSerializer):
    players = serializers.SerializerMethodField()

    class Meta:
        model = Table
        fields = ["id", "game", "status", "move_seconds", "winners", "players", "created_at", "updated_at"]

    def get_players(self, table) -> list[str]:
        return [seat["name"] for seat in table.facts["seats"]]
