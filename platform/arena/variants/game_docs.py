"""The bot guide of each game on the site: docs/bots/GAME.md rendered once per process, and its example bot;
and the other documents a student, instructor or operator is sent to (SITE_DOCS: the bot protocol,
tournaments, the API guide, the operator guide), each a page of the site.

The guides are the repository's own files (one source for the repository and the site). They are
rendered with markdown-it-py (CommonMark with tables) and the HTML is sanitised with nh3 before it
reaches a page: the files are ours, but raw HTML in Markdown passes through a renderer, and a page
must never carry a script whoever edited a guide. A link between the files (`examples/endgame_example.py`,
`../bot-protocol.md#at-a-persons-table`) becomes the link to its page; headings get GitHub's anchors, so
a `#fragment` lands where it does in the repository.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nh3
from django.conf import settings
from games import available_games
from django.urls import reverse
from markdown_it import MarkdownIt

GUIDES_DIR = Path(settings.ARENA_GUIDES_DIR)
DOCS_DIR = Path(settings.ARENA_DOCS_DIR)
# What a guide may contain once rendered: text structure, code, tables, links. No images, no forms.
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote",
                "table", "thead", "tbody", "tr", "th", "td", "a", "br", "hr"}


class NoGuide(LookupError):
    """The game does not exist or has no guide in docs/bots/ (or no such document in SITE_DOCS)."""


@dataclass(frozen=True)
class SiteDoc:
    slug: str  # its page: /docs/SLUG/, its file: docs/SLUG.md
    title: str
    staff_only: bool = False


SITE_DOCS = {doc.slug: doc for doc in (
    SiteDoc("bot-protocol", "The bot protocol"),
    SiteDoc("tournaments", "Tournaments"),
    SiteDoc("platform-api", "The API guide"),
    SiteDoc("operator-guide", "The operator guide", staff_only=True),
)}
# Links written for the repository, and what they are on the site.
DOC_LINK = re.compile(r"^(?:\.\./)*(?:docs/)?(?P<slug>[a-z-]+)\.md(?P<anchor>#[\w-]*)?$")
EXAMPLE_LINK = re.compile(r"^(?:bots/)?examples/(?P<game>\w+)_example\.py$")


@dataclass(frozen=True)
class GameGuide:
    game: str
    title: str
    html: str  # sanitised
    example_name: str  # the example bot's file name, e.g. endgame_example.py
    example_source: str


def site_href(href: str) -> str:
    """A link of a repository file, as the link to the site's page of what it names (others unchanged)."""
    if found := EXAMPLE_LINK.match(href):
        return reverse("variants:game_example", args=[found["game"]])
    if (found := DOC_LINK.match(href)) and found["slug"] in SITE_DOCS:
        return reverse("variants:doc", args=[found["slug"]]) + (found["anchor"] or "")
    if (found := DOC_LINK.match(href.removeprefix("bots/"))) and found["slug"] in available_games():
        return reverse("variants:game_guide", args=[found["slug"]]) + (found["anchor"] or "")
    return href


def anchor(text: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _site_links_and_anchors(state) -> None:
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            token.attrSet("id", anchor(tokens[index + 1].content))
        for child in token.children or ():
            if child.type == "link_open":
                child.attrSet("href", site_href(str(child.attrGet("href") or "")))


_renderer = MarkdownIt("commonmark").enable("table")
_renderer.core.ruler.push("site_links_and_anchors", _site_links_and_anchors)


def render_markdown(text: str) -> str:
    """Markdown to HTML that is safe to put on a page (nh3 keeps only ALLOWED_TAGS, and safe link URLs)."""
    headings = {tag: {"id"} for tag in ("h1", "h2", "h3", "h4")}
    html = nh3.clean(_renderer.render(text), tags=ALLOWED_TAGS,
                     attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, **headings})
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


@lru_cache(maxsize=None)
def site_doc(slug: str) -> tuple[SiteDoc, str]:
    """A document of SITE_DOCS and its HTML (rendered once per process, as the guides)."""
    doc = SITE_DOCS.get(slug)
    path = DOCS_DIR / f"{slug}.md"
    if doc is None or not path.is_file():
        raise NoGuide(slug)
    text = path.read_text(encoding="utf-8")
    if text.startswith("# "):
        text = text.split("\n", 1)[1]
    return doc, render_markdown(text)


def games_with_guides() -> list[str]:
    """The games that have a guide, in the order the site lists games."""
    return [name for name in sorted(available_games()) if (GUIDES_DIR / f"{name}.md").is_file()]
