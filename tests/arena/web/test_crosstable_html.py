"""The crosstable body rendered in Python (``arena.web.crosstable_html``): the text
the template made, names escaped and control characters shown."""

from __future__ import annotations

from arena.web.crosstable_html import crosstable_body


def test_rows_cells_and_escaping_as_the_page_shows_them() -> None:
    table = {"bots": ["a<b", "c\x1b"],
             "cells": {"a<b": {"c\x1b": {"won": 2, "drawn": 0, "lost": 1, "forfeited": 1}},
                       "c\x1b": {}}}
    assert str(crosstable_body(table)) == (
        '\n<tr data-bot="a&lt;b"><th><a class="bot" href="/bots/a%3Cb">a&lt;b</a></th>\n'
        '\n<td data-bot="a&lt;b" class="self"></td>\n'
        '\n<td data-bot="c\\x1b" class="num" title="a&lt;b vs c\\x1b: won 2, drawn 0, '
        'lost 1, forfeited 1">2-0-1 <span class="fault">F1</span></td>\n'
        '</tr>\n'
        '\n<tr data-bot="c\\x1b"><th><a class="bot" href="/bots/c%1B">c\\x1b</a></th>\n'
        '\n<td data-bot="a&lt;b" class="unplayed"></td>\n'
        '\n<td data-bot="c\\x1b" class="self"></td>\n'
        '</tr>\n')


def test_a_cell_changes_with_its_counts() -> None:
    """Cells are kept by value: a new count is a new cell, not the old one."""
    before = {"bots": ["x", "y"], "cells": {"x": {"y": {"won": 1, "drawn": 0, "lost": 0,
                                                         "forfeited": 0}}, "y": {}}}
    after = {"bots": ["x", "y"], "cells": {"x": {"y": {"won": 2, "drawn": 0, "lost": 0,
                                                        "forfeited": 0}}, "y": {}}}
    assert ">1-0-0</td>" in crosstable_body(before)
    assert ">2-0-0</td>" in crosstable_body(after)
    assert ">1-0-0</td>" not in crosstable_body(after)
