"""The site's URLs: each domain app's urls.py holds its pages (`urlpatterns`, under its own namespace) and its
API (`api_urlpatterns`, under /api/). Every app of the package in INSTALLED_APPS that has a urls.py is included,
in that order: a new domain app is its folder and its line in INSTALLED_APPS, nothing here."""

from importlib import import_module

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.staticfiles.views import serve
from django.urls import include, path, re_path
from django.utils.module_loading import module_has_submodule

from arena.accounts import urls as account_urls
from arena.accounts import views as account_views
from arena.core import urls as core_urls
from arena.core.ratelimit import rate_limited
from arena.core.throttles import CredentialsAddressThrottle, PasswordResetThrottle, SignInThrottle

domain_urls = [import_module(f"{config.name}.urls") for config in apps.get_app_configs()
               if config.name.startswith("arena.") and module_has_submodule(config.module, "urls")]

# Sign-in attempts (the admin's, the site's) and password reset requests are rate limited per (address,
# account) and per address, as the API's token endpoint is.
sign_in_limited = rate_limited(SignInThrottle, CredentialsAddressThrottle)
urlpatterns = [
    path("admin/login/", sign_in_limited(admin.site.login)),
    path("admin/", admin.site.urls),
    *(path("api/", include(urls.api_urlpatterns)) for urls in domain_urls if hasattr(urls, "api_urlpatterns")),
    path("api/", include(core_urls.api_fallback_urlpatterns)),
    path("accounts/login/", sign_in_limited(auth_views.LoginView.as_view()), name="login"),
    path("accounts/password_reset/", rate_limited(PasswordResetThrottle, CredentialsAddressThrottle)(
        account_views.password_reset), name="password_reset"),
    path("accounts/", include(account_urls.password_urlpatterns)),
    *(path("", include(urls)) for urls in domain_urls),
]

if settings.ARENA_SERVE_STATIC:
    # The embedded setup has no web server in front: Django serves the (small) static files itself.
    urlpatterns.append(re_path(r"^static/(?P<path>.*)$", serve, {"insecure": True}))

# Every error status is the site's page (or JSON under /api/), through arena.core.errors.
handler400 = "arena.core.errors.bad_request"
handler403 = "arena.core.errors.permission_denied"
handler404 = "arena.core.errors.page_not_found"
handler500 = "arena.core.errors.server_error"
