from rest_framework import serializers

from arena.accounts.models import Course
from arena.core.fields import JSONObjectField
from arena.bots.models import Bot
from arena.variants.models import Variant

from .models import MAX_SPECTATOR_DELAY, Entrant, Tournament


class EntrantSerializer(serializers.Serializer):
    seed = serializers.IntegerField(allow_null=True, help_text="0 = top seed; set at the start.")
    bot = serializers.IntegerField()
    label = serializers.CharField()
    version = serializers.IntegerField(allow_null=True, help_text="The version number frozen at the start.")
    withdrawn = serializers.CharField(help_text="Why the entrant was withdrawn at the start; empty if it plays.")
    consent = serializers.ChoiceField(choices=Entrant.Consent.choices,
                                      help_text="The bot's owner's answer: only an accepted entry plays; the others "
                                                "are dropped at the start.")


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Series decided by play.")
    running = serializers.IntegerField()
    queued = serializers.IntegerField()
    held = serializers.IntegerField(help_text="Series waiting for a game set aside by a platform fault.")
    expected = serializers.IntegerField(help_text="The most series the whole tournament plays, from its format "
                                                  "(the series played, once finished).")
    problem = serializers.CharField(help_text="A draft whose settings cannot run with its entrants: why; else empty.")
    percent = serializers.IntegerField()
    seconds_left = serializers.IntegerField(allow_null=True, help_text="Estimated from the pace so far.")


class TournamentSerializer(serializers.ModelSerializer):
    course = serializers.PrimaryKeyRelatedField(read_only=True)
    entrants = EntrantSerializer(many=True, read_only=True, source="view.entrants")
    progress = ProgressSerializer(read_only=True, source="view.progress")
    champion = serializers.CharField(read_only=True, allow_null=True, source="view.champion",
                                     help_text="The champion's bot once finished, or the joint winners' (\"A and B\") when round robin or Swiss "
                                               "ends level after every tie-break; hidden until the end for at-end results.")

    class Meta:
        model = Tournament
        fields = ["id", "course", "name", "game", "config", "variant", "format", "players_per_game",
                  "games_per_series", "rounds", "advance", "rated", "visibility", "seeding", "spectator_delay", "status", "note",
                  "created_at", "started_at", "finished_at", "champion", "entrants", "progress"]
        read_only_fields = fields


class NewTournamentSerializer(serializers.Serializer):
    course = serializers.PrimaryKeyRelatedField(queryset=Course.objects.all())
    name = serializers.CharField(max_length=120)
    game = serializers.CharField(max_length=40)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    games_per_series = serializers.IntegerField(min_value=1, max_value=50, default=2)
    players_per_game = serializers.IntegerField(min_value=2, max_value=6, required=False,
                                                help_text="Heats: the pod size (3-6).")
    rounds = serializers.IntegerField(min_value=1, max_value=50, required=False, help_text="Swiss: rounds to play.")
    advance = serializers.IntegerField(min_value=1, max_value=5, required=False,
                                       help_text="Heats: how many of each pod go on.")
    config = JSONObjectField(required=False, default=dict, help_text="Game options (a JSON object).")
    variant = serializers.PrimaryKeyRelatedField(queryset=Variant.objects.all(), required=False, allow_null=True)
    rated = serializers.BooleanField(default=False, help_text="Whether its matches change Elo (default no).")
    visibility = serializers.ChoiceField(choices=Tournament.Visibility.choices, default=Tournament.Visibility.LIVE)
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, default=Tournament.Seeding.RATING)
    spectator_delay = serializers.IntegerField(min_value=0, max_value=MAX_SPECTATOR_DELAY, default=0,
                                               help_text="Moves spectators are held back while a game is played.")


class NewEntrantSerializer(serializers.Serializer):
    bot = serializers.PrimaryKeyRelatedField(queryset=Bot.objects.all())
    seed = serializers.IntegerField(min_value=0, required=False, allow_null=True,
                                    help_text="Only for seeding by hand: 0 = top seed.")


class CourseEntrantsSerializer(serializers.Serializer):
    builtins = serializers.BooleanField(default=False, help_text="Enter the game's built-in bots too.")


class SeriesGameSerializer(serializers.Serializer):
    """One game of a series: its match, the entrants in seat order and how it ended."""
    index = serializers.IntegerField()
    match = serializers.IntegerField()
    status = serializers.CharField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Entrant seeds in seat order.")
    scores = serializers.ListField(child=serializers.FloatField(allow_null=True), allow_null=True)
    statuses = serializers.ListField(child=serializers.CharField(), allow_null=True)
    winners = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


class SeriesEntrantSerializer(serializers.Serializer):
    seed = serializers.IntegerField(allow_null=True, help_text="Null: the slot is not known yet.")
    label = serializers.CharField(allow_null=True)


class SeriesSerializer(serializers.Serializer):
    key = serializers.CharField()
    round = serializers.IntegerField()
    bracket = serializers.CharField(allow_null=True)
    entrants = SeriesEntrantSerializer(many=True)
    bye = serializers.BooleanField()
    walkover = serializers.BooleanField()
    advance = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["waiting", "queued", "running", "held", "decided"],
                                     help_text="held: a game was set aside by a platform fault; the series waits "
                                               "until the staff play it again.")
    note = serializers.CharField(help_text="\"incomplete: platform error\" while held.")
    winner = serializers.IntegerField(allow_null=True)
    placings = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    points = serializers.DictField(child=serializers.FloatField(), allow_null=True)
    game_points = serializers.DictField(child=serializers.FloatField(), allow_null=True,
                                        help_text="Seed -> game points in the series (win 1, draw 1/2); null "
                                                  "until decided by play.")
    tiebreak = serializers.CharField(help_text="What separated entrants level on game points: total points, more "
                                               "games, higher seed; empty when nothing had to.")
    winner_to = serializers.CharField(allow_null=True)
    loser_to = serializers.CharField(allow_null=True)
    games = SeriesGameSerializer(many=True)


class RoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    name = serializers.CharField(help_text="e.g. Winners' round 2, Losers' round 3, Grand final, Final table.")
    series = SeriesSerializer(many=True)


class StandingSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    label = serializers.CharField()
    place = serializers.IntegerField()
    points = serializers.FloatField()
    tiebreaks = serializers.DictField(child=serializers.FloatField())


class BracketBoxSerializer(serializers.Serializer):
    x = serializers.IntegerField()
    y = serializers.IntegerField()
    series = SeriesSerializer()


class BracketSerializer(serializers.Serializer):
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    box_width = serializers.IntegerField()
    box_height = serializers.IntegerField()
    boxes = BracketBoxSerializer(many=True)
    lines = serializers.ListField(child=serializers.CharField(), help_text="SVG path data of the connectors.")


class EntryRequestSerializer(serializers.ModelSerializer):
    """An entry of one of your bots in a tournament not started yet: accept or decline it."""
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    tournament_name = serializers.CharField(source="tournament.name", read_only=True)
    course = serializers.CharField(source="tournament.course.name", read_only=True)

    class Meta:
        model = Entrant
        fields = ["id", "tournament", "tournament_name", "course", "bot", "bot_name", "consent", "added_at"]
        read_only_fields = fields
