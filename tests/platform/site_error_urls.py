"""A URL configuration with a view that fails, to see the 500 page (tests/platform/test_site.py)."""

from arena.urls import handler500, urlpatterns as site_urlpatterns  # noqa: F401 - Django reads handler500 here
from django.urls import path


def boom(request):
    raise RuntimeError("a failing view, on purpose")


urlpatterns = [path("boom/", boom), *site_urlpatterns]
