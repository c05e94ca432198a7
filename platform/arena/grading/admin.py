from django.contrib import admin

from .models import Adjustment, Assignment, Grade, GradingGame, GradingRun, RubricPart, Submission


class RubricInline(admin.TabularInline):
    model = RubricPart
    extra = 0


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["title", "course", "game", "opens_at", "deadline", "team_size"]
    list_filter = ["game"]
    inlines = [RubricInline]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["assignment", "student", "team", "bot", "submitted_at"]
    raw_id_fields = ["bot", "student", "team"]


@admin.register(GradingRun)
class GradingRunAdmin(admin.ModelAdmin):
    list_display = ["assignment", "status", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["games"]


@admin.register(GradingGame)
class GradingGameAdmin(admin.ModelAdmin):
    list_display = ["match", "version", "opponent", "seed", "seat"]
    raw_id_fields = ["match", "version", "opponent"]


@admin.register(Grade)
class GradeAdmin(admin.ModelAdmin):
    list_display = ["run", "submission", "version", "late_days", "measured", "total"]
    raw_id_fields = ["run", "submission", "version"]


@admin.register(Adjustment)
class AdjustmentAdmin(admin.ModelAdmin):
    list_display = ["submission", "points", "comment", "author", "created_at"]
    raw_id_fields = ["submission"]
