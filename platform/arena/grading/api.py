"""REST API of courses' people, assignments, submissions, grading runs and grades (see docs/platform-api.md).
Roles are checked by permissions.CourseRole and the services; outsiders of a course get 404."""

from django.db.models import Q, Sum
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, parsers, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.accounts import courses as course_services
from arena.accounts import people as people_services
from arena.core.downloads import csv_download
from arena.core.parsers import BoundedJSONParser
from arena.accounts.access import role_in
from arena.accounts.models import Course

from . import code_similarity, presentation, runs, serializers, services
from .models import Assignment, GradingRun, Submission
from .permissions import ASSISTANT, INSTRUCTOR, STUDENT, CourseRole, require


def _instructor_input(request, pk, serializer_class) -> tuple[Course, dict]:
    """The course of an instructors-only people endpoint and its validated input."""
    course = get_object_or_404(Course, pk=pk)
    require(request.user, course, INSTRUCTOR)
    new = serializer_class(data=request.data)
    new.is_valid(raise_exception=True)
    return course, new.validated_data


# --- people ---------------------------------------------------------------------------------------------------

class CoursePeople(APIView):
    @extend_schema(responses=serializers.PeopleSerializer)
    def get(self, request, pk):
        """The course's instructors, assistants and teams; for its staff also the students with their roster
        record, and the invitation code."""
        course = get_object_or_404(Course, pk=pk)
        role = require(request.user, course, STUDENT)
        data = {"role": role, "time_zone": course.time_zone, "instructors": course.instructors.order_by("username"),
                "assistants": course.teaching_assistants.order_by("username"),
                "teams": course.teams.prefetch_related("members"), "students": None, "invitations": None,
                "invite_code": None}
        if role != STUDENT:
            roster = {entry.user_id: entry for entry in course.roster.all()}
            data["students"] = [{"id": s.pk, "username": s.username,
                                 "student_id": getattr(roster.get(s.pk), "student_id", None),
                                 "name": getattr(roster.get(s.pk), "name", None),
                                 "email": getattr(roster.get(s.pk), "email", None) or s.email or None}
                                for s in course.students.order_by("username")]
            data["invite_code"] = course.invite_code
            data["invitations"] = course.invitations.pending()
        return Response(serializers.PeopleSerializer(data).data)


class Roster(APIView):
    parser_classes = [parsers.MultiPartParser, parsers.FormParser, BoundedJSONParser]

    @extend_schema(request={"multipart/form-data": serializers.RosterUploadSerializer,
                            "application/json": serializers.RosterUploadSerializer},
                   responses=serializers.RosterReportSerializer)
    def post(self, request, pk):
        """Instructors: enrol the students of a roster CSV; the report lists every row that failed and why."""
        course, data = _instructor_input(request, pk, serializers.RosterUploadSerializer)
        file = data.get("file")
        text = file.read().decode("utf-8", errors="replace") if file else data.get("text", "")
        report = people_services.import_roster(request.user, course, text)
        return Response(serializers.RosterReportSerializer(report.as_dict()).data)


class Assistants(APIView):
    """Instructors: make a user a teaching assistant of the course."""

    add = staticmethod(people_services.add_assistant)

    @extend_schema(request=serializers.NewAssistantSerializer, responses={201: serializers.PersonSerializer})
    def post(self, request, pk):
        course, data = _instructor_input(request, pk, serializers.NewAssistantSerializer)
        colleague = data["username"]
        self.add(request.user, course, colleague)
        return Response(serializers.PersonSerializer(colleague).data, status=status.HTTP_201_CREATED)


class Instructors(Assistants):
    """Instructors: make a user a co-instructor of the course (no longer its assistant)."""

    add = staticmethod(course_services.add_instructor)


class Teams(APIView):
    @extend_schema(request=serializers.NewTeamSerializer, responses={201: serializers.TeamSerializer})
    def post(self, request, pk):
        """Instructors: a team of the course's students."""
        course, data = _instructor_input(request, pk, serializers.NewTeamSerializer)
        members = list(course.students.filter(pk__in=data["members"]))
        if len(members) != len(set(data["members"])):
            raise ValidationError({"members": "every member must be a student of the course"})
        team = people_services.create_team(request.user, course, data["name"], members)
        return Response(serializers.TeamSerializer(team).data, status=status.HTTP_201_CREATED)


# --- assignments ----------------------------------------------------------------------------------------------

