from django import forms
from games import available_games


class BotForm(forms.Form):
    name = forms.CharField(max_length=60)
    game = forms.ChoiceField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(name, game.title) for name, game in sorted(available_games().items())]


class UploadForm(forms.Form):
    file = forms.FileField(label="Bot file (.py)")
