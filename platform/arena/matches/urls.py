from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("matches", api.MatchViewSet, basename="match")
api_urlpatterns = [path("", include(router.urls))]

app_name = "matches"
urlpatterns = [
    path("bots/<id:pk>/challenge/", pages.challenge, name="challenge"),
    path("bots/<id:pk>/challenge-with-mine/", pages.challenge_opponent, name="challenge_opponent"),
    path("matches/<id:pk>/", pages.match_page, name="match"),
    path("matches/<id:pk>/live/", pages.match_live, name="match_live"),
    path("matches/<id:pk>/stream/", pages.match_stream, name="stream"),
    path("matches/<id:pk>/replay/", pages.replay_page, name="replay"),
    path("matches/<id:pk>/replay/data/", pages.replay_data, name="replay_data"),
    path("matches/<id:pk>/replay/analysis/<id:step>/", pages.replay_analysis, name="replay_analysis"),
    path("matches/<id:pk>/replay/file/", pages.replay_file, name="replay_file"),
]
