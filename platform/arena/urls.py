"""The site's URLs: each domain app's urls.py holds its pages (`urlpatterns`, under its own namespace) and its
API (`api_urlpatterns`, under /api/); a new domain is one more line in DOMAINS."""

from importlib import import_module

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.staticfiles.views import serve
from django.urls import include, path, re_path

from arena.accounts import urls as account_urls
from arena.accounts import views as account_views
from arena.core import urls as core_urls
from arena.core.ratelimit import rate_limited
from arena.core.throttles import CredentialsAddressThrottle, PasswordResetThrottle, SignInThrottle

DOMAINS = [
    "arena.core",
    "arena.accounts",
    "arena.bots",
    "arena.matches",
    "arena.ratings",
    "arena.variants",
    "arena.tournaments",
    "arena.grading",
    "arena.notifications",
]
domain_urls = [import_module(f"{domain}.urls") for domain in DOMAINS]

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

# The 404 page is Django's view with core/templates/404.html; the 500 page keeps the site's header too.
handler500 = "arena.core.pages.server_error"
