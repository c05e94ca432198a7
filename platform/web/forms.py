from django import forms
from games import available_games, get_game

from bots.models import Bot


class BotForm(forms.Form):
    name = forms.CharField(max_length=60)
    game = forms.ChoiceField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(name, game.title) for name, game in sorted(available_games().items())]


class UploadForm(forms.Form):
    file = forms.FileField(label="Bot file (.py)")


class ChallengeForm(forms.Form):
    opponents = forms.ModelMultipleChoiceField(queryset=Bot.objects.none(), widget=forms.SelectMultiple(attrs={"size": 6}))
    rated = forms.BooleanField(required=False, help_text="Rated matches change both bots' Elo ratings.")

    def __init__(self, *args, bot: Bot, **kwargs):
        super().__init__(*args, **kwargs)
        opponents = Bot.objects.active().for_game(bot.game).exclude(pk=bot.pk).select_related("owner")
        self.fields["opponents"].queryset = opponents
        self.fields["opponents"].label_from_instance = lambda b: b.label
        game = get_game(bot.game)
        low, high = game.min_players - 1, game.max_players - 1
        self.fields["opponents"].label = f"Opponent{'s' if high > 1 else ''}" + (
            f" (choose {low} to {high}: Ctrl-click for several)" if high > low else f" (choose {low})"
        )
