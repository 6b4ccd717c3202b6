"""Every module the code, the tests and the docs name exists: a dotted module name
(``arena.core.faults``, possibly followed by attributes, ``arena.core.settings.SETTINGS``;
or ``engine.cards``) in arena/, engine/, sample_bots/, tests/, docs/ and the README
imports and has those attributes, and every path (``arena/storage/store.py``, and a
test's or helper's, ``tests/arena/season/test_formats.py``) is a file. A module or test
moved or renamed leaves no stale name behind."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOTTED = re.compile(r"(?<![\w./-])((?:arena|engine)(?:\.[A-Za-z_]\w*)+)")
PATH = re.compile(r"(?<![\w./-])((?:arena|engine|tests)/[\w/]*\.py)\b")
# A dotted name ending in a file extension is a file (docs/arena.md, .arena/arena.db).
FILE_ENDINGS = frozenset({"md", "db", "proto", "py", "toml", "json", "txt", "html", "pth"})
# Dotted names that are not modules: a logger, example host names, the folder of
# registered bots' copies beside the database.
NOT_MODULES = frozenset({"arena.events", "arena.example", "arena.example.org", "arena.bots"})
# Tests whose examples are stale names on purpose.
SELF_EXAMPLES = frozenset({"test_module_references.py", "test_private_names.py",
                           "test_format_names.py", "test_tests_layout.py"})


def sources() -> list[Path]:
    found = [*REPO.glob("arena/**/*.py"), *REPO.glob("engine/**/*.py"),
             *REPO.glob("sample_bots/**/*.py"), *REPO.glob("sample_bots/**/*.md"),
             *REPO.glob("tests/**/*.py"), *REPO.glob("docs/**/*.md"), REPO / "README.md"]
    return sorted(path for path in found
                  if "node_modules" not in path.parts and path.name not in SELF_EXAMPLES)


def is_mutant_name(dotted: str) -> bool:
    """mutmut's names of mutants (docs/testing.md): ``engine.melds.x_max_meld_value``."""
    return any(part.startswith("x_") or "ǁ" in part for part in dotted.split("."))


def resolves(dotted: str) -> bool:
    """``dotted`` is a module, or a module followed by attributes it has."""
    parts = dotted.split(".")
    if parts[-1] in FILE_ENDINGS or dotted in NOT_MODULES or is_mutant_name(dotted):
        return True
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # a parent that is not a package
            found = False
        if found:
            target: object = importlib.import_module(name)
            for attribute in parts[end:]:
                if not hasattr(target, attribute):
                    return False
                target = getattr(target, attribute)
            return True
    return False


def stale_references(files: list[Path], root: Path) -> list[str]:
    """``file:line name`` of every module name or path in ``files`` that is not there."""
    stale = []
    for source in files:
        for number, line in enumerate(source.read_text().splitlines(), start=1):
            names = [found.rstrip(".") for found in DOTTED.findall(line)]
            stale += [f"{source.relative_to(root)}:{number} {name}"
                      for name in names if not resolves(name)]
            stale += [f"{source.relative_to(root)}:{number} {path}"
                      for path in PATH.findall(line) if not (REPO / path).exists()]
    return stale


def test_every_named_module_and_path_exists() -> None:
    assert stale_references(sources(), REPO) == []


@pytest.mark.parametrize(("text", "stale"), [
    ("see ``arena.faults.BotFault``", ["arena.faults.BotFault"]),
    ("see ``arena.core.faults.BotFault``", []),
    ("``arena.core.settings.NO_SUCH_SETTING``", ["arena.core.settings.NO_SUCH_SETTING"]),
    ("| `arena/storage.py` | SQLite |", ["arena/storage.py"]),
    ("| `arena/storage/store.py` | SQLite |", []),
    ("checked by tests/test_formats.py", ["tests/test_formats.py"]),
    ("checked by tests/arena/season/test_formats.py", []),
    ("engine.cards and engine.nothing_here", ["engine.nothing_here"]),
    ("docs/arena.md, .arena/arena.db, hollywood.arena.v1, logger arena.events", []),
])
def test_a_stale_name_is_reported(tmp_path: Path, text: str, stale: list[str]) -> None:
    sample = tmp_path / "sample.md"
    sample.write_text(f"intro\n{text}\n")
    assert stale_references([sample], tmp_path) == [f"sample.md:2 {name}" for name in stale]
