"""API tokens rotate with the password, expire and can be revoked, through the API and their page (issue 24,
finding 8)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def token_of(username: str, password: str) -> str:
    response = APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["token"]


def works(key: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/games/").status_code == 200


def test_a_password_change_revokes_the_old_token(client, make_user):
    ada = make_user("ada")
    old = token_of("ada", "ada-pass-1234")
    assert works(old)
    client.force_login(ada)
    response = client.post("/accounts/password_change/", {"old_password": "ada-pass-1234",
                                                          "new_password1": "a-new-long-secret-42",
                                                          "new_password2": "a-new-long-secret-42"})
    assert response.status_code == 302
    assert not works(old)
    new = token_of("ada", "a-new-long-secret-42")
    assert new != old and works(new)


def test_a_token_expires_and_a_new_one_is_issued(make_user, settings):
    make_user("ada")
    old = token_of("ada", "ada-pass-1234")
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert not works(old)
    new = token_of("ada", "ada-pass-1234")
    assert new != old and works(new)


def test_the_owner_lists_and_revokes_their_token(make_user, settings):
    make_user("ada")
    key = token_of("ada", "ada-pass-1234")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    [listed] = client.get("/api/auth/tokens/").json()
    assert key not in str(listed) and listed["expires"] > listed["created"] and listed["last_used"]
    assert client.delete("/api/auth/tokens/").status_code == 204
    assert not works(key)


def test_the_tokens_page_issues_a_key_once_lists_its_use_and_revokes_any(client, make_user):
    ada = make_user("ada")
    client.force_login(ada)
    assert 'href="/accounts/tokens/"' in client.get("/accounts/profile/").content.decode()
    created = client.post("/accounts/tokens/", {"name": "laptop script"}).content.decode()
    key = created.split('<code id="issued-key">')[1].split("</code>")[0]
    assert len(key) == 40 and works(key)
    assert ApiToken.objects.get().digest != key, "only the key's hash is stored"
    listing = client.get("/accounts/tokens/").content.decode()
    assert key not in listing, "the key is shown once, when issued"
    assert "laptop script" in listing and f"{key[:6]}…" in listing and "never" not in listing  # used just now
    second = APIClient()
    second.force_authenticate(ada)
    other = second.post("/api/auth/tokens/", {"name": "ci"}, format="json").json()
    assert works(other["key"]) and len(client.get("/accounts/tokens/").content.decode().split("revoke</button>")) == 3

    bob = make_user("bob")
    client.force_login(bob)  # someone else's token does not exist for bob
    assert client.post(f"/accounts/tokens/{other['id']}/revoke/").status_code == 404 and works(other["key"])
    client.force_login(ada)
    assert client.post(f"/accounts/tokens/{other['id']}/revoke/").status_code == 302
    assert not works(other["key"]) and works(key)
    assert client.post("/accounts/tokens/", {"name": ""}).status_code == 400


def test_the_api_revokes_one_token(make_user):
    make_user("ada")
    first, second = token_of("ada", "ada-pass-1234"), token_of("ada", "ada-pass-1234")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    listed = client.get("/api/auth/tokens/").json()
    assert len(listed) == 2
    second_id = next(t["id"] for t in listed if second.startswith(t["prefix"]))
    assert client.delete(f"/api/auth/tokens/{second_id}/").status_code == 204
    assert works(first) and not works(second)
