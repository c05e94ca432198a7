"""Pages of courses' people and assignments: the roster, teams and invitation link; an assignment's
dashboard (staff) or submission (students); the drill-down behind a grade; the gradebook CSV.
Access follows grading.permissions.require (roles of accounts.access)."""

from itertools import zip_longest
from contextlib import contextmanager

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from games import get_game

from arena.accounts import courses as course_services
from arena.accounts import people as people_services
from arena.accounts.access import role_in
from arena.accounts.forms import StudentIdForm
from arena.accounts.models import Course
from arena.accounts.timezones import viewer_zone
from arena.core.downloads import csv_download, python_download
from arena.core.live import Snapshot, event_stream, rendered_part

from . import charts, code_similarity, presentation, runs, services
from . import parts
from .forms import (AdjustForm, AssignmentForm, AssistantForm, PartForm, RosterForm, StudentIdsForm, SubmitForm,
                    TeamForm, TimeZoneForm, part_forms)
from .models import Assignment, RubricPart, Submission
from .permissions import ASSISTANT, INSTRUCTOR, STUDENT, require


@contextmanager
def course_time(request, course: Course):
    """Times read from forms and shown in a course's pages are in the viewer's zone: their own (profile), else
    the course's (stored in UTC)."""
    with timezone.override(viewer_zone(request, course)):
        yield


def _render(request, course, template, context):
    with course_time(request, course):
        return render(request, template, {"course": course, "role": role_in(request.user, course),
                                          "zone": timezone.get_current_timezone_name(), **context})


# --- people -------------------------------------------------------------------------------------------------

@login_required
def people(request, pk):
    course = get_object_or_404(Course, pk=pk)
    role = require(request.user, course, STUDENT)
    context = {"teams": course.teams.prefetch_related("members"),
               "instructors": course.instructors.order_by("username"),
               "assistants": course.teaching_assistants.order_by("username")}
    if role != STUDENT:
        roster = {entry.user_id: entry for entry in course.roster.all()}
        context["students"] = [(s, roster.get(s.pk)) for s in course.students.order_by("username")]
        context["invite_url"] = request.build_absolute_uri(f"/join/{course.invite_code}/")
        context["invitations"] = course.invitations.pending()
        # Without a mail server (the demo) the invitations wait in the operators' outbox: say where.
        context["mail_kept"] = settings.EMAIL_BACKEND == settings.OUTBOX_BACKEND
    if role == INSTRUCTOR:
        context.update(roster_form=RosterForm(), assistant_form=AssistantForm(), team_form=TeamForm(course=course),
                       time_zone_form=TimeZoneForm(initial={"time_zone": course.time_zone}),
                       student_ids_form=StudentIdsForm(initial={"asks_student_id": course.asks_student_id}))
    return _render(request, course, "grading/people.html", context)


def _people_verb(request, pk, form_class, verb):
    """An instructor's change of the course's people: `verb(course, cleaned data)` once the form is valid;
    a form class taking the course (course-aware choices) declares `takes_course`."""
    course = get_object_or_404(Course, pk=pk)
    require(request.user, course, INSTRUCTOR)
    extra = {"course": course} if getattr(form_class, "takes_course", False) else {}
    form = form_class(request.POST, request.FILES, **extra) if form_class else None
    if form is not None and not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect("grading:people", course.pk)
    try:
        verb(course, form.cleaned_data if form else None)
    except people_services.PeopleError as exc:
        messages.error(request, str(exc))
    return redirect("grading:people", course.pk)


@login_required
@require_POST
def resend_invitation(request, pk, invitation_pk):
    def verb(course, data):
        invitation = people_services.resend_invitation(request.user, course, invitation_pk)
        messages.success(request, f"Invitation sent again to {invitation.email}, with a new link (the old one "
                                  f"no longer works).")
    return _people_verb(request, pk, None, verb)


@login_required
@require_POST
def upload_roster(request, pk):
    def verb(course, data):
        text = data["file"].read().decode("utf-8", errors="replace")
        report = people_services.import_roster(request.user, course, text)
        messages.success(request, f"Roster: {len(report.created)} enrolled, {len(report.invited)} invited, "
                                  f"{len(report.updated)} updated, "
                                  f"{len(report.unchanged)} unchanged, {len(report.failed)} failed.")
        for failure in report.failed:
            messages.error(request, f"line {failure['line']}: {failure['reason']}")
    return _people_verb(request, pk, RosterForm, verb)


