"""The API's shapes of accounts and courses."""

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from arena.core.fields import StrictCharField

from . import tokens
from .models import Course
from .usernames import clean_username


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{1,150}$")
    email = serializers.EmailField(max_length=254, help_text="Mailed a link that confirms it, as the site does.")
    password = serializers.CharField(write_only=True)

    def validate_username(self, value):
        try:
            return clean_username(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc

    def validate(self, data):
        validate_password(data["password"], get_user_model()(username=data["username"]))
        return data


class CourseSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Course
        fields = ["id", "code", "name", "role"]

    def get_role(self, course) -> str:
        user = self.context["request"].user
        return "instructor" if course.instructors.filter(pk=user.pk).exists() else "student"


class TokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters, to tell tokens apart.")
    created = serializers.DateTimeField(source="created_at")
    last_used = serializers.DateTimeField(source="last_used_at", allow_null=True,
                                          help_text="To the minute; null if never used.")
    expires = serializers.DateTimeField(source="expires_at")


class NewTokenSerializer(serializers.Serializer):
    name = StrictCharField(max_length=tokens.MAX_NAME, help_text="Which client it is for.")


class IssuedTokenSerializer(TokenSerializer):
    key = serializers.CharField(help_text="Shown this once: only its hash is kept.")
