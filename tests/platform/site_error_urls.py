"""A URL configuration with views that fail in each way, to see the error pages (tests/platform/test_site.py,
test_error_pages.py): the same views under /api/ answer JSON."""

from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404
from django.urls import path

from arena.core.errors import TooMany
from arena.urls import handler400, handler403, handler404, handler500  # noqa: F401 - Django reads these here
from arena.urls import urlpatterns as site_urlpatterns

FAILURES = {
    "400": BadRequest("a malformed request, on purpose"),
    "403": PermissionDenied("only the course's instructors can do this"),
    "404": Http404("no such tournament"),
    "429": TooMany("too many challenges in a minute", retry_after=30),
    "500": RuntimeError("a failing view, on purpose"),
}


def fail(request, status):
    raise FAILURES[status]


urlpatterns = [path("boom/", fail, {"status": "500"}), path("fail/<str:status>/", fail),
               path("api/fail/<str:status>/", fail), *site_urlpatterns]
