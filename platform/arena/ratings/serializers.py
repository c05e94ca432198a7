"""The API's shapes of the ladder and of a bot's rating history."""

from rest_framework import serializers

from arena.bots.serializers import BotSerializer


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
