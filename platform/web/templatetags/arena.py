"""Presentation filters shared by the site's templates."""

from django import template

register = template.Library()


@register.filter
def players(game) -> str:
    """'2 players' for a game of fixed size, '2–5 players' otherwise."""
    if game.min_players == game.max_players:
        return f"{game.min_players} players"
    return f"{game.min_players}–{game.max_players} players"


@register.filter
def score(value) -> str:
    """A score as people write it: 163, not 163.0; fractions keep at most two decimals."""
    if value is None or value == "":
        return ""
    number = float(value)
    if number.is_integer():
        return str(int(number))
    return f"{number:.2f}".rstrip("0")


@register.filter
def rating(value) -> str:
    """A rating rounded to a whole number (the decimals are noise to a reader)."""
    return "" if value is None else f"{float(value):.0f}"
