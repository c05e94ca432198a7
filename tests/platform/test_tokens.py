"""API tokens rotate with the password, expire and can be revoked (issue 24, finding 8)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

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
    Token.objects.filter(key=old).update(created=timezone.now() - timedelta(days=settings.ARENA_TOKEN_DAYS, seconds=1))
    assert not works(old)
    new = token_of("ada", "ada-pass-1234")
    assert new != old and works(new)


def test_the_owner_lists_and_revokes_their_token(make_user, settings):
    make_user("ada")
    key = token_of("ada", "ada-pass-1234")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    [listed] = client.get("/api/auth/tokens/").json()
    assert key not in str(listed) and listed["expires"] > listed["created"]
    assert client.delete("/api/auth/tokens/").status_code == 204
    assert not works(key)
