from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("rooms", api.RoomViewSet, basename="room")

# Included by arena/urls.py: the API under /api/, the pages at the site's root.
api_urlpatterns = [path("", include(router.urls))]

app_name = "rooms"
urlpatterns = [
    path("courses/<id:pk>/rooms/new/", pages.open_room, name="open"),
    path("rooms/<id:pk>/", pages.room_page, name="room"),
    path("rooms/<id:pk>/events/", pages.room_events, name="events"),
    path("rooms/<id:pk>/results.csv", pages.results_download, name="results"),
    path("rooms/<id:pk>/<str:verb>/", pages.act, name="act"),
]
