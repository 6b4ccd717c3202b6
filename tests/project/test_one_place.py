"""An idea with one home is not re-derived elsewhere (issue 37, point 4):

* which seat forfeited is read from the stored fault only by ``arena.core.faults``
  (``faults_by_seat``, ``joint_fault``); everything else asks the outcome's
  ``seat_faults``. The proto conversion and the proto's readers name the message's
  field, and one migration reads the raw stored JSON.
* every table of the website reads the server's standings (``SeasonReadings``:
  its board and statistics), never computes standings from storage itself: no
  module of ``arena/web/`` computes a table, fits statistics or asks a format for
  its standings, and ``current_rows`` is always given the server's tables.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

STORED_FORM_READERS = frozenset({
    "arena/core/faults.py",  # the stored form and its one per-seat reading
    "arena/server/convert.py",  # BotFault -> the proto's Fault, field by field
    "arena/cli/render.py",  # reads the proto's Fault message (no BotFault there)
    "arena/storage/seat_log_rows.py",  # a migration over the raw stored JSON
})


def readers_of(pattern: str, root: Path, allowed: frozenset[str],
               base: Path = REPO) -> list[str]:
    """The modules under ``root`` (as paths from ``base``) whose code matches
    ``pattern``, those in ``allowed`` left out."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(base).as_posix()
        if name not in allowed and re.search(pattern, path.read_text()):
            found.append(name)
    return found


def test_only_the_faults_module_reads_the_other_seats_fault() -> None:
    assert readers_of(r"\bother_seat_fault\b", REPO / "arena", STORED_FORM_READERS) == []


def test_the_check_finds_a_reader() -> None:
    assert readers_of(r"\bother_seat_fault\b", REPO / "arena", frozenset()) == sorted(
        STORED_FORM_READERS)


COMPUTES_STANDINGS = (r"\bcompute_standings\b|\bseason_statistics\(|\bSeasonView\b"
                      r"|\bStandingsBoard\(|\bLiveStatistics\(|\bcurrent_ratings\b")
"""A table, statistics or a format's standings computed from stored results."""


def web_computing_standings(web: Path, base: Path = REPO) -> list[str]:
    """Modules of ``web`` that compute standings instead of reading the server's."""
    found = readers_of(COMPUTES_STANDINGS, web, frozenset(), base)
    for path in sorted(web.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "current_rows" and len(node.args) + len(node.keywords) < 3):
                found.append(f"{path.relative_to(base).as_posix()}: current_rows without "
                             "the server's tables")
    return found


def test_the_website_reads_the_servers_standings() -> None:
    assert web_computing_standings(REPO / "arena" / "web") == []


def test_a_website_computing_standings_is_found(tmp_path: Path) -> None:
    web = tmp_path / "planted"  # a website's package, planted
    web.mkdir()
    (web / "pages.py").write_text("from arena.season.standings import compute_standings\n"
                                  "rows = current_rows(storage, bots)\n")
    (web / "fine.py").write_text("rows = current_rows(storage, bots, readings_table)\n")
    assert web_computing_standings(web, tmp_path) == [
        "planted/pages.py",
        "planted/pages.py: current_rows without the server's tables"]
