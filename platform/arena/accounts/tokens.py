"""API tokens: issued with a name and shown once, listed with when they were made, last used and expire,
revoked one by one or all at once, and all revoked by a new password.

Only a key's SHA-256 is stored (a stolen database holds no usable key); keys are 160 random bits, so a plain
hash is enough (no salt or slow hash: nobody guesses such a key). DRF's one-token-per-user model could not
list several clients, show when a token was last used, or keep only a hash; django-rest-knox keeps hashes
and expiries but not the last use nor a name, and brings its own views and header format, so this small
model is the platform's own.
"""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import pre_save
from django.utils import timezone

from arena.core.errors import Invalid, NotFound

from .models import ApiToken

# A token's last use is written at most this often: not one write per API request.
LAST_USED_PRECISION = timedelta(minutes=1)
MAX_NAME = ApiToken._meta.get_field("name").max_length


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def issue(user, name: str) -> ApiToken:
    """A new token of `user` named `name`; its key is in `.key` of the answer only, never stored. Expired
    tokens of the user are deleted on the way."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise Invalid(f"give the token a name of 1 to {MAX_NAME} characters")
    now = timezone.now()
    ApiToken.objects.filter(user=user, expires_at__lte=now).delete()
    key = secrets.token_hex(20)
    token = ApiToken.objects.create(user=user, name=name, digest=_digest(key), prefix=key[:6],
                                    expires_at=now + timedelta(days=settings.ARENA_TOKEN_DAYS))
    token.key = key
    return token


def user_of(key: str):
    """(user, token) for a valid key, None for an unknown, expired or inactive one; notes the use."""
    token = ApiToken.objects.select_related("user").filter(digest=_digest(key)).first()
    now = timezone.now()
    if token is None or token.expires_at <= now or not token.user.is_active:
        return None
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token


def tokens_of(user):
    return ApiToken.objects.filter(user=user)


def revoke(user, pk: int) -> None:
    """Revoke one of `user`'s tokens (anyone else's does not exist for them)."""
    deleted, _ = tokens_of(user).filter(pk=pk).delete()
    if not deleted:
        raise NotFound("no such token")


def revoke_all(user) -> None:
    tokens_of(user).delete()


def forget_tokens_on_password_change(sender, instance, raw=False, **kwargs) -> None:
    """pre_save of the user: a new password (changed, reset, or set by an operator) revokes every API token."""
    if raw or instance.pk is None:
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        ApiToken.objects.filter(user_id=instance.pk).delete()


def connect() -> None:
    pre_save.connect(forget_tokens_on_password_change, sender=get_user_model(),
                     dispatch_uid="forget_tokens_on_password_change")
