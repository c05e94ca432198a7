"""Courses and their people: instructors, teaching assistants, students (with their roster record) and teams.

Users are Django's own, each with a `Profile` (display name, confirmed e-mail, time zone). A course links
instructors and teaching assistants to their students; a student's `RosterEntry` holds what the institution
knows of them (student id, e-mail, name) for gradebook exports; an `Invitation` is a roster row waiting for
its student to accept it (nobody is enrolled without saying yes); a `Team` is a group of a course's students
who share bots. Operators let a user create courses with the `accounts.add_course` permission.
"""

import secrets
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


def validate_time_zone(name: str) -> None:
    if name not in zoneinfo.available_timezones():
        raise ValidationError(f"{name!r} is not a time zone name (e.g. Europe/Paris)")


class CourseQuerySet(models.QuerySet):
    def for_user(self, user):
        """The courses `user` teaches, assists in or takes."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(
            models.Q(instructors=user) | models.Q(teaching_assistants=user) | models.Q(students=user)
        ).distinct()


class Course(models.Model):
    code = models.SlugField(unique=True, help_text="Short identifier, e.g. algo-2026.")
    name = models.CharField(max_length=200)
    instructors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="taught_courses", blank=True)
    teaching_assistants = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="assisted_courses",
                                                 blank=True)
    students = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="courses", blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone],
                                 help_text="Deadlines are stored in UTC and shown in this zone.")
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code,
                                   help_text="Whoever signs in through /join/<code>/ becomes a student.")
    asks_student_id = models.BooleanField(
        default=False, help_text="Students who join by the link give their student id (for the gradebook).")

    objects = CourseQuerySet.as_manager()

    def __str__(self):
        return self.name


class RosterEntry(models.Model):
    """A student as the institution knows them; re-uploading the roster updates these rows in place."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="roster")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="roster_entries")
    student_id = models.CharField(max_length=64)
    email = models.EmailField()
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["course", "name", "student_id"]
        verbose_name_plural = "roster entries"
        constraints = [
            models.UniqueConstraint(fields=["course", "student_id"], name="student_id_unique_in_course"),
            models.UniqueConstraint(fields=["course", "user"], name="one_roster_entry_per_student"),
        ]

    def __str__(self):
        return f"{self.student_id} {self.name}"


class Team(models.Model):
    """Students of one course who share bots: each sees the others' code and logs, and they submit once."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=80)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams")

    class Meta:
        ordering = ["course", "name"]
        constraints = [models.UniqueConstraint(fields=["course", "name"], name="team_name_unique_in_course")]

    def __str__(self):
        return self.name


class Profile(models.Model):
    """What a user says about themselves beyond Django's user: read through `profile_of`."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=150, blank=True)
    # Empty: every course's times in that course's zone, the rest in UTC (read by the pages that show times).
    time_zone = models.CharField(max_length=64, blank=True, validators=[validate_time_zone])
    # The address the user proved to hold (a mailed link, or an invitation mailed to it); it stops counting
    # when the user changes their e-mail.
    confirmed_email = models.EmailField(blank=True)

    def __str__(self):
        return self.display_name or self.user.get_username()

    @property
    def email_confirmed(self) -> bool:
        return bool(self.user.email) and self.confirmed_email.lower() == self.user.email.lower()


def profile_of(user) -> Profile:
    """`user`'s profile, made on first use (accounts older than profiles have none yet)."""
    try:
        return user.profile
    except Profile.DoesNotExist:
        profile, _ = Profile.objects.get_or_create(user=user)
        user.profile = profile
        return profile


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class InvitationQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(accepted_at__isnull=True)


class Invitation(models.Model):
    """A roster row whose student has not accepted yet: mailed to `email`; whoever opens the link and accepts
    (signed in, or setting a password for a new account) becomes the student with this student id."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="invitations")
    student_id = models.CharField(max_length=64)
    email = models.EmailField()
    name = models.CharField(max_length=200)
    token = models.CharField(max_length=64, unique=True, default=new_invitation_token)
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="accepted_invitations")

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["course", "name", "student_id"]
        constraints = [
            models.UniqueConstraint(fields=["course", "student_id"], condition=models.Q(accepted_at__isnull=True),
                                    name="one_pending_invitation_per_student_id"),
        ]

    def __str__(self):
        return f"{self.student_id} {self.name} ({self.course})"


class ApiToken(models.Model):
    """A key for the API (`Authorization: Token KEY`), one per client a user names: only its SHA-256 is kept,
    so the key is shown once, when issued (accounts.tokens). It expires, and a new password revokes them all."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60, help_text="Which client it is for, in the owner's words.")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key, in hex.")
    prefix = models.CharField(max_length=8, help_text="The key's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.user}: {self.name} ({self.prefix}…)"
