"""The outbox keeps every mail and shows them all, page by page (it showed only the newest page's worth)."""

import pytest

from arena.notifications.models import OutboxMail
from arena.notifications.views import PAGE

pytestmark = pytest.mark.django_db


def test_every_mail_of_the_outbox_is_reachable_page_by_page(client, make_user):
    OutboxMail.objects.bulk_create(OutboxMail(to=f"s{n}@example.org", subject=f"Mail number {n:03}", body="b")
                                   for n in range(PAGE + 12))
    client.force_login(make_user("root", is_superuser=True, is_staff=True))
    first = client.get("/outbox/").content.decode()
    second = client.get("/outbox/?page=2").content.decode()
    subjects = {f"Mail number {n:03}" for n in range(PAGE + 12)}
    assert {s for s in subjects if s in first} | {s for s in subjects if s in second} == subjects
    assert f"{PAGE + 12} mails" in first and 'rel="next"' in first and 'rel="prev"' in second
    assert client.get("/outbox/?page=not-a-page").status_code == 200
