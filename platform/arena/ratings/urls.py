from django.urls import path

from . import api, pages

api_urlpatterns = [path("ladder/<str:game>/", api.Ladder.as_view(), name="ladder")]

app_name = "ratings"
urlpatterns = [
    path("ladder/<str:game>/", pages.ladder_page, name="ladder"),
]
