from django.contrib.auth import get_user_model
from rest_framework import serializers

from arena.accounts.access import staffs
from arena.accounts.models import Course, Team
from arena.core.fields import JSONObjectField, points_field
from arena.core.ids import id_field
from arena.bots.models import Bot
from arena.variants.models import Variant

from .models import Adjustment, Assignment, Grade, GradingRun, RubricPart, Submission


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class StudentSerializer(PersonSerializer):
    student_id = serializers.CharField(allow_null=True, help_text="From the roster; null when not rostered.")
    name = serializers.CharField(allow_null=True)
    email = serializers.CharField(allow_null=True)


class TeamSerializer(serializers.ModelSerializer):
    members = PersonSerializer(many=True, read_only=True)

    class Meta:
        model = Team
        fields = ["id", "name", "members"]


class InvitationSerializer(serializers.Serializer):
    student_id = serializers.CharField()
    name = serializers.CharField()
    email = serializers.EmailField()
    created_at = serializers.DateTimeField(help_text="When it was mailed.")


class PeopleSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="Your role: instructor, assistant or student.")
    time_zone = serializers.CharField()
    instructors = PersonSerializer(many=True)
    assistants = PersonSerializer(many=True)
    teams = TeamSerializer(many=True)
    students = StudentSerializer(many=True, allow_null=True, help_text="Staff only (null for students).")
    invitations = InvitationSerializer(many=True, allow_null=True,
                                       help_text="Staff only: roster rows whose students have not accepted yet.")
    invite_code = serializers.CharField(allow_null=True, help_text="Staff only: /join/<code>/ enrols a student.")


class RosterUploadSerializer(serializers.Serializer):
    file = serializers.FileField(required=False, help_text="CSV: student_id,email,name.")
    text = serializers.CharField(required=False, help_text="The CSV as text, instead of a file.")


class RosterReportSerializer(serializers.Serializer):
    created = serializers.ListField(child=serializers.CharField(),
                                    help_text="Student ids of the course's students given their roster record.")
    invited = serializers.ListField(child=serializers.CharField(),
                                    help_text="Student ids invited by mail: enrolled once they accept.")
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    failed = serializers.ListField(child=serializers.DictField(), help_text="{line, row, reason} per failed row.")


class NewAssistantSerializer(serializers.Serializer):
    username = serializers.SlugRelatedField(slug_field="username", queryset=get_user_model().objects.all())


class NewTeamSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    members = serializers.ListField(child=id_field(), max_length=500, help_text="User ids of the course's students.")


class RubricPartSerializer(serializers.ModelSerializer):
    weight = points_field(min_value=0.01, help_text="Points this part is worth.")
    params = JSONObjectField(required=False, help_text="The part type's options (a JSON object).")

    class Meta:
        model = RubricPart
        fields = ["id", "kind", "label", "weight", "params", "order"]
        read_only_fields = ["id", "order"]
        extra_kwargs = {"label": {"required": False, "help_text": "Default: described from the options."}}


class AssignmentSerializer(serializers.ModelSerializer):
    course = serializers.PrimaryKeyRelatedField(queryset=Course.objects.all())
    variant = serializers.PrimaryKeyRelatedField(queryset=Variant.objects.all(), required=False, allow_null=True)
    rubric = RubricPartSerializer(many=True, read_only=True)
    config = JSONObjectField(required=False, help_text="Game options (a JSON object).")
    late_penalty_per_day = serializers.FloatField(min_value=0, max_value=100, required=False,
                                                  help_text="Percent of the total lost per day late (started).")
    late_cutoff_days = serializers.IntegerField(min_value=0, max_value=60, required=False,
                                                help_text="Late work is accepted this many days after the deadline.")

    class Meta:
        model = Assignment
        fields = ["id", "course", "title", "game", "config", "variant", "opens_at", "deadline", "team_size",
                  "late_penalty_per_day", "late_cutoff_days", "starter_code", "seed", "rubric", "created_at"]
        read_only_fields = ["id", "seed", "rubric", "created_at"]
        extra_kwargs = {"seed": {"allow_null": True, "help_text": "The course's staff only (null for students): grading seeds derive "
                                              "from it."},
                        "starter_code": {"trim_whitespace": False, "help_text": "Kept byte for byte, as downloaded."}}

    def to_representation(self, assignment):
        data = super().to_representation(assignment)
        if not staffs(self.context["request"].user, assignment.course):
            data["seed"] = None
        return data


