from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("bots", api.BotViewSet, basename="bot")
router.register("versions", api.VersionViewSet, basename="version")
api_urlpatterns = [path("", include(router.urls))]

app_name = "bots"
urlpatterns = [
    path("bots/new/", pages.new_bot, name="new_bot"),
    path("bots/<int:pk>/", pages.bot_page, name="bot"),
    path("bots/<int:pk>/upload/", pages.upload, name="upload"),
    path("bots/<int:pk>/versions/live/", pages.versions_live, name="versions_live"),
    path("bots/<int:pk>/versions/<int:number>/code/", pages.version_code, name="version_code"),
]
