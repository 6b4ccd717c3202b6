"""Row deltas of a season page's live sections: what a browser that holds the previous
update needs to patch its tables into the next one, instead of the whole re-rendered
HTML (a 100-bot crosstable alone is a megabyte; one stored series changes a few of
its cells).

A section's patch is either its whole HTML (``{"html": ...}``) or, when only rows of
its first table body changed and the rest of the section is the same,
``{"rows": {index: change}}``: a changed row by its position in that body, as its
whole ``<tr>`` or, when only some of its cells changed, ``{cell index: <td>}``.
Positions, not keys: a rank swap changes the two rows at those places, as it does
on the page. Whichever is shorter is sent; ``arena/web/static/season.js`` applies it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

_BODY: Final = re.compile(r"<tbody>(.*?)</tbody>", re.S)
_ROW: Final = re.compile(r"(<tr(?:\s[^>]*)?>)(.*?)</tr>", re.S)
_CELL: Final = re.compile(r"<t[dh](?:\s[^>]*)?>.*?</t[dh]>", re.S)

RowChange = str | dict[str, str]
SectionPatch = dict[str, str | dict[str, RowChange]]


def sections_patch(before: Mapping[str, str], after: Mapping[str, str]
                   ) -> dict[str, SectionPatch]:
    """The patches turning the sections ``before`` into ``after`` (unchanged sections
    left out)."""
    patch: dict[str, SectionPatch] = {}
    for name, html in after.items():
        old = before.get(name)
        if old == html:
            continue
        rows = None if old is None else rows_patch(old, html)
        patch[name] = {"html": html} if rows is None else {"rows": rows}
    return patch


def rows_patch(before: str, after: str) -> dict[str, RowChange] | None:
    """The changed rows of ``after``'s first table body; None when more than those
    rows changed (or the patch is no shorter than half the whole)."""
    old, new = _split(before), _split(after)
    if old is None or new is None or old[0] != new[0] or len(old[1]) != len(new[1]):
        return None
    changes: dict[str, RowChange] = {}
    size = 0
    for index, (was, now) in enumerate(zip(old[1], new[1], strict=True)):
        if was == now:
            continue
        cells = _cells_patch(was, now)
        change: RowChange = now[0] + now[1] + "</tr>" if cells is None else cells
        changes[str(index)] = change
        size += len(change) if isinstance(change, str) else sum(map(len, change.values()))
    return changes if size * 2 < len(after) else None


def _split(html: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(the section without its first table body's rows, those rows as (opening
    tag, content)); None without a body of rows alone."""
    body = _BODY.search(html)
    if body is None:
        return None
    rows = _ROW.findall(body[1])
    if _ROW.sub("", body[1]).strip():
        return None
    return html[:body.start(1)] + html[body.end(1):], rows


def _cells_patch(before: tuple[str, str], after: tuple[str, str]) -> dict[str, str] | None:
    """The changed cells of a row, by position; None when the row's own tag or its
    number of cells changed, or most of its cells did."""
    if before[0] != after[0]:
        return None
    old, new = _CELL.findall(before[1]), _CELL.findall(after[1])
    if len(old) != len(new) or _CELL.sub("", after[1]).strip():
        return None
    changed = {str(index): cell for index, (was, cell) in enumerate(zip(old, new, strict=True))
               if was != cell}
    return changed if len(changed) * 2 <= len(new) else None
