"""A URL configuration of the bots' API alone, with the schema view: a small schema, generated in a moment
(tests/platform/test_api.py checks that the schema served follows the URL conf and the settings)."""

from django.urls import include, path

from arena.bots import urls as bot_urls
from arena.core import urls as core_urls

urlpatterns = [path("api/", include(core_urls.api_urlpatterns)), path("api/", include(bot_urls.api_urlpatterns))]
