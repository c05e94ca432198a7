from django.urls import path

from arena.matches import pages as views

app_name = "web"
urlpatterns = [
    path("", views.home, name="home"),
    path("register/", views.register, name="register"),
    path("bots/new/", views.new_bot, name="new_bot"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/upload/", views.upload, name="upload"),
    path("bots/<int:pk>/versions/live/", views.versions_live, name="versions_live"),
    path("bots/<int:pk>/challenge/", views.challenge, name="challenge"),
    path("bots/<int:pk>/challenge-with-mine/", views.challenge_opponent, name="challenge_opponent"),
    path("bots/<int:pk>/versions/<int:number>/code/", views.version_code, name="version_code"),
    path("courses/<int:pk>/", views.course_page, name="course"),
    path("courses/<int:pk>/variants/new/", views.new_variant, name="new_variant"),
    path("courses/<int:pk>/variants/<int:variant_pk>/delete/", views.delete_variant, name="delete_variant"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("matches/<int:pk>/live/", views.match_live, name="match_live"),
    path("matches/<int:pk>/replay/", views.replay_page, name="replay"),
    path("matches/<int:pk>/replay/data/", views.replay_data, name="replay_data"),
    path("matches/<int:pk>/replay/analysis/<int:step>/", views.replay_analysis, name="replay_analysis"),
    path("matches/<int:pk>/replay/file/", views.replay_file, name="replay_file"),
    path("ladder/<str:game>/", views.ladder_page, name="ladder"),
    path("games/<str:game>/", views.game_guide, name="game_guide"),
    path("games/<str:game>/example.py", views.game_example, name="game_example"),
    path("assignments/<int:pk>/starter.py", views.assignment_starter, name="assignment_starter"),
]
