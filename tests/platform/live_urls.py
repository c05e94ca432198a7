"""The site's URLs plus one live topic over a plain row, to test arena.core.live by itself
(tests/platform/test_live.py): a user's last name is the version, an inactive user is final."""

from arena.urls import urlpatterns as site_urlpatterns
from django.contrib.auth import get_user_model
from django.urls import path

from arena.core.live import Snapshot, event_stream


def user_snapshot(pk: int):
    user = get_user_model().objects.filter(pk=pk).first()
    if user is None:
        return None
    return Snapshot(version=int(user.last_name or 0), payload={"name": user.first_name}, final=not user.is_active)


def user_stream(request, pk: int):
    return event_stream(request, f"user:{pk}", lambda: user_snapshot(pk))


urlpatterns = [path("live-test/<int:pk>/", user_stream, name="live_test"), *site_urlpatterns]