class SubmitSerializer(serializers.Serializer):
    bot = serializers.PrimaryKeyRelatedField(queryset=Bot.objects.all())


class SubmissionSerializer(serializers.ModelSerializer):
    label = serializers.CharField(read_only=True)
    student = serializers.CharField(source="student.username", read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "assignment", "label", "student", "team", "bot", "submitted_at", "withdrawn_at"]
        read_only_fields = fields


class RunProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Games finished.")
    set_aside = serializers.IntegerField(help_text="Games the platform could not run: the staff may play them again.")
    total = serializers.IntegerField()
    percent = serializers.IntegerField(help_text="Of the games finished or set aside.")


class ReplaySerializer(serializers.Serializer):
    submission = serializers.IntegerField(required=False, help_text="Only this submission's games: re-grade one "
                                                                    "student or team.")


class GradingRunSerializer(serializers.ModelSerializer):
    progress = RunProgressSerializer(read_only=True)

    class Meta:
        model = GradingRun
        fields = ["id", "assignment", "number", "status", "rubric", "plan", "note", "created_at", "finished_at",
                  "progress"]
        read_only_fields = fields


def without_games(parts: list[dict]) -> list[dict]:
    """A grade's parts without the games behind them (their ids and seeds): a student's before publication."""
    return [{key: value for key, value in part.items() if key not in ("matches", "seeds")} for part in parts]


class GradeSerializer(serializers.ModelSerializer):
    submission = SubmissionSerializer(read_only=True)
    bot = serializers.IntegerField(source="bot_id", read_only=True, help_text="The bot graded (the submission may "
                                                                              "designate another since).")
    version = serializers.IntegerField(source="version.number", read_only=True, allow_null=True)
    pending = serializers.CharField(read_only=True, help_text="Empty when the grade is of the submission as it "
                                                              "stands; else why not (another bot, a newer version...).")
    adjustment = serializers.FloatField(read_only=True, help_text="Sum of the manual adjustments.")
    final = serializers.FloatField(read_only=True, help_text="total + adjustment.")

    class Meta:
        model = Grade
        fields = ["id", "run", "submission", "bot", "version", "pending", "late_days", "parts", "measured", "total",
                  "adjustment", "final", "note", "incomplete"]
        read_only_fields = fields


class AdjustmentSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True, allow_null=True)

    points = points_field(help_text="Added to the total (negative to take away); 0 for a note.")

    class Meta:
        model = Adjustment
        fields = ["id", "points", "comment", "author", "created_at"]
        read_only_fields = ["id", "author", "created_at"]


class ComparedSerializer(serializers.Serializer):
    submission = serializers.IntegerField(source="submission.pk")
    label = serializers.CharField(source="submission.label", help_text="The student, or the team.")
    version = serializers.IntegerField(source="version_number", help_text="The version the deadline rule grades.")


class RegionSerializer(serializers.Serializer):
    a_start = serializers.IntegerField()
    a_end = serializers.IntegerField()
    b_start = serializers.IntegerField()
    b_end = serializers.IntegerField()


class SimilarPairSerializer(serializers.Serializer):
    a = ComparedSerializer()
    b = ComparedSerializer()
    similarity = serializers.FloatField(help_text="0 to 1: the share of fingerprints the two have in common.")
    regions = RegionSerializer(many=True, help_text="Matching lines (1-based, inclusive) of a and of b.")


class SimilarityReportSerializer(serializers.Serializer):
    compared = serializers.IntegerField(help_text="Submissions whose graded version was compared.")
    pair_count = serializers.IntegerField()
    pairs = SimilarPairSerializer(many=True, help_text="The most similar pairs, most similar first (as the page).")
    errors = serializers.DictField(child=serializers.CharField(), help_text="Submission -> why it was not compared.")
    ignored = serializers.CharField(help_text="What was left out as public code (starter code, built-ins).")
