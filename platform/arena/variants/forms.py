from django import forms
from games import get_game

from .services import FILE_OPTION


class VariantForm(forms.Form):
    game = forms.ChoiceField()
    name = forms.CharField(max_length=60)
    file = forms.FileField(label="File (JSON)",
                           help_text="SortingGame: a deck, as python -m games.sortinggame checks it.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The page uploads files; games without a file option take their options through the API.
        self.fields["game"].choices = [(name, get_game(name).title) for name in sorted(FILE_OPTION)]
