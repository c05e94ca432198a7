"""A student's inbox: one row per thing that happened to them while they were elsewhere."""

from django.conf import settings
from django.db import models


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    class Kind(models.TextChoices):
        MATCH = "match", "match finished"
        VALIDATION = "validation", "validation"
        UPLOAD = "upload", "upload refused"
        TOURNAMENT = "tournament", "tournament"
        COURSE = "course", "course invitation"
        SET_ASIDE = "set_aside", "match set aside (platform fault)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.CharField(max_length=500)
    url = models.CharField(max_length=200, blank=True, help_text="Where to look (a match, a bot, a tournament).")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self):
        return f"{self.user}: {self.text}"


class Preference(models.Model):
    """Whether a user also wants each notification by e-mail (off until they ask for it)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="notification_preference")
    email = models.BooleanField(default=False)


class OutboxMail(models.Model):
    """A mail sent while no mail server is configured (notifications.outbox): the operators' outbox page."""

    to = models.TextField()
    subject = models.CharField(max_length=200)
    body = models.TextField()
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-id"]

    def __str__(self):
        return f"{self.to}: {self.subject}"
