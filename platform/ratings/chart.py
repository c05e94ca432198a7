"""The ladder's rating chart: each bot's rating after each of its rated matches, as inline SVG."""

from django.utils.html import format_html, format_html_join

WIDTH, HEIGHT, MARGIN = 720, 280, 40
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]


def rating_chart(series: dict[str, list[float]], initial: float) -> str:
    """SVG with one line per bot (label -> ratings in order, starting from `initial`)."""
    lines = {label: [initial, *points] for label, points in series.items() if points}
    if not lines:
        return ""
    values = [v for points in lines.values() for v in points]
    low, high = min(values) - 10, max(values) + 10
    longest = max(len(points) for points in lines.values())

    def x(index):
        return MARGIN + index * (WIDTH - 2 * MARGIN) / max(longest - 1, 1)

    def y(value):
        return HEIGHT - MARGIN - (value - low) * (HEIGHT - 2 * MARGIN) / (high - low)

    paths = format_html_join(
        "", '<polyline fill="none" stroke="{}" stroke-width="2" points="{}"><title>{}</title></polyline>'
        '<text x="{}" y="{}" fill="{}" font-size="11">{}</text>',
        (
            (COLOURS[i % len(COLOURS)], " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in enumerate(points)), label,
             f"{x(len(points) - 1) + 4:.1f}", f"{y(points[-1]):.1f}", COLOURS[i % len(COLOURS)], label)
            for i, (label, points) in enumerate(lines.items())
        ),
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="rating history">'
        '<line x1="{m}" y1="{b}" x2="{r}" y2="{b}" stroke="#999"/><line x1="{m}" y1="{m}" x2="{m}" y2="{b}" stroke="#999"/>'
        '<text x="2" y="{ty}" font-size="11">{high}</text><text x="2" y="{b}" font-size="11">{low}</text>'
        '<text x="{m}" y="{h}" font-size="11">rated matches played →</text>{paths}</svg>',
        w=WIDTH + 120, h=HEIGHT, m=MARGIN, b=HEIGHT - MARGIN, r=WIDTH - MARGIN, ty=MARGIN + 4, high=f"{high:.0f}", low=f"{low:.0f}",
        paths=paths,
    )
