"""Deltas of a season page's live sections (``arena.web.live_delta``): only what
changed, rows and cells by their ``data-bot`` key (else their position), the new
order of moved rows and columns, the whole section whenever its frame, its rows'
keys or most of it changed. Expected patches written by hand; the browser test
applies them (tests/arena/web/test_web_live_delta_browser.py)."""

from __future__ import annotations

from arena.web.live_delta import sections_patch, table_patch

HEAD = "<thead><tr><th>#</th><th>bot</th></tr></thead>"


def table(*rows: str, head: str = HEAD) -> str:
    return f'<table id="t">{head}\n<tbody>\n' + "\n".join(rows) + "\n</tbody></table>"


def row(key: str, *cells: str) -> str:
    return f'<tr data-bot="{key}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def standings(*keys: str, points: dict[str, str] | None = None) -> list[str]:
    """Rows of a ranked table: rank, name, four numbers (the points given, else 0)."""
    return [row(key, str(rank), f"bot {key}", (points or {}).get(key, "0"), "0", "0", "0")
            for rank, key in enumerate(keys, 1)]


KEYS = [f"b{n}" for n in range(8)]


def crosstable(order: list[str], won: dict[tuple[str, str], int]) -> str:
    """A keyed crosstable as the season page renders it: rows and cells by bot."""
    head = "<thead><tr><th></th>" + "".join(f'<th data-bot="{b}"></th>' for b in order)
    rows = [f'<tr data-bot="{b}"><th>{b}</th>' + "".join(
        f'<td data-bot="{o}">{won.get((b, o), 0)}</td>' for o in order) + "</tr>"
        for b in order]
    return table(*rows, head=head + "</tr></thead>")


def test_unchanged_sections_are_left_out_and_a_section_without_a_table_goes_whole() -> None:
    before = {"progress": "<p>3/6</p>", "standings": table(*standings(*KEYS))}
    after = {"progress": "<p>4/6</p>", "standings": table(*standings(*KEYS))}
    assert sections_patch(before, after) == {"progress": {"html": "<p>4/6</p>"}}
    assert sections_patch(after, after) == {}


def test_a_row_sends_its_few_changed_cells_by_position_or_else_the_whole_row() -> None:
    after = table(*standings(*KEYS, points={"b5": "1"}))
    assert sections_patch({"s": table(*standings(*KEYS))}, {"s": after}) == {
        "s": {"rows": {"b5": {"#2": "<td>1</td>"}}}}
    most = row("b1", "2", "b1", "1", "1", "1", "1")
    after = table(*standings(*KEYS)).replace(standings(*KEYS)[1], most)
    assert table_patch(table(*standings(*KEYS)), after) == {"rows": {"b1": most}}


def test_a_rank_swap_moves_the_two_rows_and_sends_their_rank_cells() -> None:
    swapped = [*KEYS[:2], "b3", "b2", *KEYS[4:]]
    after = table(*standings(*swapped, points={"b3": "1"}))
    assert table_patch(table(*standings(*KEYS)), after) == {
        "order": swapped,
        "rows": {"b3": {"#0": "<td>3</td>", "#2": "<td>1</td>"}, "b2": {"#0": "<td>4</td>"}}}


def test_a_crosstable_reordered_moves_rows_and_columns_and_sends_the_changed_cells() -> None:
    order = ["a", "b", "c", "d", "e"]
    before = crosstable(order, {})
    reordered = ["c", "a", "b", "d", "e"]
    after = crosstable(reordered, {("c", "a"): 1})
    assert table_patch(before, after) == {
        "columns": reordered, "order": reordered,
        "rows": {"c": {"a": '<td data-bot="a">1</td>'}}}


def test_a_bot_leaving_or_coming_onto_the_page_is_dropped_or_sent_whole() -> None:
    before = table(*standings(*KEYS))
    assert table_patch(before, table(*standings(*KEYS[:-1]))) == {"order": KEYS[:-1]}
    came = standings(*KEYS[:-1], "b9")[-1]
    assert table_patch(before, table(*standings(*KEYS[:-1], "b9"))) == {
        "order": [*KEYS[:-1], "b9"], "rows": {"b9": came}}
    # Rows known by their position only: which one left is not known.
    unkeyed = table(*[f"<tr><td>{n}</td></tr>" for n in range(8)])
    assert table_patch(unkeyed, table(*[f"<tr><td>{n}</td></tr>" for n in range(7)])) is None


def page_crosstable(rows: list[str], columns: list[str]) -> str:
    """A page's rows of a crosstable against the top ``columns`` (no series played)."""
    head = "<thead><tr><th></th>" + "".join(f'<th data-bot="{b}"></th>' for b in columns)
    return table(*[f'<tr data-bot="{b}"><th>{b}</th>' + "".join(
        f'<td data-bot="{o}">0</td>' for o in columns) + "</tr>" for b in rows],
        head=head + "</tr></thead>")


def test_a_column_coming_onto_the_crosstable_sends_its_cells_and_one_gone_is_dropped() -> None:
    before = page_crosstable(["a", "b", "c"], ["a", "b", "c", "d", "e", "f"])
    after = page_crosstable(["a", "b", "g"], ["a", "b", "c", "d", "e", "g"])
    assert table_patch(before, after) == {
        "columns": ["a", "b", "c", "d", "e", "g"], "order": ["a", "b", "g"],
        "rows": {"#0": {"g": '<th data-bot="g"></th>'},
                 "a": {"g": '<td data-bot="g">0</td>'},
                 "b": {"g": '<td data-bot="g">0</td>'},
                 "g": '<tr data-bot="g"><th>g</th>' + "".join(
                     f'<td data-bot="{o}">0</td>' for o in "abcdeg") + "</tr>"}}


def test_a_changed_frame_or_a_patch_as_big_as_the_table_goes_whole() -> None:
    before = table(*standings(*KEYS))
    assert table_patch(before, table(*standings(*KEYS), head="<thead></thead>")) is None
    every_cell = table(*[row(key, "9", "9", "9", "9", "9", "9") for key in KEYS])
    assert table_patch(before, every_cell) is None
    assert sections_patch({"s": before}, {"s": every_cell}) == {"s": {"html": every_cell}}


def test_a_body_holding_more_than_rows_or_a_key_twice_goes_whole() -> None:
    before = table(*standings(*KEYS))
    assert table_patch(before, before.replace("</tbody>", "<p>note</p></tbody>")) is None
    assert table_patch(before, table(*standings(*KEYS[:-1], "b0"))) is None
    assert table_patch("<p>no table</p>", "<p>no table either</p>") is None


def test_keys_are_read_unescaped_as_a_browser_reads_data_bot() -> None:
    before = table(row("a&amp;b", "1", "0"), row("c", "2", "0"))
    after = table(row("c", "1", "0"), row("a&amp;b", "2", "0"))
    patch = table_patch(before, after)
    assert patch is not None and patch["order"] == ["c", "a&b"]
