from django.urls import path, re_path
from drf_spectacular.views import SpectacularSwaggerView

from . import api, pages

app_name = "core"
urlpatterns = [
    path("", pages.home, name="home"),
]

# Under /api/: the entry, the OpenAPI schema and its browsable page; each domain adds its own endpoints.
api_urlpatterns = [
    path("", api.APIRoot.as_view(), name="api-root"),
    path("schema/", api.SchemaView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]
# Last under /api/: whatever the domains' routes did not match.
api_fallback_urlpatterns = [re_path(r"", api.not_found)]
