from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("matches", api.MatchViewSet, basename="match")
api_urlpatterns = [path("", include(router.urls))]

app_name = "matches"
urlpatterns = [
    path("bots/<int:pk>/challenge/", pages.challenge, name="challenge"),
    path("bots/<int:pk>/challenge-with-mine/", pages.challenge_opponent, name="challenge_opponent"),
    path("matches/<int:pk>/", pages.match_page, name="match"),
    path("matches/<int:pk>/live/", pages.match_live, name="match_live"),
    path("matches/<int:pk>/stream/", pages.match_stream, name="stream"),
    path("matches/<int:pk>/replay/", pages.replay_page, name="replay"),
    path("matches/<int:pk>/replay/data/", pages.replay_data, name="replay_data"),
    path("matches/<int:pk>/replay/analysis/<int:step>/", pages.replay_analysis, name="replay_analysis"),
    path("matches/<int:pk>/replay/file/", pages.replay_file, name="replay_file"),
]
