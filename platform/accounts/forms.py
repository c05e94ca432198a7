from django import forms

from .models import Course


class CourseForm(forms.ModelForm):
    class Meta:
        model = Course
        fields = ["name", "code", "time_zone", "asks_student_id"]
        labels = {"asks_student_id": "Ask for a student id at join"}
        help_texts = {"time_zone": "e.g. Europe/Paris: deadlines are entered and shown in it."}

