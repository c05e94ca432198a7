"""Courses: who teaches whom. Users are Django's own; a course links instructors to their students."""

from django.conf import settings
from django.db import models


class CourseQuerySet(models.QuerySet):
    def for_user(self, user):
        """The courses `user` teaches or takes."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(models.Q(instructors=user) | models.Q(students=user)).distinct()


class Course(models.Model):
    code = models.SlugField(unique=True, help_text="Short identifier, e.g. algo-2026.")
    name = models.CharField(max_length=200)
    instructors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="taught_courses", blank=True)
    students = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="courses", blank=True)

    objects = CourseQuerySet.as_manager()

    def __str__(self):
        return self.name
