"""Deltas of a season page's live sections: what a browser that holds the previous
update needs to patch its tables into the next one, instead of the whole re-rendered
HTML (a 100-bot crosstable alone is a megabyte; one stored series changes two of
its cells, and a change of ranks only moves rows and columns).

A section's patch is its whole HTML (``{"html": ...}``) unless only the rows of its
first table changed, each row and cell keyed by its ``data-bot`` (a row or cell
without one by its position). Then the patch holds (each only when needed):

* ``rows``: a changed row by key, as its whole ``<tr>`` or, when only some of its
  cells changed, ``{cell key: <td>}``;
* ``columns``: the new order of the keyed cells, the same in every row (the
  crosstable's opponents; cells without a key keep their place before them); a
  keyed cell not in it is removed, and a new one comes among the row's changes;
* ``order``: the new order of the body's rows; a row not in it is removed, and a
  new one (a bot come onto this page of the standings) comes whole in ``rows``.

Whichever is shorter, the patch or the whole, is sent;
``arena/web/static/season.js`` applies it (rows and cells, then drops the rows
gone, then orders the columns, then the rows).
"""

from __future__ import annotations

import functools
import html as markup
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

_TABLE: Final = re.compile(r"<table(?:\s[^>]*)?>.*?</table>", re.S)
_ROW: Final = re.compile(r"<tr(?:\s[^>]*)?>.*?</tr>", re.S)
_CELLS: Final = re.compile(r"(<tr(?:\s[^>]*)?>)(.*)</tr>", re.S)
_CELL: Final = re.compile(r"<t[dh](?:\s[^>]*)?>.*?</t[dh]>", re.S)
_KEY: Final = re.compile(r'^<t[rdh]\s[^>]*?data-bot="([^"]*)"')
_BODY: Final = re.compile(r"<tbody>")
_GAPS: Final = re.compile(r">\s+<")
PARSED_KEPT: Final = 16
"""Sections parsed kept (a few seasons' live sections)."""
ROWS_KEPT: Final = 4096
"""Rows parsed kept (a 256-bot crosstable and standings have 514)."""

RowChange = str | dict[str, str]
SectionPatch = dict[str, str | list[str] | dict[str, RowChange]]


@dataclass(frozen=True)
class _Row:
    key: str
    html: str
    tag: str
    cells: dict[str, str]
    """Cell key -> cell, in the row's order."""

    @property
    def columns(self) -> list[str]:
        return [key for key in self.cells if not key.startswith("#")]


@dataclass(frozen=True)
class _Table:
    frame: str
    """The section with its first table's rows taken out."""
    head: list[_Row]
    body: list[_Row]


def sections_patch(before: Mapping[str, str], after: Mapping[str, str]
                   ) -> dict[str, SectionPatch]:
    """The patches turning the sections ``before`` into ``after`` (unchanged sections
    left out)."""
    patch: dict[str, SectionPatch] = {}
    for name, html in after.items():
        old = before.get(name)
        if old == html:
            continue
        rows = None if old is None else table_patch(old, html)
        patch[name] = {"html": html} if rows is None else rows
    return patch


def table_patch(before: str, after: str) -> SectionPatch | None:
    """The patch of ``after``'s first table from ``before``'s (module docstring); None
    when more than its rows changed, or the patch is no shorter than half the whole."""
    old, new = _parse(before), _parse(after)
    if (old is None or new is None or old.frame != new.frame
            or [row.key for row in old.head] != [row.key for row in new.head]):
        return None
    old_keys, keys = [row.key for row in old.body], [row.key for row in new.body]
    # Rows may come and go (a page of a big season's standings, its crosstable's
    # top columns) only where every body row is known by its bot.
    if sorted(old_keys) != sorted(keys) and any(
            key.startswith("#") for key in old_keys + keys):
        return None
    patch: SectionPatch = {}
    old_columns = _columns(old)
    columns = _columns(new)
    if old_columns is None or columns is None:
        return None
    if columns != old_columns:
        patch["columns"] = columns
    if keys != old_keys:
        patch["order"] = keys
    was = {row.key: row for row in old.head + old.body}
    changes: dict[str, RowChange] = {}
    for row in new.head + new.body:
        change = _row_change(was[row.key], row) if row.key in was else row.html
        if change is not None:
            changes[row.key] = change
    if changes:
        patch["rows"] = changes
    size = sum(len(key) + 3 for key in columns + keys) + sum(
        len(change) if isinstance(change, str) else sum(map(len, change.values()))
        for change in changes.values())
    return patch if size * 2 < len(after) else None


def _row_change(before: _Row, after: _Row) -> RowChange | None:
    """None if the row is the same (its cells maybe in another order), its changed
    cells when only a few changed, else the whole row."""
    if before.tag != after.tag or _unkeyed(before) != _unkeyed(after):
        return after.html
    # New cells (a column come onto the table) are sent as changed ones; cells of a
    # column gone are dropped by the patch's ``columns``.
    changed = {key: cell for key, cell in after.cells.items() if before.cells.get(key) != cell}
    if not changed:
        return None
    return changed if len(changed) * 2 <= len(after.cells) else after.html


def _unkeyed(row: _Row) -> list[str]:
    return [key for key in row.cells if key.startswith("#")]


def _columns(table: _Table) -> list[str] | None:
    """The keyed cells' order, the same in every row (None if it is not)."""
    rows = table.head + table.body
    if not rows:
        return []
    first = rows[0].columns
    return first if all(row.columns == first for row in rows[1:]) else None


@functools.lru_cache(maxsize=PARSED_KEPT)
def _parse(html: str) -> _Table | None:
    """The first table of ``html`` (kept: a live update's new sections are the next
    update's old ones, so each is parsed once)."""
    table = _TABLE.search(html)
    if table is None:
        return None
    body = _BODY.search(table[0])
    rows = _ROW.findall(table[0])
    parsed = [_row(row, index) for index, row in enumerate(rows)]
    if body is None or any(row is None for row in parsed):
        return None
    # White space between tags is left out: rows come and go with theirs.
    frame = _GAPS.sub("><", html[:table.start()] + _ROW.sub("", table[0])
                      + html[table.end():])
    head_count = len(_ROW.findall(table[0][:body.start()]))
    rows_of = [row for row in parsed if row is not None]
    keys = [row.key for row in rows_of]
    if len(set(keys)) != len(keys):
        return None
    return _Table(frame, rows_of[:head_count], rows_of[head_count:])


@functools.lru_cache(maxsize=ROWS_KEPT)
def _row(html: str, index: int) -> _Row | None:
    """A row's cells (kept: most rows of a big table are the same in the next update,
    parsed once however many updates show them; read only)."""
    match = _CELLS.fullmatch(html)
    if match is None or _CELL.sub("", match[2]).strip():
        return None
    tag = match[1]
    key = _KEY.match(tag)
    cells: dict[str, str] = {}
    for position, cell in enumerate(_CELL.findall(match[2])):
        cell_key = _KEY.match(cell)
        cells[markup.unescape(cell_key[1]) if cell_key else f"#{position}"] = cell
    if len(cells) != len(_CELL.findall(match[2])):
        return None
    return _Row(markup.unescape(key[1]) if key else f"#{index}", html, tag, cells)
