"""The site's own mail (address confirmations, roster invitations): plain text from a template, sent once
the transaction that caused it has committed, with links to the site as its users reach it."""

import logging
import smtplib

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)


def site_link(path: str) -> str:
    return f"{settings.ARENA_SITE_URL.rstrip('/')}{path}"


def mail_on_commit(to: str, subject: str, template: str, context: dict) -> None:
    """Mail `template` (under accounts/mail/) to `to` once the current transaction commits. A mail server that
    refuses is logged, not raised: the change it announces stands, and the page says how to get the link again."""
    body = render_to_string(f"accounts/mail/{template}", context)

    def send():
        try:
            send_mail(f"[Arena] {subject}", body, None, [to])
        except (OSError, smtplib.SMTPException):
            logger.exception("could not mail %r to %s", subject, to)

    transaction.on_commit(send)
