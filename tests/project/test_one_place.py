"""An idea with one home is not re-derived elsewhere (issue 37, point 4):

* which seat forfeited is read from the stored fault only by ``arena.core.faults``
  (``faults_by_seat``, ``joint_fault``); everything else asks the outcome's
  ``seat_faults``. The proto conversion and the proto's readers name the message's
  field, and one migration reads the raw stored JSON.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

STORED_FORM_READERS = frozenset({
    "arena/core/faults.py",  # the stored form and its one per-seat reading
    "arena/server/convert.py",  # BotFault -> the proto's Fault, field by field
    "arena/cli/render.py",  # reads the proto's Fault message (no BotFault there)
    "arena/storage/seat_log_rows.py",  # a migration over the raw stored JSON
})


def readers_of(pattern: str, root: Path, allowed: frozenset[str]) -> list[str]:
    """The modules under ``root`` (as paths from the repository) whose code matches
    ``pattern``, those in ``allowed`` left out."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name not in allowed and re.search(pattern, path.read_text()):
            found.append(name)
    return found


def test_only_the_faults_module_reads_the_other_seats_fault() -> None:
    assert readers_of(r"\bother_seat_fault\b", REPO / "arena", STORED_FORM_READERS) == []


def test_the_check_finds_a_reader(tmp_path: Path) -> None:
    assert readers_of(r"\bother_seat_fault\b", REPO / "arena", frozenset()) == sorted(
        STORED_FORM_READERS)
