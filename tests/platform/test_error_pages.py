"""Every error is the site's: a page with its header that says what happened, why, and where to go (HTML for
the pages), or `{"detail": why}` under /api/. Django's own refusals (PermissionDenied, Http404, BadRequest, a
failed CSRF check, a crash) come through the same handler as the platform's typed errors."""

from html import unescape

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

WHY = {"400": "could not be read", "403": "Only the course's instructors can do this", "404": "No such tournament",
       "429": "too many challenges in a minute", "500": "logged for the operators"}
TITLE = {"400": "Bad request", "403": "Not allowed", "404": "Page not found", "429": "Too many requests",
         "500": "Something went wrong on our side"}


@pytest.fixture
def failing_site(settings):
    settings.ROOT_URLCONF = "site_error_urls"
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("status", sorted(WHY))
def test_each_error_page_is_the_sites_and_says_why_and_where_to_go(failing_site, make_user, status):
    anonymous = failing_site.get(f"/fail/{status}/")
    page = unescape(anonymous.content.decode())
    assert anonymous.status_code == int(status)
    assert 'class="site-header"' in page and f"<title>{TITLE[status]}" in page
    why = page[page.index('id="error-why"'):]
    assert WHY[status] in why[:300]
    assert f'href="/accounts/login/?next=/fail/{status}/"' in page  # a stranger is shown the way in

    failing_site.force_login(make_user("ada"))
    page = failing_site.get(f"/fail/{status}/").content.decode()
    assert 'id="error-next"' in page and 'href="/"' in page and "Your bots and courses" in page


@pytest.mark.parametrize("status", sorted(WHY))
def test_under_the_api_each_error_is_json(failing_site, status):
    response = failing_site.get(f"/api/fail/{status}/")
    assert response.status_code == int(status)
    assert response["Content-Type"] == "application/json"
    assert WHY[status].lower() in response.json()["detail"].lower()


def test_a_too_many_page_says_when_to_try_again(failing_site):
    response = failing_site.get("/fail/429/")
    assert response["Retry-After"] == "30" and "Wait a moment" in response.content.decode()


def test_a_student_at_the_outbox_gets_the_sites_403_page(client, make_user):
    client.force_login(make_user("ada"))
    response = client.get("/outbox/")
    page = unescape(response.content.decode())
    assert response.status_code == 403
    assert 'class="site-header"' in page and "The outbox is the operators'" in page and "Not allowed" in page


def test_a_form_sent_from_an_old_page_gets_the_sites_403_page_not_djangos(make_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("ada"))
    response = client.post("/accounts/tokens/", {"name": "laptop"})
    page = response.content.decode()
    assert response.status_code == 403
    assert 'class="site-header"' in page and "Reload the page and send it again" in page
    assert "CSRF verification failed" not in page


def test_a_lookup_that_finds_nothing_does_not_name_the_model(client, make_user):
    client.force_login(make_user("ada"))
    page = client.get("/tournaments/999999/").content.decode()
    assert "matches the given query" not in page and "Page not found" in page
