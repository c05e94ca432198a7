"""Mail for real: EMAIL_URL configures SMTP; without it the demo prints mail and keeps it for the operators'
outbox page; notification e-mails reach a real SMTP server and their links open the page they name."""

from urllib.parse import urlsplit

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import send_mail

from arena.settings import OUTBOX_BACKEND, email_from_url
from arena.notifications.models import Notification, Preference
from arena.notifications.services import notify
from platform_helpers import active_bot, with_confirmed_email


def test_email_url_names_the_server_its_tls_and_its_credentials():
    assert email_from_url("smtps://arena%40uni.example:p%2Fss@mail.uni.example") == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "mail.uni.example",
        "EMAIL_PORT": 465, "EMAIL_HOST_USER": "arena@uni.example", "EMAIL_HOST_PASSWORD": "p/ss",
        "EMAIL_USE_TLS": False, "EMAIL_USE_SSL": True, "EMAIL_TIMEOUT": 20}
    starttls = email_from_url("smtp+starttls://u:p@relay.example")
    assert (starttls["EMAIL_PORT"], starttls["EMAIL_USE_TLS"], starttls["EMAIL_USE_SSL"]) == (587, True, False)
    assert email_from_url("smtp://localhost:2525")["EMAIL_PORT"] == 2525
    assert email_from_url(None) == {"EMAIL_BACKEND": OUTBOX_BACKEND}
    assert email_from_url("console:")["EMAIL_BACKEND"].endswith("console.EmailBackend")
    for wrong in ("http://mail.example", "smtps://"):
        with pytest.raises(ImproperlyConfigured, match="EMAIL_URL"):
            email_from_url(wrong)


@pytest.mark.django_db
def test_without_a_mail_server_the_operators_read_the_mail_on_the_outbox_page(client, make_user, settings, capsys):
    settings.EMAIL_BACKEND = OUTBOX_BACKEND
    send_mail("Join Algorithms", "Open http://127.0.0.1:8000/invitations/abc/ to join.", None, ["zoe@uni.example"])
    assert "Join Algorithms" in capsys.readouterr().out  # still printed, as the console backend did
    client.force_login(make_user("student"))
    assert client.get("/outbox/").status_code == 403
    client.force_login(make_user("root", is_superuser=True))
    page = client.get("/outbox/").content.decode()
    assert "to zoe@uni.example" in page and '<a href="http://127.0.0.1:8000/invitations/abc/"' in page


@pytest.mark.django_db(transaction=True)
def test_a_notification_mail_reaches_the_smtp_server_and_its_link_opens_the_page(client, make_user, smtp_server,
                                                                                 settings):
    settings.ARENA_SITE_URL = "http://testserver"
    ada = with_confirmed_email(make_user("ada"), "ada@uni.example")
    Preference.objects.create(user=ada, email=True)
    bot = active_bot(ada, name="sharp")
    notify(ada, Notification.Kind.VALIDATION, "Version 1 of ada/sharp accepted", f"/bots/{bot.pk}/")

    mail = smtp_server.wait_for("ada@uni.example", "Version 1 of ada/sharp accepted")
    client.force_login(ada)
    page = client.get(urlsplit(mail.link("/bots/")).path)
    assert page.status_code == 200 and "sharp" in page.content.decode()
