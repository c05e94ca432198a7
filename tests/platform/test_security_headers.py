"""What a browser is told to protect the site (issue 24, finding 9): a Content-Security-Policy on every page,
Secure cookies and HSTS behind an HTTPS proxy, and a compose file that publishes nothing by default."""

from pathlib import Path

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db
COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


def test_every_page_has_a_content_security_policy_without_inline_scripts(client):
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert "Content-Security-Policy" in client.get("/api/games/").headers


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"), SECURE_HSTS_SECONDS=31536000,
                   SESSION_COOKIE_SECURE=True, CSRF_COOKIE_SECURE=True)
def test_behind_an_https_proxy_cookies_are_secure_and_hsts_is_sent(make_user):
    make_user("ada")
    client = Client(HTTP_X_FORWARDED_PROTO="https")
    response = client.post("/accounts/login/", {"username": "ada", "password": "ada-pass-1234"})
    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"] and response.headers["Strict-Transport-Security"].startswith(
        "max-age=31536000")
    # Without the proxy's header the request is plain HTTP: no HSTS (browsers would ignore it anyway).
    assert "Strict-Transport-Security" not in Client().get("/").headers


def test_compose_publishes_web_on_the_loopback_and_takes_the_database_password_from_the_environment():
    text = COMPOSE.read_text(encoding="utf-8")
    assert '"${ARENA_BIND:-127.0.0.1}:${ARENA_PORT:-8000}:8000"' in text
    assert "POSTGRES_PASSWORD: arena" not in text and "postgres://arena:arena@" not in text
    assert text.count("${POSTGRES_PASSWORD:?") == 2
