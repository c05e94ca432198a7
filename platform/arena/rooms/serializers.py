from rest_framework import serializers

from arena.core.fields import JSONObjectField

from .models import Room


class ResultSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField(help_text="Games finished.")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    points = serializers.FloatField(help_text="1 a win, 0.5 a draw.")
    by_round = serializers.ListField(child=serializers.FloatField(allow_null=True),
                                     help_text="Points in each round; null for a round not played.")


class RoomSerializer(serializers.ModelSerializer):
    course = serializers.PrimaryKeyRelatedField(read_only=True)
    present = serializers.IntegerField(read_only=True, help_text="Students in the room now.")
    joined = serializers.BooleanField(read_only=True, help_text="Whether you are in the room (paired from the next round).")
    my_table = serializers.IntegerField(read_only=True, allow_null=True,
                                        help_text="The table of your game being played now, if any.")
    round_over = serializers.BooleanField(read_only=True, help_text="Every game of the last round has ended.")
    results = ResultSerializer(many=True, read_only=True)

    class Meta:
        model = Room
        fields = ["id", "course", "game", "config", "move_seconds", "builtin", "status", "rounds", "version",
                  "created_at", "closed_at", "present", "joined", "my_table", "round_over", "results"]
        read_only_fields = fields


class NewRoomSerializer(serializers.Serializer):
    course = serializers.IntegerField()
    game = serializers.CharField(max_length=40)
    config = JSONObjectField(required=False, help_text="The game's options (its defaults when left out).")
    move_seconds = serializers.FloatField(required=False, allow_null=True,
                                          help_text="A person's time per move in seconds (default 300; null: none).")
    builtin = serializers.CharField(max_length=40, required=False,
                                    help_text="The built-in bot for the odd student out (default: random).")
