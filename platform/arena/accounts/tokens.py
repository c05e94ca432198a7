"""API tokens that expire, rotate with the password and can be revoked by their owner.

DRF's own Token model is kept (one token per user, the key in the Authorization header): django-rest-knox
would add hashed keys and one token per client, but it replaces the token model that every client and
test of the platform uses; what issue 24 asked for (expiry, rotation, revocation) fits on the model in place.
- A token older than ARENA_TOKEN_DAYS is refused (401) and /api/auth/token/ issues a new one.
- Changing or resetting the password deletes the user's token: the old one stops working at once.
- GET /api/auth/tokens/ lists your token (when made, when it expires; never the key), DELETE revokes it.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import pre_save
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.core.authentication import expires_at


def fresh_token(user) -> Token:
    """The user's token, a new one in place of an expired one."""
    Token.objects.filter(user=user, created__lte=timezone.now() - timedelta(days=settings.ARENA_TOKEN_DAYS)).delete()
    return Token.objects.get_or_create(user=user)[0]


def forget_token_on_password_change(sender, instance, raw=False, **kwargs) -> None:
    """pre_save of the user: a new password (changed, reset, or set by an operator) revokes the API token."""
    if raw or instance.pk is None:
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()


def connect() -> None:
    pre_save.connect(forget_token_on_password_change, sender=get_user_model(),
                     dispatch_uid="forget_token_on_password_change")


class TokenSerializer(serializers.Serializer):
    created = serializers.DateTimeField()
    expires = serializers.DateTimeField()


class OwnTokens(APIView):
    """Your API tokens: list them, revoke them (a profile page links here)."""

    @extend_schema(responses=TokenSerializer(many=True))
    def get(self, request):
        """Your tokens: when each was made and when it expires (the key itself is shown only when issued)."""
        tokens = Token.objects.filter(user=request.user)
        return Response(TokenSerializer([{"created": t.created, "expires": expires_at(t)} for t in tokens],
                                        many=True).data)

    @extend_schema(responses={204: None})
    def delete(self, request):
        """Revoke your tokens: clients using them must ask /api/auth/token/ again."""
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
