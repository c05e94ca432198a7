"""Token authentication by the platform's API tokens (accounts.tokens). Apart from the token views: DRF imports
the authentication classes while it loads its own views module."""

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Token KEY` with a key of accounts.tokens: unknown, revoked and expired keys are refused
    (401, `WWW-Authenticate: Token`)."""

    def authenticate_credentials(self, key):
        from arena.accounts.tokens import user_of  # the apps' models are not loaded when DRF imports this module

        found = user_of(key)
        if found is None:
            raise AuthenticationFailed("Invalid, revoked or expired token: ask /api/auth/token/ for a new one.")
        return found
