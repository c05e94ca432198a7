"""Who a user is beyond their username: the e-mail address they proved to hold (a mailed link), their display
name and time zone (the profile page)."""

from dataclasses import dataclass

from django.core import signing
from django.urls import reverse

from .mail import mail_on_commit, site_link
from .models import Profile, profile_of

CONFIRMATION_SALT = "accounts.confirm-email"
CONFIRMATION_DAYS = 7


class ConfirmationError(ValueError):
    """A confirmation link that does not (or no longer) confirm anything; the message says why."""


@dataclass(frozen=True)
class Confirmed:
    user_id: int
    email: str
    next_url: str  # where the person was going when they registered (a join link, say), or ""


def send_confirmation(user, next_url: str = "") -> None:
    """Mail `user` a link that confirms their current address and then goes on to `next_url`."""
    if not user.email:
        return
    token = signing.dumps({"user": user.pk, "email": user.email, "next": next_url}, salt=CONFIRMATION_SALT)
    mail_on_commit(user.email, "Confirm your e-mail address", "confirm_email.txt",
                   {"user": user, "link": site_link(reverse("accounts:confirm_email", args=[token])),
                    "days": CONFIRMATION_DAYS})


def confirm(token: str) -> Confirmed:
    """Mark the address of a confirmation link as the user's confirmed one (the link is the proof that they
    read mail sent there); refused when the link is forged, too old, or the account's address changed since."""
    from django.contrib.auth import get_user_model

    try:
        data = signing.loads(token, salt=CONFIRMATION_SALT, max_age=CONFIRMATION_DAYS * 86400)
    except signing.SignatureExpired as exc:
        raise ConfirmationError("this confirmation link has expired: send a new one from your profile") from exc
    except signing.BadSignature as exc:
        raise ConfirmationError("this confirmation link is not valid") from exc
    user = get_user_model().objects.filter(pk=data["user"]).first()
    if user is None or user.email.lower() != data["email"].lower():
        raise ConfirmationError("this link confirms an address the account no longer has: send a new one "
                                "from your profile")
    profile = profile_of(user)
    profile.confirmed_email = user.email
    profile.save(update_fields=["confirmed_email"])
    return Confirmed(user.pk, user.email, data.get("next") or "")


def email_confirmed(user) -> bool:
    return profile_of(user).email_confirmed


def update_profile(user, *, display_name: str, email: str, time_zone: str) -> bool:
    """Save what the profile page changes; True if the address changed (then a confirmation is mailed)."""
    profile = profile_of(user)
    profile.display_name, profile.time_zone = display_name, time_zone
    profile.save(update_fields=["display_name", "time_zone"])
    if email.lower() == user.email.lower():
        return False
    user.email = email
    user.save(update_fields=["email"])
    send_confirmation(user)
    return True


def display_names(users) -> dict[int, str]:
    """What the site calls each of `users` (by id): their display name, their full name, or their username;
    one query however many."""
    users = list(users)
    chosen = dict(Profile.objects.filter(user__in=users).exclude(display_name="")
                  .values_list("user_id", "display_name"))
    return {user.pk: chosen.get(user.pk) or user.get_full_name() or user.get_username() for user in users}


def display_name(user) -> str:
    return display_names([user])[user.pk]
