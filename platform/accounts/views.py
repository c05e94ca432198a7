"""Pages of one's own account and of making courses: the new-course form, the profile, the e-mail
confirmation, the roster invitations and the password pages (styled as the site, not as the admin)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render

from . import courses
from .forms import CourseForm


@login_required
def new_course(request):
    if not courses.may_create_courses(request.user):
        raise PermissionDenied("creating courses needs an operator's permission")
    form = CourseForm(request.POST if request.method == "POST" else None, initial={"time_zone": "UTC"})
    if request.method == "POST" and form.is_valid():
        try:
            course = courses.create_course(request.user, **form.cleaned_data)
        except courses.CourseRefused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{course.name} created: invite its students from People.")
            return redirect("web:course", course.pk)
    return render(request, "accounts/new_course.html", {"form": form},
                  status=400 if form.is_bound and form.errors else 200)
