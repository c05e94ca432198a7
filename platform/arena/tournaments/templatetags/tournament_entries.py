"""The entries of a bot waiting for its owner's answer, shown on the bot's page (web/bot.html) without the
site's views knowing about tournaments."""

from django import template

from arena.tournaments.services import entry_requests

register = template.Library()


@register.inclusion_tag("tournaments/_entry_requests.html", takes_context=True)
def entry_requests_of(context, bot):
    """The owner's entries of `bot` in tournaments not started yet, with Accept and Decline (nobody else's)."""
    user = context["request"].user
    entries = entry_requests(user).filter(bot=bot) if user.is_authenticated and bot.owner_id == user.pk else []
    return {"entries": entries, "csrf_token": context.get("csrf_token")}
