"""Every page fits a phone: each page of the authorisation matrix, opened as each role in chromium 390 px
wide, is no wider than the window (a table may scroll inside its own box, never the page), and no table
breaks a word across lines to fit ("Statu s")."""

import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from django.conf import settings
from django.test import Client

from arena.variants.models import Variant

from test_authorization_matrix import ENDPOINTS, ROLES, World, declaration, url_path

PHONE = {"width": 390, "height": 844}
# Pages whose tables must show every column without scrolling: the bot page (its versions' Status), the
# match page (its seats' Rating) and the assignment dashboard.
WHOLE_TABLE_PAGES = re.compile(r"^/(bots|matches|assignments)/\d+/$")
TABLES_CUT = """() => [...document.querySelectorAll('main table')]
  .filter(t => t.scrollWidth > t.clientWidth + 1 || (t.closest('.table-scroll') || t).scrollWidth >
               (t.closest('.table-scroll') || t).clientWidth + 1)
  .map(t => (t.id || t.className) + ' ' + t.scrollWidth + '/' + t.clientWidth)"""
# Words of a table cell that the browser broke across lines ("Statu|s", "Mat|ch"): each run of letters and
# figures between spaces, hyphens and slashes whose text spans more than one line. Code (a hash, a diff's
# lines) may wrap anywhere and is left out.
WORDS_BROKEN = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('main th, main td')) {
    const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      if (text.parentElement.closest('code, pre, .side-by-side')) continue;
      for (const word of text.data.matchAll(/[^\\s\\/-]{2,}/g)) {
        const range = document.createRange();
        range.setStart(text, word.index);
        range.setEnd(text, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(cell.tagName.toLowerCase() + ' "' + word[0] + '"');
      }
    }
  }
  return broken.slice(0, 8);
}"""
# What overflows, for the failure message: elements reaching past the window, outside a scrolling box.
WIDER_THAN_THE_WINDOW = """() => {
  const width = window.innerWidth, found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.table-scroll, pre, .scroll-x')) continue;
    const box = el.getBoundingClientRect();
    if (box.right > width + 0.5 && box.width > 0) {
      found.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                 (el.className && typeof el.className === 'string' ? '.' + el.className.trim().replace(/ +/g, '.') : '') +
                 ' ' + Math.round(box.right));
    }
  }
  return found.slice(0, 6);
}"""


def phone_pages(world) -> dict[str, list[str]]:
    """For each role, the paths of the site's pages it may open (a 200 to GET in the matrix), admin and API
    left out (Django's admin and the API browser are not the site's pages)."""
    pages = {role.name: [] for role in ROLES}
    for endpoint in ENDPOINTS:
        if "GET" not in endpoint.methods or endpoint.pattern.startswith(("admin/", "api/")):
            continue
        for case in declaration(endpoint) or ():
            answer = case.methods.get("GET")
            if answer is None:
                continue
            path = case.path or url_path(endpoint, world.url_values(endpoint, case.objects))
            for role in ROLES:
                if answer.for_role(role) == 200:
                    pages[role.name].append(path)
    return pages


@pytest.fixture
def signed_in_world(transactional_db, live_server):
    """The matrix's world, committed for the live server, with each role's session cookie and pages (made
    before the browser starts: Playwright's event loop forbids the ORM afterwards)."""
    world = World()
    # A variant named as instructors name them: the forms' Rules menu is as wide as its longest name.
    Variant.objects.filter(pk=world.variant.pk).update(name="the full deck with robbery (Extension 1)")
    sessions = {}
    for role in ROLES:
        if role.user is not None:
            client = Client()
            client.force_login(role.user(world))
            sessions[role.name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return sessions, phone_pages(world)


def test_every_page_fits_a_390_px_phone_for_every_role(signed_in_world, live_server, chromium):
    sessions, pages = signed_in_world
    wide = []
    opened = 0
    for role in ROLES:
        context = chromium.new_context(viewport=PHONE)
        if role.name in sessions:
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                  "value": sessions[role.name]}])
        page = context.new_page()
        for path in sorted(set(pages[role.name])):
            try:
                # Until the answer's headers only: a live stream (server-sent events) never finishes loading.
                response = page.goto(live_server.url + path, wait_until="commit")
            except PlaywrightError as error:
                if "Download is starting" in str(error):
                    continue  # a file to save (code, a replay, a starter), not a page
                raise
            if not response.headers.get("content-type", "").startswith("text/html"):
                continue  # a download, JSON or a live stream
            page.wait_for_load_state("load")
            if page.evaluate("() => !document.querySelector('link[rel=stylesheet]')"):
                continue  # an htmx fragment of a page, never opened on its own
            opened += 1
            scroll, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > inner:
                wide.append(f"{role.name} {path}: {scroll} px > {inner}: {page.evaluate(WIDER_THAN_THE_WINDOW)}")
            if broken := page.evaluate(WORDS_BROKEN):
                wide.append(f"{role.name} {path}: words broken inside a table: {broken}")
            if WHOLE_TABLE_PAGES.match(path) and (cut := page.evaluate(TABLES_CUT)):
                wide.append(f"{role.name} {path}: tables cut at the phone's width: {cut}")
        context.close()
    assert opened > 100, opened
    assert not wide, "\n".join(wide)