class AssignmentViewSet(mixins.CreateModelMixin, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Assignments of the courses you teach, assist in or take."""

    serializer_class = serializers.AssignmentSerializer
    permission_classes = [permissions.IsAuthenticated, CourseRole]
    roles = {"update": INSTRUCTOR, "partial_update": INSTRUCTOR, "rubric": {"POST": INSTRUCTOR},
             "runs": ASSISTANT, "export": ASSISTANT}

    def course_of(self, assignment):
        return assignment.course

    def get_queryset(self):
        return Assignment.objects.visible_to(self.request.user).select_related("course").prefetch_related("rubric")

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        course = data.pop("course")
        require(self.request.user, course, INSTRUCTOR)
        serializer.instance = services.create_assignment(self.request.user, course, **data)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        if data.pop("course", serializer.instance.course) != serializer.instance.course:
            raise ValidationError({"course": "an assignment stays in its course"})
        serializer.instance = services.update_assignment(self.request.user, serializer.instance, **data)

    @extend_schema(methods=["post"], request=serializers.RubricPartSerializer,
                   responses={201: serializers.RubricPartSerializer})
    @extend_schema(methods=["get"], responses=serializers.RubricPartSerializer(many=True))
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def rubric(self, request, pk=None):
        """GET: the rubric's parts. POST (instructors): add a part `{kind, weight, params, label}`; kinds:
        win_rate, reliability, solver_loss, tournament, elo_percentile."""
        assignment = self.get_object()
        if request.method == "GET":
            return Response(serializers.RubricPartSerializer(assignment.rubric.all(), many=True).data)
        new = serializers.RubricPartSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        data = new.validated_data
        part = services.add_part(request.user, assignment, data["kind"], data["weight"],
                                 data.get("params") or {}, data.get("label", ""))
        return Response(serializers.RubricPartSerializer(part).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["post"], request=serializers.SubmitSerializer, responses=serializers.SubmissionSerializer)
    @extend_schema(methods=["get", "delete"], responses=serializers.SubmissionSerializer)
    @action(detail=True, methods=["get", "post", "delete"])
    def submission(self, request, pk=None):
        """Students: GET your (team's) submission (404 if none); POST `{bot}` designates one of your bots;
        DELETE withdraws it (grades already given stay)."""
        assignment = self.get_object()
        if request.method == "DELETE":
            submission = services.withdraw(request.user, assignment)
        elif request.method == "POST":
            bot = serializers.SubmitSerializer(data=request.data)
            bot.is_valid(raise_exception=True)
            submission = services.submit(request.user, assignment, bot.validated_data["bot"])
        else:
            submission = services.submission_of(request.user, assignment)
            if submission is None:
                return Response({"detail": "nothing submitted yet"}, status=status.HTTP_404_NOT_FOUND)
        return Response(serializers.SubmissionSerializer(submission).data)

    @extend_schema(methods=["post"], request=None, responses={201: serializers.GradingRunSerializer})
    @extend_schema(methods=["get"], responses=serializers.GradingRunSerializer(many=True))
    @action(detail=True, methods=["get", "post"])
    def runs(self, request, pk=None):
        """Staff: GET the grading runs, newest first; POST starts one (a Celery job: poll its progress)."""
        assignment = self.get_object()
        if request.method == "POST":
            run = runs.start_run(request.user, assignment)
            return Response(GradingRunViewSet.serialize(run), status=status.HTTP_201_CREATED)
        page = self.paginate_queryset(assignment.runs.order_by("-id"))
        return self.get_paginated_response([GradingRunViewSet.serialize(run) for run in page])

    @extend_schema(responses=serializers.GradeSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def grades(self, request, pk=None):
        """The grades of the newest finished run, with each part's evidence: staff see all, a student their own."""
        assignment = self.get_object()
        graded = presentation.latest_runs(assignment)[1]
        grades = graded.grades.select_related("submission__student", "submission__bot", "version") if graded else []
        student = role_in(request.user, assignment.course) == STUDENT
        if graded and student:
            own = services.submission_of(request.user, assignment)
            grades = grades.filter(submission=own)
        grades = list(grades)
        counts = services.counting_versions(assignment, [grade.submission.bot for grade in grades])
        for grade in grades:
            grade.pending = presentation.pending(grade.submission, grade, counts[grade.submission.bot_id])
        data = serializers.GradeSerializer([_with_adjustment(g) for g in grades], many=True).data
        if student and not assignment.results_published:
            for grade in data:
                grade["parts"] = serializers.without_games(grade["parts"])
        return Response(data)

    @extend_schema(responses=serializers.SimilarityReportSerializer)
    @action(detail=True, pagination_class=None)
    def similarity(self, request, pk=None):
        """Staff: the code similarity report of the graded versions, as its page shows it. To students it does
        not exist (404), as the page."""
        assignment = self.get_object()
        if role_in(request.user, assignment.course) == STUDENT:
            raise NotFound("no such report")
        found = code_similarity.report(assignment)
        return Response(serializers.SimilarityReportSerializer({
            "compared": len(found.compared), "pair_count": len(found.pairs), "pairs": code_similarity.top_pairs(found),
            "errors": found.errors, "ignored": found.ignored}).data)

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True)
    def export(self, request, pk=None):
        """Staff: the gradebook CSV (student id, email, name, total, each part, late days)."""
        return csv_download(presentation.gradebook_csv(self.get_object()), f"assignment-{pk}.csv")


def _with_adjustment(grade):
    grade.adjustment = grade.submission.adjustments.aggregate(points=Sum("points"))["points"] or 0.0
    grade.final = round(grade.total + grade.adjustment, 4)
    return grade


class GradingRunViewSet(viewsets.ReadOnlyModelViewSet):
    """Grading runs of the courses you teach or assist in, with their progress."""

    serializer_class = serializers.GradingRunSerializer
    permission_classes = [permissions.IsAuthenticated, CourseRole]
    roles = {"retrieve": ASSISTANT, "replay": ASSISTANT}

    def course_of(self, run):
        return run.assignment.course

    def get_queryset(self):
        runs_seen = GradingRun.objects.select_related("assignment__course")
        user = self.request.user
        if self.action == "list" and not user.is_superuser:
            runs_seen = runs_seen.filter(Q(assignment__course__instructors=user)
                                         | Q(assignment__course__teaching_assistants=user)).distinct()
        return runs_seen.order_by("-id")

    @staticmethod
    def serialize(run):
        run.progress = runs.progress(run)
        return serializers.GradingRunSerializer(run).data

    def retrieve(self, request, *args, **kwargs):
        return Response(self.serialize(self.get_object()))

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([self.serialize(run) for run in page])

    @extend_schema(request=serializers.ReplaySerializer, responses=serializers.GradingRunSerializer)
    @action(detail=True, methods=["post"])
    def replay(self, request, pk=None):
        """Staff: play the run's games set aside by a platform fault again, once fixed (`{submission}`: only that
        one's, re-grading one student); the grades that lacked them are written again as they finish."""
        run = self.get_object()
        given = serializers.ReplaySerializer(data=request.data)
        given.is_valid(raise_exception=True)
        submission = None
        if "submission" in given.validated_data:
            submission = get_object_or_404(run.assignment.submissions, pk=given.validated_data["submission"])
        runs.replay_set_aside(request.user, run, submission)
        return Response(self.serialize(run))


class SubmissionViewSet(viewsets.GenericViewSet):
    """Manual adjustments of a submission's grade, kept in a history."""

    queryset = Submission.objects.select_related("assignment__course")
    permission_classes = [permissions.IsAuthenticated, CourseRole]
    serializer_class = serializers.AdjustmentSerializer
    roles = {"adjustments": ASSISTANT}

    def course_of(self, submission):
        return submission.assignment.course

    @extend_schema(methods=["post"], request=serializers.AdjustmentSerializer,
                   responses={201: serializers.AdjustmentSerializer})
    @extend_schema(methods=["get"], responses=serializers.AdjustmentSerializer(many=True))
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def adjustments(self, request, pk=None):
        """Staff: GET the history; POST `{points, comment}` (the comment is required; assistants: 0 points)."""
        submission = self.get_object()
        if request.method == "POST":
            new = serializers.AdjustmentSerializer(data=request.data)
            new.is_valid(raise_exception=True)
            adjustment = services.adjust(request.user, submission, new.validated_data["points"],
                                         new.validated_data["comment"])
            return Response(serializers.AdjustmentSerializer(adjustment).data, status=status.HTTP_201_CREATED)
        return Response(serializers.AdjustmentSerializer(submission.adjustments.select_related("author"),
                                                         many=True).data)
