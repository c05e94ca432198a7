"""Your API tokens through the API: list them (never their keys), issue one (its key shown once), revoke one
or all (accounts.tokens; the page /accounts/tokens/ does the same)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import tokens


class TokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters, to tell tokens apart.")
    created = serializers.DateTimeField(source="created_at")
    last_used = serializers.DateTimeField(source="last_used_at", allow_null=True,
                                          help_text="To the minute; null if never used.")
    expires = serializers.DateTimeField(source="expires_at")


class StrictCharField(serializers.CharField):
    """Text given as a JSON string only (DRF's CharField would take the number 0 as "0")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class NewTokenSerializer(serializers.Serializer):
    name = StrictCharField(max_length=tokens.MAX_NAME, help_text="Which client it is for.")


class IssuedTokenSerializer(TokenSerializer):
    key = serializers.CharField(help_text="Shown this once: only its hash is kept.")


class OwnTokens(APIView):
    """Your API tokens: list them, issue one, revoke them all (a page at /accounts/tokens/ does the same)."""

    @extend_schema(responses=TokenSerializer(many=True))
    def get(self, request):
        """Your tokens: when each was made, last used and expires (the key itself is shown only when issued)."""
        return Response(TokenSerializer(tokens.tokens_of(request.user), many=True).data)

    @extend_schema(request=NewTokenSerializer, responses={201: IssuedTokenSerializer})
    def post(self, request):
        """A new token for a client you name; the answer holds its key, this once."""
        new = NewTokenSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        return Response(IssuedTokenSerializer(tokens.issue(request.user, new.validated_data["name"])).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="auth_tokens_revoke_all", responses={204: None})
    def delete(self, request):
        """Revoke all your tokens: clients using them must ask /api/auth/token/ again."""
        tokens.revoke_all(request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class OwnToken(APIView):
    @extend_schema(operation_id="auth_tokens_revoke", responses={204: None})
    def delete(self, request, pk):
        """Revoke one of your tokens (404 for anyone else's)."""
        tokens.revoke(request.user, pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


def fresh_token(user):
    """The token /api/auth/token/ and registration hand out (a new one each time: keys are not kept)."""
    return tokens.issue(user, "signed in through the API")
