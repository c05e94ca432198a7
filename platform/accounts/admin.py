from django.contrib import admin

from .models import Course, RosterEntry, Team


class RosterInline(admin.TabularInline):
    model = RosterEntry
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "time_zone")
    filter_horizontal = ("instructors", "teaching_assistants", "students")
    inlines = [RosterInline]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "course")
    filter_horizontal = ("members",)
