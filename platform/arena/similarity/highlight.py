"""Two sources side by side with the matching regions marked, as data for a template.

Each side is a list of {"number": line number, "text": the line HTML-escaped (a SafeString, so the
template does not escape it twice), "match": index into `regions` of the first region covering the
line, or None}. The same index on both sides marks the two halves of one match, so a template can
colour region i alike in a and in b.
"""

from __future__ import annotations

import io

from django.utils.html import escape

from .winnowing import Region


def side_by_side(a_source: str, b_source: str, regions: tuple[Region, ...]) -> dict[str, list[dict]]:
    """{"a": lines of a, "b": lines of b}, each line marked with the region it belongs to."""
    return {
        "a": _marked_lines(a_source, [(r.a_start, r.a_end) for r in regions]),
        "b": _marked_lines(b_source, [(r.b_start, r.b_end) for r in regions]),
    }


def _marked_lines(source: str, spans: list[tuple[int, int]]) -> list[dict]:
    lines = []
    # Split exactly as tokenize reads the source (on "\n" only), so numbers agree with the regions'.
    for number, text in enumerate(io.StringIO(source).readlines(), start=1):
        text = text.rstrip("\r\n")
        match = next((index for index, (start, end) in enumerate(spans) if start <= number <= end), None)
        lines.append({"number": number, "text": escape(text), "match": match})
    return lines
