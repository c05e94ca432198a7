"""The dashboard's charts read on a phone: text large enough in the chart's own units, and the axis marked."""

import re

from arena.grading import charts


def test_the_histogram_axis_is_marked_and_its_text_reads_at_phone_width():
    svg = str(charts.histogram([3.0, 7.5, 9.0, 10.0], 10.0))
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    # Drawn 340 px wide on a phone, the chart's text is at least 11 px there.
    assert sizes and min(sizes) * 340 / charts.WIDTH >= 11
    labels = re.findall(r">([^<>]+)</text>", svg)
    assert labels[:3] == ["0", "5", "10"]  # the axis: from none to the maximum, and its middle


def test_the_timeline_text_reads_at_phone_width_too():
    from datetime import datetime, timedelta, timezone

    opens = datetime(2026, 1, 1, tzinfo=timezone.utc)
    svg = str(charts.timeline([opens + timedelta(days=1)], opens, opens + timedelta(days=2)))
    assert min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)) * 340 / charts.WIDTH >= 11
