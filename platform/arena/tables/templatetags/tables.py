"""The course page's part about its tables: `{% course_tables course %}` (accounts/course.html)."""

from django import template

from ..services import course_tables as tables_of

register = template.Library()


@register.inclusion_tag("tables/_course_tables.html", takes_context=True)
def course_tables(context, course):
    """The tables the course watches, being played or finished lately (services.course_tables)."""
    return {"tables": tables_of(context["request"].user, course)}
