from django.conf import settings
from django.contrib import admin
from django.contrib.staticfiles.views import serve
from django.urls import include, path, re_path
from grading import urls as grading_urls
from tournaments import urls as tournament_urls

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(tournament_urls.api_urlpatterns)),
    path("api/", include(grading_urls.api_urlpatterns)),
    path("api/", include("api.urls")),
    path("", include(tournament_urls)),
    path("", include(grading_urls)),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("web.urls")),
]

if settings.ARENA_SERVE_STATIC:
    # The embedded setup has no web server in front: Django serves the (small) static files itself.
    urlpatterns.append(re_path(r"^static/(?P<path>.*)$", serve, {"insecure": True}))
