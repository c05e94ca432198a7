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
    path("bots/<id:pk>/", pages.bot_page, name="bot"),
    path("bots/<id:pk>/upload/", pages.upload, name="upload"),
    path("bots/<id:pk>/versions/live/", pages.versions_live, name="versions_live"),
    path("bots/<id:pk>/versions/<id:number>/code/", pages.version_code, name="version_code"),
]