@login_required
@require_POST
def add_assistant(request, pk):
    return _people_verb(request, pk, AssistantForm, lambda course, data: people_services.add_assistant(
        request.user, course, data["username"]))


@login_required
@require_POST
def add_instructor(request, pk):
    return _people_verb(request, pk, AssistantForm, lambda course, data: course_services.add_instructor(
        request.user, course, data["username"]))


@login_required
@require_POST
def create_team(request, pk):
    return _people_verb(request, pk, TeamForm, lambda course, data: people_services.create_team(
        request.user, course, data["name"], data["members"]))


@login_required
@require_POST
def set_time_zone(request, pk):
    return _people_verb(request, pk, TimeZoneForm, lambda course, data: people_services.set_time_zone(
        request.user, course, data["time_zone"]))


@login_required
@require_POST
def ask_student_ids(request, pk):
    return _people_verb(request, pk, StudentIdsForm, lambda course, data: course_services.ask_student_ids(
        request.user, course, data["asks_student_id"]))


@login_required
@require_POST
def reset_invite(request, pk):
    return _people_verb(request, pk, None, lambda course, _: people_services.reset_invite(request.user, course))


def join(request, code):
    """The invitation link: a page saying which course it is (a link opened by a preview or a prefetch
    enrols no one), and enrolment on its button's POST. Signed out, the page says so and its sign-in and
    register links come back here; a course that wants student ids asks for one."""
    try:
        course = people_services.invited_course(code)
    except people_services.PeopleError as exc:
        messages.error(request, str(exc))
        return redirect("core:home")
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = StudentIdForm(request.POST if request.method == "POST" else None) if course.asks_student_id else None
    if request.method == "POST" and (form is None or form.is_valid()):
        student_id = form.cleaned_data["student_id"] if form else ""
        try:
            people_services.join(request.user, code, student_id=student_id)
        except people_services.PeopleError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"You are enrolled in {course.name}.")
            return redirect("accounts:course", course.pk)
    return render(request, "grading/join.html", {"course": course, "role": role_in(request.user, course),
                                                 "form": form, "here": request.get_full_path()},
                  status=400 if form is not None and form.is_bound else 200)


# --- assignments ----------------------------------------------------------------------------------------------

@login_required
def assignments(request, pk):
    course = get_object_or_404(Course, pk=pk)
    role = require(request.user, course, STUDENT)
    form = None
    if role == INSTRUCTOR:
        with course_time(request, course):
            form = AssignmentForm(request.POST or None, course=course)
            if request.method == "POST" and form.is_valid():
                try:
                    assignment = services.create_assignment(request.user, course, **form.cleaned_data)
                    messages.success(request, f"{assignment.title} created: now build its rubric.")
                    return redirect("grading:assignment", assignment.pk)
                except services.GradingError as exc:
                    messages.error(request, str(exc))
    return _render(request, course, "grading/assignments.html",
                   {"assignments": course.assignments.all(), "form": form})


def _assignment(request, pk, needed=STUDENT) -> tuple[Assignment, str]:
    assignment = get_object_or_404(Assignment.objects.select_related("course"), pk=pk)
    return assignment, require(request.user, assignment.course, needed)


@login_required
def assignment(request, pk, bound_part_form: PartForm | None = None):
    assignment, role = _assignment(request, pk)
    rubric = [{"part": part, "words": parts.KINDS[part.kind].explain(part.params)} for part in assignment.rubric.all()]
    context = {"assignment": assignment, "rubric": rubric, "game_title": get_game(assignment.game).title,
               "similarity_url": reverse("grading:similarity", args=[assignment.pk]) if role != STUDENT else None}
    if role == STUDENT:
        submission = services.submission_of(request.user, assignment)
        bots = services.visible_bots(request.user, assignment)
        own = presentation.drill_down(submission, presentation.latest_runs(assignment)[1]) if submission else None
        context.update(submission=submission, submit_form=SubmitForm(bots=bots), own=own,
                       deadline_state=presentation.deadline_state(assignment, timezone.now()),
                       counting=presentation.counting_note(assignment, own["counts"]) if own else "",
                       submit_warnings=presentation.submit_warnings(assignment, list(bots)).values())
    else:
        context["view"] = view = presentation.dashboard(assignment, request.GET.get("sort", "name"))
        # Rendered as its stream renders it: the stream starts after it (?last_event_id).
        context["run_part"] = _run_part(request, assignment, view["latest"], view["progress"])
        if role == INSTRUCTOR:
            context["part_forms"] = part_forms(assignment, bound_part_form)
            with course_time(request, assignment.course):
                context["edit_form"] = AssignmentForm(initial=_current(assignment), course=assignment.course)
    return _render(request, assignment.course, "grading/assignment.html", context)


