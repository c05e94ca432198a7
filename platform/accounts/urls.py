from django.urls import path

from . import views

app_name = "accounts"
urlpatterns = [
    path("courses/new/", views.new_course, name="new_course"),
]
