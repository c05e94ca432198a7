from django.contrib.auth import views as auth_views
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, views

router = SimpleRouter()
router.register("courses", api.CourseViewSet, basename="course")
api_urlpatterns = [
    path("", include(router.urls)),
    path("auth/register/", api.Register.as_view(), name="register"),
    path("auth/token/", api.ObtainToken.as_view(), name="token"),
    path("auth/tokens/", api.OwnTokens.as_view(), name="tokens"),
    path("auth/tokens/<id:pk>/", api.OwnToken.as_view(), name="token-detail"),
]

app_name = "accounts"
urlpatterns = [
    path("courses/new/", views.new_course, name="new_course"),
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/profile/confirm-again/", views.resend_confirmation, name="resend_confirmation"),
    path("accounts/tokens/", views.api_tokens, name="tokens"),
    path("accounts/tokens/<id:pk>/revoke/", views.revoke_api_token, name="revoke_token"),
    path("accounts/confirm/<str:token>/", views.confirm_email, name="confirm_email"),
    path("invitations/<str:token>/", views.invitation, name="invitation"),
    path("register/", views.register, name="register"),
    path("courses/<id:pk>/", views.course_page, name="course"),
]

# Django's account pages under their usual names (included without a namespace by arena/urls.py, under
# accounts/), with the site's templates; signing in is arena/urls.py's rate-limited view.
password_urlpatterns = [
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", views.password_change, name="password_change"),
    path("password_change/done/", views.password_change_done, name="password_change_done"),
    path("password_reset/", views.password_reset, name="password_reset"),
    path("password_reset/done/", views.password_reset_done, name="password_reset_done"),
    path("reset/<uidb64>/<token>/", views.password_reset_confirm, name="password_reset_confirm"),
    path("reset/done/", views.password_reset_complete, name="password_reset_complete"),
]
