"""Request parsers: JSON bodies nested too deeply, or holding NaN or Infinity, are refused (400) before any
view sees them."""

from django.conf import settings
from games.core import loads_json
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, reading the body with the platform's bounded reader (games.core.loads_json): its
    depth is checked from its brackets before the parser recurses into them (100,000 levels used to
    exhaust the recursion limit), and NaN and Infinity (1e999 too), which no JSON column stores, are
    refused. Every refusal is a 400 saying why."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return loads_json(stream.read().decode(encoding))
        except ValueError as exc:  # not in its charset, not JSON, nested too deep, NaN or Infinity
            raise ParseError(f"JSON parse error - {exc}") from None
