"""Request parsers: JSON bodies are refused (400) when nested too deeply, before any view sees them."""

from games.core import MAX_JSON_DEPTH, JSONTooDeep, check_json_depth
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 for JSON nested more than MAX_JSON_DEPTH levels (100,000 levels used
    to exhaust the recursion limit and answer 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - {JSONTooDeep(MAX_JSON_DEPTH)}") from None
        try:
            return check_json_depth(data)
        except JSONTooDeep as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