def _current(assignment: Assignment) -> dict:
    """The assignment's settings as the form shows them (times in the course's zone, by the form widget)."""
    return {name: getattr(assignment, name) for name in AssignmentForm.base_fields}


@login_required
@require_POST
def edit(request, pk):
    """Instructors change the assignment's settings (deadline, late policy...); graded runs keep what they used."""
    assignment, _ = _assignment(request, pk, INSTRUCTOR)
    with course_time(request, assignment.course):
        form = AssignmentForm(request.POST, course=assignment.course)
        if not form.is_valid():
            messages.error(request, "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
            return redirect("grading:assignment", assignment.pk)
    return _verb(request, assignment, lambda user: services.update_assignment(user, assignment, **form.cleaned_data),
                 success="Assignment updated.")


@login_required
def run_progress(request, pk):
    """The latest run's progress bar as a stream of server-sent events (arena.core.live), rendered again after
    each step of the run; the stream ends with the run, and the page then reloads to show its grades."""
    assignment, _ = _assignment(request, pk, ASSISTANT)

    def snapshot() -> Snapshot:
        latest = presentation.latest_runs(assignment)[0]
        return _run_part(request, assignment, latest, runs.progress(latest) if latest else None)

    return event_stream(request, runs.topic(assignment.pk), snapshot)


def _run_part(request, assignment: Assignment, latest, progress) -> Snapshot:
    """The latest run's part of the dashboard, for the page and for its stream, in the times of the page."""
    with course_time(request, assignment.course):
        return rendered_part(request, "grading/_run.html",
                             {"assignment": assignment, "latest": latest, "progress": progress},
                             final=latest is None or latest.status != latest.Status.RUNNING)


def _verb(request, assignment, verb, *args, success=""):
    try:
        verb(request.user, *args)
        if success:
            messages.success(request, success)
    except services.GradingError as exc:
        messages.error(request, str(exc))
    return redirect("grading:assignment", assignment.pk)


@login_required
@require_POST
def add_part(request, pk):
    """Add a part from its kind's form; a value out of bounds is shown at its field, on the page again."""
    target, _ = _assignment(request, pk, INSTRUCTOR)
    part_type = parts.KINDS.get(request.POST.get("kind", ""))
    if part_type is None:
        messages.error(request, "Choose a kind of rubric part.")
        return redirect("grading:assignment", target.pk)
    form = PartForm(request.POST, part_type=part_type, assignment=target)
    if form.is_valid():
        try:
            services.add_part(request.user, target, part_type.kind, form.cleaned_data["weight"], form.params(),
                              form.cleaned_data["label"])
            messages.success(request, f"Part added: {part_type.title}.")
            return redirect("grading:assignment", target.pk)
        except services.PartRefused as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
    response = assignment(request, pk, bound_part_form=form)
    response.status_code = 400
    return response


@login_required
@require_POST
def remove_part(request, pk, part_pk):
    assignment, _ = _assignment(request, pk, INSTRUCTOR)
    return _verb(request, assignment, services.remove_part, get_object_or_404(RubricPart, assignment=assignment,
                                                                                pk=part_pk))


@login_required
@require_POST
def start_run(request, pk):
    assignment, _ = _assignment(request, pk, ASSISTANT)
    return _verb(request, assignment, runs.start_run, assignment, success="Grading started.")


@login_required
@require_POST
def replay_set_aside(request, pk, run_pk):
    """Staff: play the run's set-aside games again (a `submission` given: only that one's, re-grading it)."""
    assignment, _ = _assignment(request, pk, ASSISTANT)
    run = get_object_or_404(assignment.runs, pk=run_pk)
    submission_pk = request.POST.get("submission", "")
    submission = get_object_or_404(assignment.submissions, pk=submission_pk) if submission_pk.isdigit() else None
    return _verb(request, assignment, runs.replay_set_aside, run, submission,
                 success="The set-aside games are queued again: the grades that lacked them follow as they finish.")


@login_required
@require_POST
def submit(request, pk):
    assignment, _ = _assignment(request, pk)
    form = SubmitForm(request.POST, bots=services.visible_bots(request.user, assignment))
    if not form.is_valid():
        messages.error(request, "Choose one of your bots of this game.")
        return redirect("grading:assignment", assignment.pk)
    bot = form.cleaned_data["bot"]
    warning = presentation.submit_warnings(assignment, [bot]).get(bot.pk)
    if warning and not request.POST.get("confirm_late"):
        messages.warning(request, f"Not submitted: {warning}. Tick “submit it anyway” to designate it all the same.")
        return redirect("grading:assignment", assignment.pk)
    return _verb(request, assignment, services.submit, assignment, bot, success=f"{bot.label} is your submission.")


@login_required
@require_POST
def withdraw(request, pk):
    assignment, _ = _assignment(request, pk)
    return _verb(request, assignment, services.withdraw, assignment,
                 success="Submission withdrawn: nothing will be graded until you submit a bot again.")


@login_required
def grade(request, pk, submission_pk):
    """The drill-down: every part's points with the matches, versions and seeds behind them."""
    assignment, role = _assignment(request, pk)
    submission = get_object_or_404(assignment.submissions.select_related("bot__owner", "team", "student"),
                                   pk=submission_pk)
    if role == STUDENT and services.submission_of(request.user, assignment) != submission:
        require(request.user, assignment.course, ASSISTANT)  # another student's grade: 403
    context = {"assignment": assignment, **presentation.drill_down(submission, presentation.latest_runs(assignment)[1])}
    if role == STUDENT and not assignment.results_published:  # no seed or replay before submissions close
        context["parts"] = [{**part, "games": []} for part in context["parts"]]
        context["games_hidden"] = True
    if role != STUDENT:
        context["adjust_form"] = AdjustForm()
    return _render(request, assignment.course, "grading/grade.html", context)


@login_required
@require_POST
def adjust(request, pk, submission_pk):
    assignment, _ = _assignment(request, pk, ASSISTANT)
    submission = get_object_or_404(assignment.submissions, pk=submission_pk)
    form = AdjustForm(request.POST)
    if form.is_valid():
        try:
            services.adjust(request.user, submission, form.cleaned_data["points"], form.cleaned_data["comment"])
        except services.GradingError as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, "An adjustment needs points (0 for a note) and a comment.")
    return redirect("grading:grade", assignment.pk, submission.pk)


