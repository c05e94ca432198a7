from django import forms
from games import get_game

from arena.bots.models import Bot
from arena.core.ids import IdMultipleChoiceField
from arena.variants.models import Variant


class ChallengeForm(forms.Form):
    opponents = IdMultipleChoiceField(queryset=Bot.objects.none(), widget=forms.SelectMultiple(attrs={"size": 6}))
    variant = forms.ModelChoiceField(
        queryset=Variant.objects.none(), required=False, empty_label="standard rules", label="Rules",
        help_text="A variant of your course plays its own rules and is never rated.",
    )

    def __init__(self, *args, bot: Bot, user, **kwargs):
        super().__init__(*args, **kwargs)
        variants = Variant.objects.visible_to(user).filter(game=bot.game).select_related("course")
        self.fields["variant"].queryset = variants
        self.fields["variant"].label_from_instance = lambda variant: f"{variant.name} ({variant.course.name})"
        opponents = Bot.objects.active().for_game(bot.game).exclude(pk=bot.pk).select_related("owner")
        self.fields["opponents"].queryset = opponents
        self.fields["opponents"].label_from_instance = lambda b: b.label
        game = get_game(bot.game)
        if game.cooperative:
            self.fields["opponents"].required = False
            self.fields["opponents"].label = (f"Teammates (none: your bot plays all {game.default_players} seats; "
                                              f"or choose {game.default_players - 1})")
            return
        low, high = game.min_players - 1, game.max_players - 1
        self.fields["opponents"].label = f"Opponent{'s' if high > 1 else ''}" + (
            f" (choose {low} to {high}: Ctrl-click for several)" if high > low else f" (choose {low})"
        )
