from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import Course, validate_time_zone
from .usernames import clean_username


class CourseForm(forms.ModelForm):
    class Meta:
        model = Course
        fields = ["name", "code", "time_zone", "asks_student_id"]
        labels = {"asks_student_id": "Ask for a student id at join"}
        help_texts = {"time_zone": "e.g. Europe/Paris: deadlines are entered and shown in it."}



class ProfileForm(forms.Form):
    display_name = forms.CharField(max_length=150, required=False,
                                   help_text="How the site names you to others (empty: your username).")
    email = forms.EmailField(max_length=254, help_text="Changing it mails a confirmation link to the new address.")
    time_zone = forms.CharField(max_length=64, required=False,
                                help_text="e.g. Europe/Paris; empty: each course's own zone.")

    def clean_time_zone(self):
        name = self.cleaned_data["time_zone"].strip()
        if name:
            validate_time_zone(name)
        return name


class StudentIdForm(forms.Form):
    """Asked at join by a course that wants student ids."""

    student_id = forms.CharField(max_length=64, label="Your student id")


class RegisterForm(UserCreationForm):
    email = forms.EmailField(help_text="We mail a link to confirm it; your courses reach you there.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_username(self):
        username = super().clean_username()  # None when taken (the form already holds that error)
        return clean_username(username) if username else username


class InvitedAccountForm(RegisterForm):
    """A new account from a roster invitation: its address is the one the invitation was mailed to."""

    email = None

    class Meta(RegisterForm.Meta):
        fields = ("username",)


class ApiTokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="Which client it is for (e.g. \"laptop script\").")
