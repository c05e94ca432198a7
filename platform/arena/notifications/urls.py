from django.urls import path

from . import views

app_name = "notifications"
urlpatterns = [
    path("inbox/", views.inbox, name="inbox"),
    path("inbox/email/", views.email_preference, name="email"),
    path("outbox/", views.outbox, name="outbox"),
    path("inbox/read/", views.mark_read, name="mark_read"),
]
