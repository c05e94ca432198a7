from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("variants", api.VariantViewSet, basename="variant")
api_urlpatterns = [
    path("", include(router.urls)),
    path("games/", api.GameList.as_view(), name="games"),
]

app_name = "variants"
urlpatterns = [
    path("games/<str:game>/", pages.game_guide, name="game_guide"),
    path("games/<str:game>/example.py", pages.game_example, name="game_example"),
    path("docs/<slug:slug>/", pages.site_doc, name="doc"),
    path("courses/<id:pk>/variants/new/", pages.new_variant, name="new_variant"),
    path("courses/<id:pk>/variants/<id:variant_pk>/delete/", pages.delete_variant, name="delete_variant"),
]
