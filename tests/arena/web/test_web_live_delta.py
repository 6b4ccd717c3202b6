"""Row deltas of a season page's live sections (``arena.web.live_delta``): only what
changed, by row and cell position in the section's first table body, the whole
section whenever its frame, its number of rows or most of it changed. Expected
patches written by hand; the browser test applies them
(tests/arena/web/test_web_browser.py)."""

from __future__ import annotations

from arena.web.live_delta import rows_patch, sections_patch


def table(*rows: str, head: str = "<thead><tr><th>#</th></tr></thead>") -> str:
    return f'<table id="t">{head}\n<tbody>\n' + "\n".join(rows) + "\n</tbody></table>"


def row(key: str, *cells: str) -> str:
    return f'<tr data-bot="{key}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


ROWS = [row(f"b{n}", str(n), f"bot {n}", "0", "0", "0", "0") for n in range(8)]


def test_unchanged_sections_are_left_out_and_a_section_without_a_table_goes_whole() -> None:
    before = {"progress": "<p>3/6</p>", "standings": table(*ROWS)}
    after = {"progress": "<p>4/6</p>", "standings": table(*ROWS)}
    assert sections_patch(before, after) == {"progress": {"html": "<p>4/6</p>"}}
    assert sections_patch(after, after) == {}


def test_a_row_with_a_few_changed_cells_sends_those_cells_by_position() -> None:
    changed = row("b5", "5", "bot 5", "1", "0", "0", "0")
    after = table(*ROWS[:5], changed, *ROWS[6:])
    assert sections_patch({"standings": table(*ROWS)}, {"standings": after}) == {
        "standings": {"rows": {"5": {"2": "<td>1</td>"}}}}


def test_a_row_whose_cells_mostly_changed_or_whose_tag_changed_goes_whole() -> None:
    mostly = row("b2", "2", "bot 2", "1", "1", "1", "1")
    retagged = row("b9", "3", "bot 3", "0", "0", "0", "0")
    after = table(*ROWS[:2], mostly, retagged, *ROWS[4:])
    assert rows_patch(table(*ROWS), after) == {"2": mostly, "3": retagged}


def test_a_changed_frame_or_number_of_rows_or_a_patch_as_big_as_the_table_goes_whole() -> None:
    before = table(*ROWS)
    assert rows_patch(before, table(*ROWS, head="<thead><tr><th>rank</th></tr></thead>")) is None
    assert rows_patch(before, table(*ROWS[:-1])) is None
    every_row = [row(f"b{n}", str(n), f"bot {n}", "1", "1", "1", "1") for n in range(8)]
    assert rows_patch(before, table(*every_row)) is None
    assert sections_patch({"standings": before}, {"standings": table(*every_row)}) == {
        "standings": {"html": table(*every_row)}}


def test_a_body_holding_more_than_rows_goes_whole() -> None:
    before = table(*ROWS)
    after = before.replace("</tbody>", "<p>note</p></tbody>")
    assert rows_patch(before, after) is None
    assert rows_patch("<p>no table</p>", "<p>no table either</p>") is None
