"""The API of accounts (registration, API tokens) and courses."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import generics, parsers, permissions, status, viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.core.parsers import BoundedJSONParser
from arena.core.throttles import CredentialsAddressThrottle, RegisterThrottle, SignInThrottle
from arena.variants.serializers import NewVariantSerializer, VariantSerializer
from arena.variants.services import VariantRefused, create_variant

from . import serializers, tokens
from .access import courses_seen_by
from .identity import send_confirmation
from .models import Course


class Register(generics.CreateAPIView):
    """Create a student account; the answer holds an API token, and its e-mail address is mailed a link that
    confirms it."""

    permission_classes = [permissions.AllowAny]
    serializer_class = serializers.RegisterSerializer
    throttle_classes = [RegisterThrottle]

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = get_user_model().objects.create_user(**serializer.validated_data)
        token = fresh_token(user)
        send_confirmation(user)
        return Response({"username": user.username, "email": user.email, "token": token.key},
                        status=status.HTTP_201_CREATED)


class ObtainToken(ObtainAuthToken):
    """Exchange a username and password for your API token (attempts are limited per address and account, and
    per address)."""

    parser_classes = [BoundedJSONParser, parsers.FormParser, parsers.MultiPartParser]
    throttle_classes = [SignInThrottle, CredentialsAddressThrottle]

    def post(self, request, *args, **kwargs):
        """Your token, a new one once it expired (ARENA_TOKEN_DAYS) or after a password change."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({"token": fresh_token(serializer.validated_data["user"]).key})


class CourseViewSet(viewsets.ReadOnlyModelViewSet):
    """The courses you teach or take, and their game variants."""

    serializer_class = serializers.CourseSerializer

    def get_queryset(self):
        user = self.request.user
        # The list is your own courses; a single one (and its variants) is also open to operators.
        courses = Course.objects.for_user(user) if self.action == "list" else courses_seen_by(user)
        return courses.order_by("code")

    @extend_schema(request={"application/json": NewVariantSerializer,
                            "multipart/form-data": NewVariantSerializer},
                   responses=VariantSerializer(many=True))
    @action(detail=True, methods=["get", "post"],
            parser_classes=[BoundedJSONParser, parsers.MultiPartParser, parsers.FormParser])
    def variants(self, request, pk=None):
        """GET: the course's game variants. POST (instructors): a new one from `config` (JSON) or a `file`."""
        course = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(course.variants.select_related("created_by"))
            return self.get_paginated_response(VariantSerializer(page, many=True).data)
        new = NewVariantSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        try:
            variant = create_variant(request.user, course, **new.validated_data)
        except VariantRefused as exc:
            raise ValidationError(exc.problems) from exc
        return Response(VariantSerializer(variant).data, status=status.HTTP_201_CREATED)


class OwnTokens(APIView):
    """Your API tokens: list them, issue one, revoke them all (a page at /accounts/tokens/ does the same)."""

    @extend_schema(responses=serializers.TokenSerializer(many=True))
    def get(self, request):
        """Your tokens: when each was made, last used and expires (the key itself is shown only when issued)."""
        return Response(serializers.TokenSerializer(tokens.tokens_of(request.user), many=True).data)

    @extend_schema(request=serializers.NewTokenSerializer, responses={201: serializers.IssuedTokenSerializer})
    def post(self, request):
        """A new token for a client you name; the answer holds its key, this once."""
        new = serializers.NewTokenSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        return Response(serializers.IssuedTokenSerializer(tokens.issue(request.user, new.validated_data["name"])).data,
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
