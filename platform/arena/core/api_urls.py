from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from arena.accounts import tokens
from arena.matches import api as views

router = DefaultRouter()
# No `.json` suffix routes: they are undocumented, and the extra actions (versions, code, replay...) took no
# `format` argument, so /api/bots/1/versions.json answered 500. The tournaments' router has none either.
router.include_format_suffixes = False
router.register("courses", views.CourseViewSet, basename="course")
router.register("bots", views.BotViewSet, basename="bot")
router.register("versions", views.VersionViewSet, basename="version")
router.register("matches", views.MatchViewSet, basename="match")
router.register("variants", views.VariantViewSet, basename="variant")

urlpatterns = [
    path("", include(router.urls)),
    path("games/", views.GameList.as_view(), name="games"),
    path("ladder/<str:game>/", views.Ladder.as_view(), name="ladder"),
    path("auth/register/", views.Register.as_view(), name="register"),
    path("auth/token/", views.ObtainToken.as_view(), name="token"),
    path("auth/tokens/", tokens.OwnTokens.as_view(), name="tokens"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    re_path(r"", views.not_found),  # last: whatever the routes above did not match
]
