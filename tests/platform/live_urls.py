"""The site's URLs plus one live topic over a plain row, to test arena.core.live by itself
(tests/platform/test_live.py): a user's last name is the version, an inactive user is final.

`/live-test/<pk>/` is what the user sees alone (each person an audience of their own); `/live-test/<pk>/hall/`
is the same topic for one audience shared by everyone, whose snapshot reads are counted
(`/live-test/reads/`: how many this server process made, for a test that runs the server in another process)."""

import threading

from arena.urls import urlpatterns as site_urlpatterns
from django.contrib.auth import get_user_model
from django.http import JsonResponse
from django.urls import path

from arena.core.live import Snapshot, event_stream



class Count:
    def __init__(self):
        self.lock = threading.Lock()
        self.value = 0

    def add(self) -> None:
        with self.lock:
            self.value += 1


hall_reads = Count()  # snapshot reads of the shared audience in this process


def user_snapshot(pk: int):
    user = get_user_model().objects.filter(pk=pk).first()
    if user is None:
        return None
    return Snapshot(version=int(user.last_name or 0), payload={"name": user.first_name}, final=not user.is_active)


def user_stream(request, pk: int):
    return event_stream(request, f"user:{pk}", lambda: user_snapshot(pk))


def counted_snapshot(pk: int):
    hall_reads.add()
    return user_snapshot(pk)


def hall_stream(request, pk: int):
    return event_stream(request, f"user:{pk}", lambda: counted_snapshot(pk), audience="everyone")


def reads(request):
    return JsonResponse({"reads": hall_reads.value})


urlpatterns = [path("live-test/<int:pk>/", user_stream, name="live_test"),
               path("live-test/<int:pk>/hall/", hall_stream, name="live_test_hall"),
               path("live-test/reads/", reads), *site_urlpatterns]
