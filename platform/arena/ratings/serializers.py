"""The API's shapes of the ladder and of a bot's rating history."""

from rest_framework import serializers

from arena.bots.serializers import BotSerializer


class LadderRowSerializer(serializers.Serializer):
    measure = serializers.ChoiceField(
        choices=["skill", "team-skill"],
        help_text="skill: Weng-Lin (OpenSkill Plackett-Luce) rating from the rated matches the platform chose; "
                  "team-skill: a cooperative game, each match rated as the team's result against the game's exact "
                  "optimum.")
    rank = serializers.IntegerField(allow_null=True, help_text="Null for a provisional bot (sigma above "
                                                               "ARENA_PROVISIONAL_SIGMA): listed after the ranked.")
    provisional = serializers.BooleanField(help_text="Not ranked yet, as the ladder page lists it apart.")
    bot = BotSerializer()
    rating = serializers.FloatField(help_text="mu - k sigma, the conservative estimate the ladder orders by.")
    mu = serializers.FloatField(help_text="Skill estimate.")
    sigma = serializers.FloatField(help_text="Uncertainty of mu.")
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()


class RatingPointSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
