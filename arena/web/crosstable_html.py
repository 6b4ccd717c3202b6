"""The season page's crosstable body, rendered in Python with each cell's HTML kept.

The template rendered a 100-bot crosstable (9,900 cells) in about a second, on
every live update of the season page (a few a second while it plays), though one
stored series changes two cells. Here a cell's HTML is built once per value it
takes (``functools.lru_cache`` keyed by the pair and its counts) and a row is the
join of its cells: the same text the template made (``_sections.html`` calls
``crosstable_body``), at a cost of a lookup per cell.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote

from markupsafe import Markup, escape

CELLS_KEPT: Final = 1 << 17
"""Cell HTML kept (more than a 256-bot table's 65,280 cells)."""


_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(value: Any) -> Any:
    """Control characters (terminal escapes) in page text shown as \\xNN, never sent
    raw (the templates' finalize, ``arena.web.app``)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    return value


def _text(value: Any) -> str:
    """``value`` as the template prints it (control characters shown, escaped)."""
    return str(escape(visible(str(value))))


@functools.lru_cache(maxsize=1024)
def _head(bot: str) -> str:
    link = f'<a class="bot" href="/bots/{_text(quote(bot, safe="@"))}">{_text(bot)}</a>'
    return f'\n<tr data-bot="{_text(bot)}"><th>{link}</th>\n'


@functools.lru_cache(maxsize=CELLS_KEPT)
def _cell(bot: str, other: str, counts: tuple[int, int, int, int] | None) -> str:
    key = _text(other)
    if other == bot:
        return f'\n<td data-bot="{key}" class="self"></td>\n'
    if counts is None:
        return f'\n<td data-bot="{key}" class="unplayed"></td>\n'
    won, drawn, lost, forfeited = (_text(count) for count in counts)
    fault = f' <span class="fault">F{forfeited}</span>' if counts[3] else ""
    return (f'\n<td data-bot="{key}" class="num" title="{_text(bot)} vs {key}: won {won}, '
            f'drawn {drawn}, lost {lost}, forfeited {forfeited}">{won}-{drawn}-{lost}'
            f'{fault}</td>\n')


def crosstable_body(crosstable: Mapping[str, Any]) -> Markup:
    """The rows of ``crosstable`` (``rows`` in order, each against the columns
    ``bots``; ``cells``: bot -> opponent -> counts as a mapping) as the page shows
    them."""
    bots: Sequence[str] = crosstable["bots"]
    cells: Mapping[str, Mapping[str, Mapping[str, int]]] = crosstable["cells"]
    parts = []
    for bot in crosstable.get("rows", bots):
        mine = cells[bot]
        parts.append(_head(bot))
        for other in bots:
            cell = mine.get(other)
            counts = None if not cell else (cell["won"], cell["drawn"], cell["lost"],
                                            cell["forfeited"])
            parts.append(_cell(bot, other, counts))
        parts.append("</tr>\n")
    return Markup("".join(parts))
