"""The figures a benchmark reports against its target, in a form ``summary.py`` reads.

A benchmark prints its own lines for people, and for each figure that has an
anchor or a target one more line: ``FIGURE`` and a JSON object (``report``).
``tests/bench/summary.py`` runs the benchmarks, collects these lines from their
output and prints them as one table with the machine's load and steal, so a new
figure needs only a ``report`` call in its benchmark (not a benchmark itself,
hence no ``bench_`` prefix).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

MARK: Final = "FIGURE "


@dataclass(frozen=True)
class Figure:
    """One measured figure: ``measured`` against ``target``, where ``at_most`` says
    whether the target is a ceiling (a ratio of times, a share) or a floor (a rate);
    ``unit`` is how both are written (``"x"`` for a ratio, ``"%"``, ``"us"``...)."""

    name: str
    measured: float
    target: float | None = None
    at_most: bool = True
    unit: str = "x"
    conditions: str = ""

    @property
    def met(self) -> bool | None:
        """Whether the target is met (None without a target)."""
        if self.target is None:
            return None
        return self.measured <= self.target if self.at_most else self.measured >= self.target

    def line(self) -> str:
        return MARK + json.dumps(self.__dict__, sort_keys=True)


def report(name: str, measured: float, target: float | None = None, *, at_most: bool = True,
           unit: str = "x", conditions: str = "") -> None:
    """Print ``name``'s figure for ``summary.py`` (one line, flushed at once so that a
    benchmark that fails later still leaves its figures)."""
    print(Figure(name, measured, target, at_most, unit, conditions).line(), flush=True)


def parse(line: str) -> Figure | None:
    """The figure of a ``report`` line; None for any other line."""
    if not line.startswith(MARK):
        return None
    fields = json.loads(line[len(MARK):])
    return Figure(str(fields["name"]), float(fields["measured"]),
                  None if fields.get("target") is None else float(fields["target"]),
                  bool(fields.get("at_most", True)), str(fields.get("unit", "x")),
                  str(fields.get("conditions", "")))
