from django.contrib import admin
from rest_framework.authtoken.admin import TokenProxy

from .models import Course, Invitation, RosterEntry, Team

# DRF's tokens authenticate nobody: the API's tokens are accounts.tokens' (their owners list and revoke them at
# /accounts/tokens/); the app stays installed only for DRF's sign-in view and the migration of old keys.
admin.site.unregister(TokenProxy)


class RosterInline(admin.TabularInline):
    model = RosterEntry
    extra = 0
    raw_id_fields = ("user",)


class InvitationInline(admin.TabularInline):
    model = Invitation
    extra = 0
    fields = ("student_id", "email", "name", "created_at", "accepted_at", "accepted_by")
    readonly_fields = ("created_at", "accepted_at", "accepted_by")


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "time_zone")
    filter_horizontal = ("instructors", "teaching_assistants", "students")
    inlines = [RosterInline, InvitationInline]



@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "course")
    filter_horizontal = ("members",)
