"""Serializer fields shared by the apps' APIs: typed and bounded, so that hostile input is a 400."""

from games.core import JSONTooDeep, check_json_depth
from rest_framework import serializers

# The most points a rubric part is worth or an adjustment moves a grade (1e308 points broke every sum after it).
MAX_POINTS = 10_000


class JSONObjectField(serializers.JSONField):
    """A JSON object (game options, a part's parameters), never a number, a string or a list, nested at most
    as deep as the referee's own limit."""

    default_error_messages = {"not_an_object": "must be a JSON object ({{...}}), not {kind}.",
                              "too_deep": "{error}"}

    def to_internal_value(self, data):
        data = super().to_internal_value(data)
        if not isinstance(data, dict):
            self.fail("not_an_object", kind=type(data).__name__)
        try:
            return check_json_depth(data)
        except JSONTooDeep as exc:
            self.fail("too_deep", error=str(exc))


def points_field(**kwargs) -> serializers.FloatField:
    """Points: finite and within +-MAX_POINTS (the caller narrows the lower bound)."""
    kwargs.setdefault("min_value", -MAX_POINTS)
    return serializers.FloatField(max_value=MAX_POINTS, **kwargs)


class StrictCharField(serializers.CharField):
    """Text given as a JSON string only (DRF's CharField would take the number 0 as "0")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
