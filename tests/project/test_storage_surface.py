"""Storage has one surface: code outside arena/storage/ imports ``arena.storage`` and
nothing under it (``from arena.storage.leagues import ...`` reaches past the surface), so
storage may move a name between its modules without touching a caller. Storage's own
tests (tests/arena/storage/) and its benchmarks (tests/bench/) test the modules
themselves; every other exception is named below with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import arena.storage

REPO = Path(__file__).resolve().parents[2]
SURFACE = "arena.storage"
INSIDE = ("arena/storage/", "tests/arena/storage/", "tests/bench/")
EXCEPTIONS = {
    # Adds a seat log to a series already stored, which no arena code does: storage
    # writes a series' seat logs with its result, in one transaction.
    "tests/arena/web/test_web_signin.py": {"arena.storage.logs", "arena.storage.seat_log_rows"},
    # Spies on how a token's secret is hashed, to count the hashes a flood costs.
    "tests/arena/server/test_hostile_auth.py": {"arena.storage.authors"},
}


def imports_past(source: str, filename: str = "<sample>") -> list[str]:
    """``line module`` of every import in ``source`` that reaches under ``arena.storage``."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(SURFACE + "."):
            found.append(f"{node.lineno} {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno} {alias.name}" for alias in node.names
                      if alias.name.startswith(SURFACE + ".")]
        elif (isinstance(node, ast.ImportFrom) and node.module == SURFACE
              and any(alias.name not in arena.storage.__all__ for alias in node.names)):
            # A submodule imported as a name of the package is reaching past it too.
            found += [f"{node.lineno} {SURFACE}.{alias.name}" for alias in node.names
                      if alias.name not in arena.storage.__all__]
    return found


def outside_sources() -> list[Path]:
    sources = [*REPO.glob("arena/**/*.py"), *REPO.glob("engine/**/*.py"),
               *REPO.glob("sample_bots/**/*.py"), *REPO.glob("tests/**/*.py")]
    return sorted(source for source in sources
                  if "node_modules" not in source.parts
                  and not str(source.relative_to(REPO)).startswith(INSIDE))


def test_no_code_outside_storage_imports_past_its_surface() -> None:
    found = {}
    for source in outside_sources():
        name = str(source.relative_to(REPO))
        allowed = EXCEPTIONS.get(name, set())
        past = [entry for entry in imports_past(source.read_text(), name)
                if entry.split()[1] not in allowed]
        if past:
            found[name] = past
    assert found == {}


def test_every_exception_is_still_needed() -> None:
    for name, modules in EXCEPTIONS.items():
        reached = {entry.split()[1] for entry in imports_past((REPO / name).read_text(), name)}
        assert modules <= reached, name


@pytest.mark.parametrize(("source", "expected"), [
    ("from arena.storage import Storage, get_league\n", []),
    ("from arena.storage.leagues import get_league\n", ["1 arena.storage.leagues"]),
    ("def f():\n    from arena.storage.store import Storage\n", ["2 arena.storage.store"]),
    ("import arena.storage.lifecycle\n", ["1 arena.storage.lifecycle"]),
    ("from arena.storage import lifecycle\n", ["1 arena.storage.lifecycle"]),
    ("import arena.storage\n", []),
])
def test_the_check_sees_every_way_past_the_surface(source: str, expected: list[str]) -> None:
    assert imports_past(source) == expected


def test_every_public_name_is_importable_from_the_surface() -> None:
    missing = [name for name in arena.storage.__all__ if not hasattr(arena.storage, name)]
    assert missing == []
