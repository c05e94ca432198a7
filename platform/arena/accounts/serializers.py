"""The API's shapes of accounts and courses."""

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from .models import Course
from .usernames import clean_username


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{1,150}$")
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
