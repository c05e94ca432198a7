"""Presentation filters shared by the site's templates."""

from django import template
from django.utils import timezone
from django.utils.html import format_html

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
    """A rating (the skill model's scale, mu - 3 sigma from 0 to about 50) to one decimal: more is noise."""
    return "" if value is None else f"{float(value):.1f}"


@register.filter
def when(value) -> str:
    """A moment in the viewer's zone (activated by accounts.timezones), the zone named beside it:
    `<time datetime="2026-11-25T21:31:00+00:00" title="Europe/Berlin">2026-11-25 22:31 CET</time>`."""
    if not value:
        return ""
    local = timezone.localtime(value)
    return format_html('<time datetime="{}" title="{}">{} {}</time>', value.isoformat(),
                       timezone.get_current_timezone_name(), local.strftime("%Y-%m-%d %H:%M"), local.tzname())


@register.filter
def deadline(value) -> str:
    """A deadline as a date in the viewer's zone and how far it is: '2026-12-01 23:59 CET (in 2 days 3 h)'."""
    if not value:
        return ""
    return format_html("{} <span class=\"hint\">({})</span>", when(value), time_to(value))


def time_to(moment, now=None) -> str:
    """'in 2 days 3 h', 'in 3 h 20 min', 'in 12 min', or the same with 'ago' once it has passed."""
    seconds = int(((moment - (now or timezone.now())).total_seconds()))
    minutes = abs(seconds) // 60
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        span = f"{days} day{'s' if days != 1 else ''}" + (f" {hours} h" if hours else "")
    elif hours:
        span = f"{hours} h" + (f" {minutes} min" if minutes else "")
    elif minutes:
        span = f"{minutes} min"
    else:
        return "now"
    return f"in {span}" if seconds > 0 else f"{span} ago"
