"""Ids a person sends (in a URL, a form, a JSON body) are bounded to what the database's keys can hold, in this
one place: a number past 2^63 - 1 made SQLite raise OverflowError (a server error) where it should be "no
such thing" (a URL: 404) or "not a valid choice" (a field: 400).

- `<id:pk>` in a URL (registered by CoreConfig.ready) instead of Django's unbounded `<int:pk>`;
- `IdMultipleChoiceField` instead of forms.ModelMultipleChoiceField (whose `pk__in` query is not bounded);
- `id_field()` for an id in a serializer.
"""

from django import forms
from rest_framework import serializers

# The largest key of a BigAutoField, SQLite's INTEGER and PostgreSQL's bigint alike.
DB_ID_MAX = 2**63 - 1


def is_db_id(value) -> bool:
    """True for an int (or its decimal text) a key of the database can be (0 too: an index, or nothing found)."""
    try:
        number = int(str(value), 10) if len(str(value)) <= 20 else None
    except ValueError:
        return False
    return number is not None and 0 <= number <= DB_ID_MAX


class IdConverter:
    """A path segment of 1 to 19 digits that is a possible key; anything else matches no URL (a 404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        if not is_db_id(value):
            raise ValueError(value)  # Django: this pattern does not match
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


class IdMultipleChoiceField(forms.ModelMultipleChoiceField):
    """Several of a queryset's objects by id; an id no key can be is "not a valid choice", never a query."""

    def _check_values(self, value):
        for pk in value:
            if not is_db_id(pk):
                raise forms.ValidationError(self.error_messages["invalid_pk_value"], code="invalid_pk_value",
                                            params={"pk": str(pk)[:40]})
        return super()._check_values(value)


def id_field(**kwargs) -> serializers.IntegerField:
    """An id in a JSON body: an integer a key can be."""
    return serializers.IntegerField(min_value=1, max_value=DB_ID_MAX, **kwargs)
