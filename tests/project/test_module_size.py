"""Every module of ``arena/`` under 400 lines (developers' guide, issue 9): a module
that grows past it has more than one job and is split."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 400


def _modules() -> list[str]:
    return sorted(path.relative_to(REPO).as_posix() for path in (REPO / "arena").rglob("*.py"))


def test_the_arena_has_modules_to_measure() -> None:
    assert len(_modules()) > 20


@pytest.mark.parametrize("module", _modules())
def test_module_is_under_400_lines(module: str) -> None:
    lines = len((REPO / module).read_text().splitlines())
    assert lines < MAX_LINES, f"{module} has {lines} lines; split it by job"
