"""A server-sent events client over a real HTTP connection, for the tests and benches of live pages.

http.client rather than requests: a stream's lines are read as they arrive (requests reads in blocks)."""

import html
import http.client
import json
import re
from urllib.parse import urlsplit

# Seconds a test waits for the next byte of a stream: a keepalive or an event always comes sooner.
READ_TIMEOUT = 20


class Stream:
    """One open stream of `url`: `status`, `headers`, and `next_event()`: the next event as a dict (`id`,
    `data` parsed from JSON), or None when the server ended the stream."""

    def __init__(self, url: str, last_event_id: str | None = None, cookies: str = "", timeout: float = READ_TIMEOUT):
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        if cookies:
            headers["Cookie"] = cookies
        self.connection.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = self.response.headers

    def next_event(self) -> dict | None:
        event: dict = {}
        while line := self.response.readline():
            line = line.decode().rstrip("\r\n")
            if line == "":
                if "data" in event:
                    return event
                event = {}  # a retry-only block or a comment: not an event
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                event[field] = json.loads(value) if field == "data" else value
        return None

    def close(self) -> None:
        self.response.close()  # the socket really closes only once its file is closed too
        self.connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def page_stream(live_server, client, path: str, element_id: str) -> tuple[str, Stream]:
    """The page at `path` as `client` sees it, and the stream its live part `element_id` names, opened as the
    same viewer (its session cookie) on `live_server`: what a browser's live.js opens once the page loaded.
    Close the stream (it is a context manager)."""
    from django.conf import settings

    page = client.get(path).content.decode()
    found = re.search(rf'id="{re.escape(element_id)}"[^>]*? data-live-url="([^"]+)"', page)
    assert found, f"no live part #{element_id} on {path}"
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return page, Stream(f"{live_server.url}{html.unescape(found.group(1))}", cookies=cookie)
