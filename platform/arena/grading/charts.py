"""The dashboard's charts as inline SVG: the grade distribution and submissions over time."""

from datetime import datetime

from django.utils.html import format_html, format_html_join

WIDTH, HEIGHT, MARGIN = 520, 220, 36
BAR = "#2e7d32"
# Text in user units: the chart is drawn at most WIDTH wide, and about 340 px on a phone, where this reads
# as 11 px or more (the 11 it had read as 5 px beside another chart).
FONT = 17


def histogram(values: list[float], maximum: float, bins: int = 10, *, element_id: str = "histogram",
              label: str = "grade distribution") -> str:
    """Bars of how many values fall in each tenth of the maximum (the top bin includes the maximum)."""
    if not values or maximum <= 0:
        return ""
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, max(0, int(value / maximum * bins)))] += 1
    tallest = max(counts)
    width = (WIDTH - 2 * MARGIN) / bins
    plot = HEIGHT - 2 * MARGIN
    bars = format_html_join("", '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} to {}: {}</title></rect>', (
        (f"{MARGIN + i * width + 1:.1f}", f"{HEIGHT - MARGIN - count / tallest * plot:.1f}", f"{width - 2:.1f}",
         f"{count / tallest * plot:.1f}", BAR, f"{i * maximum / bins:g}", f"{(i + 1) * maximum / bins:g}", count)
        for i, count in enumerate(counts)))
    return format_html(
        '<svg class="chart" id="{element_id}" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
        '<line x1="{m}" y1="{b}" x2="{r}" y2="{b}" stroke="#999"/>{bars}'
        '<text x="{m}" y="{ly}" font-size="{f}">0</text>'
        '<text x="{c}" y="{ly}" font-size="{f}" text-anchor="middle">{half}</text>'
        '<text x="{r}" y="{ly}" font-size="{f}" text-anchor="end">{top}</text>'
        '<text x="2" y="{ty}" font-size="{f}">{tallest}</text></svg>',
        w=WIDTH, h=HEIGHT, m=MARGIN, b=HEIGHT - MARGIN, r=WIDTH - MARGIN, c=WIDTH // 2, bars=bars, f=FONT,
        top=f"{maximum:g}", half=f"{maximum / 2:g}", tallest=tallest, ly=HEIGHT - MARGIN + FONT + 2, ty=MARGIN - 8,
        element_id=element_id, label=label)


def timeline(moments: list[datetime], opens: datetime, deadline: datetime) -> str:
    """Cumulative uploads from the opening, with the deadline marked (uploads after it run past the line)."""
    if not moments:
        return ""
    moments = sorted(moments)
    end = max(deadline, moments[-1])
    span = max((end - opens).total_seconds(), 1.0)

    def x(moment):
        return MARGIN + max(0.0, (moment - opens).total_seconds()) / span * (WIDTH - 2 * MARGIN)

    def y(count):
        return HEIGHT - MARGIN - count / len(moments) * (HEIGHT - 2 * MARGIN)

    points = [f"{MARGIN},{HEIGHT - MARGIN}"]
    for count, moment in enumerate(moments, start=1):
        points += [f"{x(moment):.1f},{y(count - 1):.1f}", f"{x(moment):.1f},{y(count):.1f}"]
    return format_html(
        '<svg class="chart" id="timeline" viewBox="0 0 {w} {h}" role="img" aria-label="uploads over time">'
        '<line x1="{m}" y1="{b}" x2="{r}" y2="{b}" stroke="#999"/>'
        '<polyline fill="none" stroke="{c}" stroke-width="2" points="{points}"/>'
        '<line x1="{dx}" y1="{m}" x2="{dx}" y2="{b}" stroke="#d62728" stroke-dasharray="4 3"/>'
        '<text x="{dx}" y="{ty}" font-size="{f}" fill="#d62728" text-anchor="end">deadline</text>'
        '<text x="2" y="{ty}" font-size="{f}">{n}</text><text x="{m}" y="{ly}" font-size="{f}">opening</text></svg>',
        w=WIDTH, h=HEIGHT, m=MARGIN, b=HEIGHT - MARGIN, r=WIDTH - MARGIN, c=BAR, points=" ".join(points), f=FONT,
        dx=f"{x(deadline):.1f}", ty=MARGIN - 8, n=len(moments), ly=HEIGHT - MARGIN + FONT + 2)
