from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("tables", api.TableViewSet, basename="table")
api_urlpatterns = [path("", include(router.urls))]

app_name = "tables"
urlpatterns = [
    path("play/", pages.play, name="play"),
    path("tables/<id:pk>/", pages.table_page, name="table"),
    path("tables/<id:pk>/data/", pages.table_data, name="table_data"),
    path("tables/<id:pk>/events/", pages.table_events, name="table_events"),
    path("tables/<id:pk>/leave/", pages.leave, name="leave"),
    path("tables/join/<str:token>/", pages.invitation, name="join"),
    path("tables/<id:pk>/replay/", pages.replay_page, name="replay"),
    path("tables/<id:pk>/replay/data/", pages.replay_data, name="replay_data"),
    path("tables/<id:pk>/replay/analysis/<id:step>/", pages.replay_analysis, name="replay_analysis"),
    path("tables/<id:pk>/replay/file/", pages.replay_file, name="replay_file"),
]
