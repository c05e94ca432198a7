"""Rate limits (DRF throttles counted in the cache): uploads, sign-in attempts, registrations. (The bot work
a person starts, challenges among it, draws from one budget counted in the database: core/budget.py.)

Rates come from settings.ARENA_RATES, read on every request, so an operator (or a test) can change them
without a restart of this module. A request over its rate raises Throttled at once: 429, a message saying
which limit and when to come back, and Retry-After. The pages use the same classes (core/ratelimit.py).
"""

import hashlib

from django.conf import settings
from rest_framework.exceptions import Throttled
from rest_framework.throttling import SimpleRateThrottle

from arena.accounts.usernames import username_key

PERIOD_WORDS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


class ArenaThrottle(SimpleRateThrottle):
    """One limit: at most N requests (of `methods`) per period for each identity."""

    scope: str
    what: str  # the limited thing, for the message: "challenges"
    methods = ("POST",)

    def get_rate(self) -> str:
        return settings.ARENA_RATES[self.scope]

    def identity(self, request) -> str | None:
        """Whom the limit counts: the signed-in user, else the client address."""
        user = getattr(request, "user", None)
        return f"user-{user.pk}" if user is not None and user.is_authenticated else f"addr-{self.get_ident(request)}"

    def get_cache_key(self, request, view) -> str | None:
        if request.method not in self.methods:
            return None
        identity = self.identity(request)
        return None if identity is None else self.cache_format % {"scope": self.scope, "ident": identity}

    def throttle_failure(self):
        wait = max(1, round(self.wait() or 1))
        period = PERIOD_WORDS[self.rate.split("/")[1][0]]
        raise Throttled(wait=wait, detail=f"Too many {self.what}: at most {self.num_requests} per {period}. "
                                          f"Try again in {wait} second{'s' if wait != 1 else ''}.")


class UploadThrottle(ArenaThrottle):
    scope, what = "upload", "uploads"


class SignInThrottle(ArenaThrottle):
    """Counted per (client address, account tried): guessing one account's password from one place is what it
    stops, and nobody elsewhere can lock that account by failing on purpose. The account is the username's
    `username_key`, so look-alike spellings ("ｂob", "𝐛ob") count as the name they sign in as."""

    scope, what = "sign_in", "sign-in attempts for this account from your address"
    field = "username"

    def identity(self, request) -> str | None:
        data = getattr(request, "data", None) or request.POST
        account = data.get(self.field) if hasattr(data, "get") else None
        if not isinstance(account, str):
            return None
        # Hashed: a cache key holds no user-given text (spaces or control characters would be refused).
        return f"addr-{self.get_ident(request)}-" + hashlib.sha256(username_key(account.strip()).encode()).hexdigest()


class PasswordResetThrottle(SignInThrottle):
    """Password reset requests per (client address, e-mail address asked for)."""

    scope, what = "password_reset", "password reset requests for this address from yours"
    field = "email"


class CredentialsAddressThrottle(ArenaThrottle):
    """Every sign-in, token and password reset attempt from one client address, whatever the account: one
    place trying many accounts. High enough for a classroom behind one address."""

    scope, what = "credentials_address", "sign-in and password reset attempts from your address"

    def identity(self, request) -> str | None:
        return f"addr-{self.get_ident(request)}"


class RegisterThrottle(ArenaThrottle):
    """Counted per client address (a new visitor has no account to count by)."""

    scope, what = "register", "new accounts from your address"

    def identity(self, request) -> str | None:
        return f"addr-{self.get_ident(request)}"
