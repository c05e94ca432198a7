"""Writing notifications, and sending the e-mail copy once the notification has committed."""

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

from .models import Notification, Preference


def notify(user, kind: str, text: str, url: str = "") -> Notification | None:
    """Add `text` to `user`'s inbox (nobody to tell for built-in bots: user None), and e-mail it if they
    asked for that and have an address. Inside a transaction the e-mail waits for the commit."""
    if user is None:
        return None
    notification = Notification.objects.create(user=user, kind=kind, text=text[:500], url=url)
    if user.email and Preference.objects.filter(user=user, email=True).exists():
        link = f"{settings.ARENA_SITE_URL.rstrip('/')}{url}" if url else ""
        transaction.on_commit(lambda: send_mail(
            f"[Arena] {text[:80]}", f"{text}\n\n{link}".strip(), None, [user.email], fail_silently=True))
    return notification
