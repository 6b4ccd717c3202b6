"""The website's lists a page at a time: ``?page=N`` (1-based; read through
``arena.web.params.query_page``), ``WEB_PAGE_SIZE`` rows a page, and the links to the
pages before and after. Every list that grows without bound (bots, an author's bots,
a bot's versions, seasons, leagues, challenges) is read this way, its JSON twin
included, so no page reads or sends the whole table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, TypeVar

WEB_PAGE_SIZE: Final = 50
Row = TypeVar("Row")


@dataclass(frozen=True)
class Pager:
    """Page ``number`` (1-based) of ``size`` rows."""

    number: int
    size: int = WEB_PAGE_SIZE

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def limit(self) -> int:
        """Rows to read: one past the page, to know whether another follows."""
        return self.size + 1

    def cut(self, rows: list[Row]) -> tuple[list[Row], dict[str, Any]]:
        """The page's rows (of the ``limit`` read) and what the page and its twin say
        of the pages around it: ``{"number", "size", "previous", "next"}`` (None where
        there is none)."""
        more = len(rows) > self.size
        return rows[:self.size], {
            "number": self.number, "size": self.size,
            "previous": self.number - 1 if self.number > 1 else None,
            "next": self.number + 1 if more else None}