@login_required
def export_csv(request, pk):
    assignment, _ = _assignment(request, pk, ASSISTANT)
    return csv_download(presentation.gradebook_csv(assignment), f"{assignment.course.code}-assignment-{assignment.pk}.csv")


# --- similarity of submissions (staff only) -------------------------------------------------------------------

def _staff_assignment(request, pk) -> Assignment:
    """The assignment, for its course's instructors and assistants; to students it does not exist (404), so
    the page cannot even tell them that a report is kept."""
    try:
        assignment, _ = _assignment(request, pk, ASSISTANT)
    except PermissionDenied:
        raise Http404("no such page") from None
    return assignment


@login_required
def similarity(request, pk):
    assignment = _staff_assignment(request, pk)
    found = code_similarity.report(assignment)
    rows = code_similarity.top_pairs(found)
    histogram = charts.histogram([r.similarity for r in found.pairs], 1.0, element_id="similarity-histogram",
                                 label="similarity of every pair")
    return _render(request, assignment.course, "grading/similarity.html", {
        "assignment": assignment, "rows": rows, "pair_count": len(found.pairs), "compared": len(found.compared),
        "errors": found.errors, "ignored": found.ignored, "histogram": histogram})


@login_required
def similarity_pair(request, pk, a_pk, b_pk):
    assignment = _staff_assignment(request, pk)
    a = get_object_or_404(Submission, pk=a_pk, assignment=assignment)
    b = get_object_or_404(Submission, pk=b_pk, assignment=assignment)
    try:
        compared = code_similarity.pair(assignment, a, b)
    except (LookupError, code_similarity.SourceError) as exc:
        messages.error(request, f"These two cannot be compared: {exc}")
        return redirect("grading:similarity", assignment.pk)
    return _render(request, assignment.course, "grading/similarity_pair.html",
                   {"assignment": assignment, "pair": compared, "lines": zip_longest(compared.lines["a"], compared.lines["b"])})


@login_required
def assignment_starter(request, pk):
    """An assignment's starter code as a file, for anyone of its course (others: 404, as for the course)."""
    assignment = get_object_or_404(Assignment.objects.visible_to(request.user), pk=pk)
    if not assignment.starter_code:
        raise Http404("this assignment has no starter code")
    return python_download(assignment.starter_code, f"{assignment.game}_starter.py")
