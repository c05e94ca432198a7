from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("tournaments", api.TournamentViewSet, basename="tournament")
router.register("entry-requests", api.EntryRequestViewSet, basename="entry-request")

# Included by arena/urls.py: the API under /api/, the pages at the site's root.
api_urlpatterns = [path("", include(router.urls))]

app_name = "tournaments"
urlpatterns = [
    path("courses/<id:pk>/tournaments/", pages.course_tournaments, name="course"),
    path("tournaments/<id:pk>/", pages.detail, name="detail"),
    path("tournaments/<id:pk>/live/", pages.live, name="live"),
    path("tournaments/<id:pk>/entrants/", pages.add_entrant, name="add_entrant"),
    path("tournaments/<id:pk>/entrants/course/", pages.add_course_bots, name="add_course_bots"),
    path("tournaments/<id:pk>/entrants/<id:entrant_pk>/remove/", pages.remove_entrant, name="remove_entrant"),
    path("tournaments/<id:pk>/<str:verb>/", pages.steer, name="steer"),
    path("entries/<id:pk>/<str:answer>/", pages.answer_entry, name="answer_entry"),
]
