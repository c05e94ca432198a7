"""Writing notifications, and sending the e-mail copy once the notification has committed."""

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F

from .models import Notification, Preference


def notify(user, kind: str, text: str, url: str = "") -> Notification | None:
    """Add `text` to `user`'s inbox (nobody to tell for built-in bots: user None), and e-mail it if they
    asked for that and have confirmed their address. Inside a transaction the e-mail waits for the commit."""
    notifications = notify_all([user], kind, text, url)
    return notifications[0] if notifications else None


def notify_all(users, kind: str, text: str, url: str = "") -> list[Notification]:
    """`notify` each of `users` (None skipped, each user once) in one write, and one look-up of who wants
    the e-mail."""
    everyone = list({user.pk: user for user in users if user is not None}.values())
    notifications = Notification.objects.bulk_create(
        Notification(user=user, kind=kind, text=text[:500], url=url) for user in everyone)
    with_address = {user.pk: user for user in everyone if user.email}
    if with_address:
        link = f"{settings.ARENA_SITE_URL.rstrip('/')}{url}" if url else ""
        # Only to an address its owner confirmed: anyone can type someone else's address into a profile.
        wanted = Preference.objects.filter(user__in=with_address, email=True,
                                           user__profile__confirmed_email__iexact=F("user__email"))
        for user_id in wanted.values_list("user", flat=True):
            address = with_address[user_id].email
            transaction.on_commit(lambda address=address: send_mail(
                f"[Arena] {text[:80]}", f"{text}\n\n{link}".strip(), None, [address], fail_silently=True))
    return notifications
