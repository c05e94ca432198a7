from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from games import available_games

from arena.core.fields import MAX_POINTS
from arena.core.ids import IdMultipleChoiceField
from arena.bots.models import Bot
from arena.variants.models import Variant

from . import parts


class AssignmentForm(forms.Form):
    title = forms.CharField(max_length=120)
    game = forms.ChoiceField()
    variant = forms.ModelChoiceField(queryset=Variant.objects.none(), required=False, empty_label="standard rules",
                                     label="Rules")
    # Both read in the zone the page shows times in (the viewer's, else the course's): __init__ names it.
    opens_at = forms.DateTimeField(label="Opens", widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    deadline = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                   help_text="The version active then is graded.")
    team_size = forms.IntegerField(min_value=1, max_value=6, initial=1, help_text="1: individual work.")
    late_penalty_per_day = forms.FloatField(min_value=0, max_value=100, initial=0, label="Late penalty (% per day)")
    late_cutoff_days = forms.IntegerField(min_value=0, max_value=60, initial=0, label="Late work accepted for (days)",
                                          help_text="0: no late work.")
    # Kept as typed (no strip: a file ends with its newline), but with a browser's CRLF line ends (every
    # textarea is sent so) made the LF the code was written with.
    starter_code = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False, strip=False)

    def __init__(self, *args, course, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(name, game.title) for name, game in sorted(available_games().items())]
        self.fields["variant"].queryset = course.variants.all()
        zone = timezone.get_current_timezone_name()
        self.fields["opens_at"].help_text = f"In {zone}."
        self.fields["deadline"].help_text = f"In {zone}. {self.fields['deadline'].help_text}"

    def clean_starter_code(self) -> str:
        code = self.cleaned_data["starter_code"].replace("\r\n", "\n")
        return code if code.strip() else ""


class PartForm(forms.Form):
    """A rubric part of one kind: its points, label, and the kind's own typed, bounded options (parts.Option,
    parts.Choice), so a wrong value is refused at its field."""

    weight = forms.FloatField(min_value=0.01, max_value=MAX_POINTS, initial=10, label="Points")
    label = forms.CharField(max_length=80, required=False, help_text="Default: described from the options.")

    def __init__(self, *args, part_type: parts.PartType, assignment, **kwargs):
        kwargs.setdefault("prefix", part_type.kind)
        super().__init__(*args, **kwargs)
        self.part_type = part_type
        for option in part_type.options:
            field = forms.IntegerField if option.cast is int else forms.FloatField
            self.fields[option.name] = field(label=option.label, initial=option.default, min_value=option.low,
                                             max_value=option.high)
        for choice in part_type.choices(assignment):
            self.fields[choice.name] = forms.ChoiceField(label=choice.label, choices=choice.values,
                                                         initial=choice.default)

    def params(self) -> dict:
        """The kind's options as entered (the part type checks them again, with what only it knows)."""
        return {name: value for name, value in self.cleaned_data.items() if name not in ("weight", "label")}


def part_forms(assignment, bound: PartForm | None = None) -> list[PartForm]:
    """A form per part kind that can grade the assignment's game; `bound` (one with errors) in its kind's place."""
    return [bound if bound is not None and bound.part_type is part_type else PartForm(part_type=part_type,
                                                                                       assignment=assignment)
            for part_type in parts.KINDS.values() if part_type.applies_to(assignment)]


class RosterForm(forms.Form):
    file = forms.FileField(help_text="CSV with the header student_id,email,name.")


class AssistantForm(forms.Form):
    username = forms.CharField(max_length=150)

    def clean_username(self):
        user = get_user_model().objects.filter(username=self.cleaned_data["username"]).first()
        if user is None:
            raise forms.ValidationError("no such user")
        return user


class TeamForm(forms.Form):
    takes_course = True
    name = forms.CharField(max_length=80)
    members = IdMultipleChoiceField(queryset=get_user_model().objects.none())

    def __init__(self, *args, course, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["members"].queryset = course.students.order_by("username")


class StudentIdsForm(forms.Form):
    asks_student_id = forms.BooleanField(required=False, label="Ask students who join by the link for their student id")


class TimeZoneForm(forms.Form):
    time_zone = forms.CharField(max_length=64, help_text="e.g. Europe/Paris; deadlines are shown in it.")


class SubmitForm(forms.Form):
    bot = forms.ModelChoiceField(queryset=Bot.objects.none())

    def __init__(self, *args, bots, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = bots
        self.fields["bot"].label_from_instance = lambda bot: bot.label


class AdjustForm(forms.Form):
    points = forms.FloatField(min_value=-MAX_POINTS, max_value=MAX_POINTS, initial=0, help_text="Added to the total; negative to take away; 0 for a note.")
    comment = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
