from django import forms
from games import available_games
from games.core import loads_json
from games.table import DEFAULT_MOVE_SECONDS, MAX_MOVE_SECONDS


FIRST_GAME = "endgame"


def two_player_games() -> list[tuple[str, str]]:
    """The games a pairing room plays: those two people can play."""
    return [(name, game.title) for name, game in sorted(available_games().items())
            if game.info().min_players <= 2 <= game.info().max_players]


class RoomForm(forms.Form):
    game = forms.ChoiceField()
    builtin = forms.CharField(max_length=40, required=False, label="Built-in for the odd student out",
                              help_text="One of the game's built-in bots (its guide lists them); empty: random.")
    config = forms.CharField(required=False, max_length=20_000, label="Options (JSON)",
                             help_text='The game\'s options, as in its guide: {"length": 8} plays End Game on 8 '
                                       'numbers; empty: its standard rules.')
    # "300", not the float's "300.0".
    move_seconds = forms.FloatField(min_value=1, max_value=MAX_MOVE_SECONDS, initial=f"{DEFAULT_MOVE_SECONDS:g}",
                                    label="Seconds per move", help_text="A student who runs out loses the game.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = two_player_games()
        # The rule books' first exercise is End Game's: the form starts there, not at the first title (Crazy-KING).
        if FIRST_GAME in dict(self.fields["game"].choices):
            self.fields["game"].initial = FIRST_GAME

    def clean_config(self):
        """The options as JSON, read by the platform's bounded reader (no nesting past its limit, no NaN)."""
        text = self.cleaned_data["config"].strip()
        try:
            return loads_json(text) if text else None
        except ValueError as exc:
            raise forms.ValidationError(f"not JSON the games take: {exc}") from None

    def options(self) -> dict:
        """The form's values as services.open_room takes them."""
        return {"game": self.cleaned_data["game"], "builtin": self.cleaned_data["builtin"] or None,
                "move_seconds": self.cleaned_data["move_seconds"], "config": self.cleaned_data["config"]}
