"""Token authentication with an expiry (see arena/accounts/tokens.py). Apart from the token views: DRF imports the
authentication classes while it loads its own views module."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


def expires_at(token):
    return token.created + timedelta(days=settings.ARENA_TOKEN_DAYS)


def expired(token) -> bool:
    return expires_at(token) <= timezone.now()


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing a token past its lifetime."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if expired(token):
            raise AuthenticationFailed("Token expired: ask /api/auth/token/ for a new one.")
        return user, token
