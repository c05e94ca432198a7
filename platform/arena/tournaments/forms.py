from django import forms
from games import available_games

from arena.bots.models import Bot
from arena.variants.models import Variant

from .models import MAX_SPECTATOR_DELAY, Tournament


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=120)
    game = forms.ChoiceField()
    variant = forms.ModelChoiceField(queryset=Variant.objects.none(), required=False, empty_label="standard rules",
                                     label="Rules", help_text="A variant of this course (never rated).")
    format = forms.ChoiceField(choices=Tournament.Format.choices)
    games_per_series = forms.IntegerField(min_value=1, max_value=50, initial=2, label="Games per series",
                                          help_text="Rounded up so every bot takes every seat equally often.")
    players_per_game = forms.IntegerField(min_value=3, max_value=6, required=False, label="Pod size",
                                          help_text="Heats only: bots at each table.")
    advance = forms.IntegerField(min_value=1, max_value=5, required=False, label="Advance",
                                 help_text="Heats only: how many of each pod go on.")
    rounds = forms.IntegerField(min_value=1, max_value=50, required=False, help_text="Swiss only.")
    seeding = forms.ChoiceField(choices=Tournament.Seeding.choices, initial=Tournament.Seeding.RATING)
    visibility = forms.ChoiceField(choices=Tournament.Visibility.choices, initial=Tournament.Visibility.LIVE)
    rated = forms.BooleanField(required=False, help_text="Its matches change the ladder's ratings.")
    spectator_delay = forms.IntegerField(min_value=0, max_value=MAX_SPECTATOR_DELAY, initial=0, required=False,
                                         label="Spectator delay",
                                         help_text="Moves spectators are held back while a game is played (0: live).")

    def __init__(self, *args, course, **kwargs):
        super().__init__(*args, **kwargs)
        # A cooperative game has no format here (services.create_tournament says why, and what to use instead).
        self.fields["game"].choices = [(name, game.title) for name, game in sorted(available_games().items())
                                       if not game.cooperative]
        self.fields["variant"].queryset = course.variants.all()

    def cleaned_options(self) -> dict:
        """The form's values as services.create_tournament takes them (empty optional fields left out)."""
        return {key: value for key, value in self.cleaned_data.items() if value is not None}


class EntrantForm(forms.Form):
    bot = forms.ModelChoiceField(queryset=Bot.objects.none())
    seed = forms.IntegerField(min_value=0, required=False, help_text="Seeding by hand only: 0 = top seed.")

    def __init__(self, *args, tournament, **kwargs):
        super().__init__(*args, **kwargs)
        course = tournament.course
        members = list(course.students.values_list("pk", flat=True)) + list(course.instructors.values_list("pk", flat=True))
        bots = (Bot.objects.for_game(tournament.game).filter(owner__in=members) | Bot.objects.for_game(tournament.game)
                .filter(owner__isnull=True)).exclude(entries__tournament=tournament).select_related("owner")
        self.fields["bot"].queryset = bots.order_by("owner__username", "name")
        self.fields["bot"].label_from_instance = lambda bot: bot.label
