"""Pages of one's own account and of making courses: the new-course form, the profile, the e-mail
confirmation, the roster invitations and the password pages (styled as the site, not as the admin); registering;
a course's own page."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_POST

from arena.core.ratelimit import rate_limited
from arena.core.throttles import RegisterThrottle
from arena.variants.forms import VariantForm

from . import courses, identity, people, tokens
from .access import attended_course, teaches
from .forms import ApiTokenForm, CourseForm, InvitedAccountForm, ProfileForm, RegisterForm
from .identity import send_confirmation
from .models import Course, profile_of
from .navigation import safe_next


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
            return redirect("accounts:course", course.pk)
    return render(request, "accounts/new_course.html", {"form": form},
                  status=400 if form.is_bound and form.errors else 200)


def invitation(request, token):
    """A roster invitation's mailed link: which course invites whom; signed in, accepting enrols this account;
    signed out, choosing a username and password makes the account and enrols it (or sign in and come back).
    Opening the link enrols no one: only the button's POST does."""
    try:
        invited = people.pending_invitation(token)
    except people.PeopleError as exc:
        messages.error(request, str(exc))
        return redirect("core:home")
    form = None
    if not request.user.is_authenticated:
        suggested = invited.email.split("@")[0]
        form = InvitedAccountForm(request.POST if request.method == "POST" else None, initial={"username": suggested})
    if request.method == "POST" and (form is None or form.is_valid()):
        try:
            if form is None:
                course = people.accept_invitation(request.user, token)
            else:
                user = people.accept_as_new_account(token, form.cleaned_data["username"],
                                                    form.cleaned_data["password1"])
                login(request, user)
                course = invited.course
        except people.PeopleError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"You are enrolled in {course.name} (student id {invited.student_id}).")
            return redirect("accounts:course", course.pk)
    return render(request, "accounts/invitation.html", {"invitation": invited, "form": form,
                                                         "here": request.get_full_path()},
                  status=400 if form is not None and form.is_bound else 200)


def confirm_email(request, token):
    """The link of a confirmation mail: the address is confirmed, and the person goes on where they were going
    when they registered (a course's join page, say). Opening it needs no sign-in: the mail is the proof."""
    try:
        confirmed = identity.confirm(token)
    except identity.ConfirmationError as exc:
        messages.error(request, str(exc))
        return redirect("accounts:profile" if request.user.is_authenticated else "login")
    messages.success(request, f"{confirmed.email} is confirmed.")
    return redirect(safe_next(request, confirmed.next_url) or
                    ("accounts:profile" if request.user.is_authenticated else "login"))


@login_required
def profile(request):
    user = request.user
    stored = profile_of(user)
    form = ProfileForm(request.POST if request.method == "POST" else None, initial={
        "display_name": stored.display_name, "email": user.email, "time_zone": stored.time_zone})
    if request.method == "POST" and form.is_valid():
        if identity.update_profile(user, **form.cleaned_data):
            messages.success(request, f"Saved. We sent a confirmation link to {user.email}.")
        else:
            messages.success(request, "Saved.")
        return redirect("accounts:profile")
    return render(request, "accounts/profile.html", {"form": form, "profile": stored},
                  status=400 if form.is_bound else 200)


@login_required
@require_POST
def resend_confirmation(request):
    identity.send_confirmation(request.user)
    messages.success(request, f"We sent a new confirmation link to {request.user.email}.")
    return redirect("accounts:profile")


class ResetForm(PasswordResetForm):
    """Django's reset, also for accounts that never had a password (rostered before invitations existed):
    Django skips those, so they could never sign in."""

    def get_users(self, email):
        from django.contrib.auth import get_user_model

        return get_user_model()._default_manager.filter(email__iexact=email, is_active=True)


# Django's password views with the site's own templates (its defaults are the admin's, styled as the admin).
password_reset = auth_views.PasswordResetView.as_view(
    form_class=ResetForm, template_name="accounts/password_reset.html",
    email_template_name="accounts/mail/password_reset.txt", subject_template_name="accounts/mail/password_reset_subject.txt")
password_reset_done = auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html")
password_reset_confirm = auth_views.PasswordResetConfirmView.as_view(
    template_name="accounts/password_reset_confirm.html", post_reset_login=True,
    success_url=reverse_lazy("password_reset_complete"))
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(
    template_name="accounts/password_reset_complete.html")
password_change = auth_views.PasswordChangeView.as_view(template_name="accounts/password_change.html")
password_change_done = auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html")


@login_required
def api_tokens(request):
    """Your API tokens (made, last used, expiry) and a form for a new one, whose key this answer shows once."""
    form = ApiTokenForm(request.POST if request.method == "POST" else None)
    issued = None
    if request.method == "POST" and form.is_valid():
        issued = tokens.issue(request.user, form.cleaned_data["name"])
        form = ApiTokenForm()
    return render(request, "accounts/tokens.html", {"form": form, "issued": issued, "days": settings.ARENA_TOKEN_DAYS,
                                                    "tokens": tokens.tokens_of(request.user)},
                  status=400 if form.errors else 200)


@login_required
@require_POST
def revoke_api_token(request, pk):
    tokens.revoke(request.user, pk)  # NotFound for anyone else's: a 404 page
    messages.success(request, "Token revoked: clients using it are refused from now on.")
    return redirect("accounts:tokens")


@rate_limited(RegisterThrottle)
def register(request):
    """A new account, signed in at once; it goes on where it was going (a course's join link, say) and is
    mailed a link confirming its address."""
    next_url = safe_next(request)
    form = RegisterForm(request.POST or None)
    if form.is_valid():
        user = form.save()
        login(request, user)
        send_confirmation(user, next_url)
        messages.success(request, f"Welcome, {user.username}. We sent a link to {user.email}: open it to confirm "
                                  f"your address.")
        return redirect(next_url or "core:home")
    return render(request, "registration/register.html", {"form": form, "next": next_url})


@login_required
def course_page(request, pk):
    return render_course_page(request, attended_course(request.user, pk))


def render_course_page(request, course: Course, variant_form: VariantForm | None = None):
    context = {
        "course": course,
        "variants": course.variants.select_related("created_by"),
        "teaches": teaches(request.user, course),
        "variant_form": variant_form or VariantForm(),
        "max_variant": settings.ARENA_MAX_VARIANT_BYTES,
    }
    return render(request, "accounts/course.html", context, status=400 if variant_form else 200)
