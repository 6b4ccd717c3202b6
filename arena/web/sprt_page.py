"""The page of a head-to-head SPRT match: the test's state (its bounds, LLR,
decision, Elo estimate) as the season's format reports it in its standings
(the API's typed SPRT state, ``FormatStandings.api``, so this page names no format), the pentanomial
counts, and the LLR after every pair against the two bounds as a server-drawn SVG
(no script), recomputed from the stored pairs with the format's own counting
(``arena.season.formats.sprt_match.pentanomial_counts``) and the test's LLR."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from markupsafe import Markup, escape

from arena.season.formats import rounds_of
from arena.season.formats.sprt_match import pentanomial_counts
from arena.season.readings import SeasonReadings
from arena.season.statistics.pentanomial import PAIR_SCORES, SprtSpec, llr
from arena.storage import NotFoundError
from arena.web.views import season_summary

WIDTH: Final = 640
HEIGHT: Final = 260
MARGIN: Final = 44
API_FIELD: Final = "sprt"
"""The API's field of the test's state (``SprtStatus``), not the format's name."""
MAX_POINTS: Final = 400
"""The chart draws at most this many pairs (evenly spaced, the last always)."""


def sprt_page(readings: SeasonReadings, season_id: int) -> dict[str, Any]:
    """The match's page data, the test's state from the server's reading of the
    season (``readings``); ``NotFoundError`` for an unknown season or one whose
    format runs no SPRT."""
    reading = readings.read(season_id)
    status = reading.statistics.api.get(API_FIELD)
    if not isinstance(status, dict):
        raise NotFoundError(f"season {season_id} is not an SPRT match")
    spec = SprtSpec.parse(str(status["spec"]))
    rounds = rounds_of(reading.results, reading.season.plan.series())
    return {"season": season_summary(reading.season), "test": status,
            "pair_scores": list(PAIR_SCORES),
            "llr_path": llr_path(str(status["bot_a"]), rounds, spec)}


def llr_path(bot_a: str, rounds: Sequence[Sequence[Any]], spec: SprtSpec
             ) -> list[list[float]]:
    """``[pairs, LLR]`` after each complete pair (at most ``MAX_POINTS`` of them,
    evenly spaced, the last included), starting from ``[0, 0]``."""
    counts = [0, 0, 0, 0, 0]
    after: list[list[int]] = []
    for pair in rounds:
        for index, count in enumerate(pentanomial_counts(bot_a, [pair])):
            counts[index] += count
        if sum(counts) > (sum(after[-1]) if after else 0):
            after.append(counts.copy())
    step = max(1, -(-len(after) // MAX_POINTS))
    chosen = after[step - 1::step]
    if after and (not chosen or chosen[-1] is not after[-1]):
        chosen.append(after[-1])
    return [[0, 0.0]] + [[sum(c), round(llr(c, spec.elo0, spec.elo1), 4)] for c in chosen]


def _polyline(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def llr_svg(path: Sequence[Sequence[float]], lower: float, upper: float, title: str) -> Markup:
    """The LLR after each pair between its two bounds (dashed): an accessible SVG,
    ``title`` escaped."""
    pairs = max(int(path[-1][0]) if path else 0, 1)
    values = [point[1] for point in path]
    low = min([lower, *values]) * 1.1
    high = max([upper, *values]) * 1.1

    def x(pair: float) -> float:
        return MARGIN + (WIDTH - 2 * MARGIN) * pair / pairs

    def y(value: float) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (value - low) / (high - low)

    line = [(x(point[0]), y(point[1])) for point in path]
    parts = [
        f'<svg class="llr-chart" id="llr-chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<line class="axis" x1="{MARGIN}" y1="{y(0):.1f}" x2="{WIDTH - MARGIN}" '
        f'y2="{y(0):.1f}"/>',
        f'<line class="axis" x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}"/>',
    ]
    for name, bound in (("upper", upper), ("lower", lower)):
        parts.append(f'<line class="bound bound-{name}" x1="{MARGIN}" y1="{y(bound):.1f}" '
                     f'x2="{WIDTH - MARGIN}" y2="{y(bound):.1f}"/>')
        accepts = "H1" if name == "upper" else "H0"
        parts.append(f'<text class="tick" x="{WIDTH - MARGIN}" y="{y(bound) - 4:.1f}" '
                     f'text-anchor="end">{bound:+.2f}: accept {accepts}</text>')
    parts += [
        f'<text class="tick" x="2" y="{y(0) + 4:.1f}">0</text>',
        f'<text class="tick" x="{WIDTH - MARGIN}" y="{HEIGHT - 10}" text-anchor="end">'
        f"pairs {pairs if path and path[-1][0] else 0}</text>",
        f'<polyline class="llr" points="{_polyline(line)}"/>',
    ]
    if line:
        parts.append(f'<circle class="last" cx="{line[-1][0]:.1f}" cy="{line[-1][1]:.1f}" '
                     'r="3"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
