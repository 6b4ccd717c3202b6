"""A bot's rating history drawn as an SVG line chart on the server (no script):
the rating (mu) after each of its series, with the mu ± sigma band shaded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from markupsafe import Markup, escape

WIDTH: Final = 640
HEIGHT: Final = 220
MARGIN: Final = 36


@dataclass(frozen=True)
class RatingPoint:
    """The bot's rating after its ``series``-th series of a season."""

    series: int
    mu: float
    sigma: float


def _polyline(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def rating_svg(points: Sequence[RatingPoint], title: str) -> Markup:
    """An accessible SVG (``title`` escaped); a short note when there is nothing to draw."""
    if not points:
        return Markup('<p class="empty">No rated series yet.</p>')
    lows = [p.mu - p.sigma for p in points]
    highs = [p.mu + p.sigma for p in points]
    low, high = min(lows), max(highs)
    if high - low < 1e-9:
        high = low + 1.0
    count = max(len(points) - 1, 1)

    def x(index: int) -> float:
        return MARGIN + (WIDTH - 2 * MARGIN) * index / count

    def y(value: float) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (value - low) / (high - low)

    band = [(x(i), y(v)) for i, v in enumerate(highs)]
    band += [(x(i), y(v)) for i, v in reversed(list(enumerate(lows)))]
    line = [(x(i), y(p.mu)) for i, p in enumerate(points)]
    last = points[-1]
    return Markup(
        f'<svg class="rating-chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
        f'<line class="axis" x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" '
        f'y2="{HEIGHT - MARGIN}"/>'
        f'<line class="axis" x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}"/>'
        f'<text class="tick" x="2" y="{y(high) + 4:.1f}">{high:.1f}</text>'
        f'<text class="tick" x="2" y="{y(low) + 4:.1f}">{low:.1f}</text>'
        f'<text class="tick" x="{WIDTH - MARGIN}" y="{HEIGHT - 8}" text-anchor="end">'
        f"series {last.series}</text>"
        f'<polygon class="band" points="{_polyline(band)}"/>'
        f'<polyline class="mu" points="{_polyline(line)}"/>'
        f'<circle class="last" cx="{line[-1][0]:.1f}" cy="{line[-1][1]:.1f}" r="3"/>'
        "</svg>"
    )
