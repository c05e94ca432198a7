"""The bot guide of each game on the site: docs/bots/GAME.md rendered once per process, and its example bot.

The guides are the repository's own files (one source for the repository and the site). They are
rendered with markdown-it-py (CommonMark with tables) and the HTML is sanitised with nh3 before it
reaches a page: the files are ours, but raw HTML in Markdown passes through a renderer, and a page
must never carry a script whoever edited a guide.
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nh3
from django.conf import settings
from games import available_games
from markdown_it import MarkdownIt

GUIDES_DIR = Path(settings.ARENA_GUIDES_DIR)
# What a guide may contain once rendered: text structure, code, tables, links. No images, no forms.
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote",
                "table", "thead", "tbody", "tr", "th", "td", "a", "br", "hr"}


class NoGuide(LookupError):
    """The game does not exist or has no guide in docs/bots/."""


@dataclass(frozen=True)
class GameGuide:
    game: str
    title: str
    html: str  # sanitised
    example_name: str  # the example bot's file name, e.g. endgame_example.py
    example_source: str


_renderer = MarkdownIt("commonmark").enable("table")


def render_markdown(text: str) -> str:
    """Markdown to HTML that is safe to put on a page (nh3 keeps only ALLOWED_TAGS, and safe link URLs)."""
    html = nh3.clean(_renderer.render(text), tags=ALLOWED_TAGS,
                     attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}})
    # A wide table scrolls inside its own box instead of widening a phone's page (added after cleaning:
    # constant markup, and the sanitiser would drop the class).
    return html.replace("<table>", '<div class="table-scroll"><table>').replace("</table>", "</table></div>")


@lru_cache(maxsize=None)
def guide(game: str) -> GameGuide:
    """The guide of `game` (read and rendered once per process: the files change only with a release)."""
    found = available_games().get(game)
    path = GUIDES_DIR / f"{game}.md"
    example = GUIDES_DIR / "examples" / f"{game}_example.py"
    if found is None or not path.is_file() or not example.is_file():
        raise NoGuide(game)
    text = path.read_text(encoding="utf-8")
    # The page has its own heading; the file's first line ("# End Game: writing a bot") is for the repository.
    if text.startswith("# "):
        text = text.split("\n", 1)[1]
    return GameGuide(game=game, title=found.title, html=render_markdown(text), example_name=example.name,
                     example_source=example.read_text(encoding="utf-8"))


def games_with_guides() -> list[str]:
    """The games that have a guide, in the order the site lists games."""
    return [name for name in sorted(available_games()) if (GUIDES_DIR / f"{name}.md").is_file()]
