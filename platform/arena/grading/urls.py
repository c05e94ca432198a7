from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, pages

router = SimpleRouter()
router.register("assignments", api.AssignmentViewSet, basename="assignment")
router.register("grading-runs", api.GradingRunViewSet, basename="grading-run")
router.register("submissions", api.SubmissionViewSet, basename="submission")

# Included by arena/urls.py: the API under /api/, the pages at the site's root.
api_urlpatterns = [
    path("courses/<id:pk>/people/", api.CoursePeople.as_view(), name="course-people"),
    path("courses/<id:pk>/roster/", api.Roster.as_view(), name="course-roster"),
    path("courses/<id:pk>/teams/", api.Teams.as_view(), name="course-teams"),
    path("courses/<id:pk>/assistants/", api.Assistants.as_view(), name="course-assistants"),
    path("courses/<id:pk>/instructors/", api.Instructors.as_view(), name="course-instructors"),
    path("", include(router.urls)),
]

app_name = "grading"
urlpatterns = [
    path("join/<str:code>/", pages.join, name="join"),
    path("courses/<id:pk>/people/", pages.people, name="people"),
    path("courses/<id:pk>/people/roster/", pages.upload_roster, name="upload_roster"),
    path("courses/<id:pk>/people/invitations/<id:invitation_pk>/resend/", pages.resend_invitation,
         name="resend_invitation"),
    path("courses/<id:pk>/people/assistants/", pages.add_assistant, name="add_assistant"),
    path("courses/<id:pk>/people/instructors/", pages.add_instructor, name="add_instructor"),
    path("courses/<id:pk>/people/teams/", pages.create_team, name="create_team"),
    path("courses/<id:pk>/people/invite/", pages.reset_invite, name="reset_invite"),
    path("courses/<id:pk>/people/time-zone/", pages.set_time_zone, name="set_time_zone"),
    path("courses/<id:pk>/people/student-ids/", pages.ask_student_ids, name="ask_student_ids"),
    path("courses/<id:pk>/assignments/", pages.assignments, name="assignments"),
    path("assignments/<id:pk>/", pages.assignment, name="assignment"),
    path("assignments/<id:pk>/edit/", pages.edit, name="edit"),
    path("assignments/<id:pk>/run/", pages.run_progress, name="run_progress"),
    path("assignments/<id:pk>/run/start/", pages.start_run, name="start_run"),
    path("assignments/<id:pk>/runs/<id:run_pk>/replay/", pages.replay_set_aside, name="replay_set_aside"),
    path("assignments/<id:pk>/rubric/", pages.add_part, name="add_part"),
    path("assignments/<id:pk>/rubric/<id:part_pk>/remove/", pages.remove_part, name="remove_part"),
    path("assignments/<id:pk>/submit/", pages.submit, name="submit"),
    path("assignments/<id:pk>/withdraw/", pages.withdraw, name="withdraw"),
    path("assignments/<id:pk>/grades/<id:submission_pk>/", pages.grade, name="grade"),
    path("assignments/<id:pk>/grades/<id:submission_pk>/adjust/", pages.adjust, name="adjust"),
    path("assignments/<id:pk>/grades.csv", pages.export_csv, name="export"),
    path("assignments/<id:pk>/similarity/", pages.similarity, name="similarity"),
    path("assignments/<id:pk>/similarity/<id:a_pk>/<id:b_pk>/", pages.similarity_pair, name="similarity_pair"),
    path("assignments/<id:pk>/starter.py", pages.assignment_starter, name="assignment_starter"),
]
