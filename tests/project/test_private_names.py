"""A leading underscore means "this module's own": no module of arena/ or engine/
imports another module's private name (``from arena.storage.records import _bot``),
and no module of arena/storage/ reaches into another object's private attributes
(``storage._query``): what the storage modules share is public, in one place.
Storage's private names stay inside it for everyone: no module of arena/ or
tests/ (benchmarks included) imports one or reads one off a storage
(``storage._connection``, ``server.storage._lock``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: Path) -> list[str]:
    """``line name`` of every private name (or private module) ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            found += [f"{node.lineno} {alias.name}" for alias in node.names
                      if is_private(alias.name) or any(map(is_private, parts))]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno} {alias.name}" for alias in node.names
                      if any(map(is_private, alias.name.split(".")))]
    return found


def foreign_private_attributes(source: Path) -> list[str]:
    """``line expression`` of every private attribute read off anything but ``self``
    or ``cls`` (another object's, or another module's, private state)."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if (isinstance(node, ast.Attribute) and is_private(node.attr)
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_imports_a_private_name() -> None:
    found = {str(source.relative_to(REPO)): names
             for source in sorted([*REPO.glob("arena/**/*.py"), *REPO.glob("engine/**/*.py")])
             if (names := private_imports(source))}
    assert found == {}


def test_storage_modules_touch_only_their_own_private_attributes() -> None:
    found = {str(source.relative_to(REPO)): names
             for source in sorted(REPO.glob("arena/storage/*.py"))
             if (names := foreign_private_attributes(source))}
    assert found == {}


def storage_reach_ins(source: Path) -> list[str]:
    """``line expression`` of every private name ``source`` imports from
    ``arena.storage``, or reads off a storage (anything named ``storage``/``store``)."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena.storage"):
            found += [f"{node.lineno} {alias.name}" for alias in node.names
                      if is_private(alias.name)]
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            owner = node.value
            name = (owner.id if isinstance(owner, ast.Name)
                    else owner.attr if isinstance(owner, ast.Attribute) else "")
            if name in ("storage", "store"):
                found.append(f"{node.lineno} {ast.unparse(node)}")
    return sorted(found, key=lambda line: int(line.split()[0]))


def test_nobody_outside_storage_reaches_into_it() -> None:
    sources = [*REPO.glob("arena/**/*.py"), *REPO.glob("tests/**/*.py")]
    found = {str(source.relative_to(REPO)): names for source in sorted(sources)
             if source.parent.name != "storage" and source.name != "test_private_names.py"
             and (names := storage_reach_ins(source))}
    assert found == {}


def test_a_storage_reach_in_is_found(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from arena.storage.store import Storage, _insert_round\n"
                      "def f(storage, server, pool):\n    storage._connection.execute('x')\n"
                      "    server.storage._lock\n    pool._lock\n    return storage.query('x')\n")
    assert storage_reach_ins(sample) == ["1 _insert_round", "3 storage._connection",
                                         "4 server.storage._lock"]


@pytest.mark.parametrize(("code", "expected"), [
    ("from arena.storage.records import BotRecord, _bot\n", ["1 _bot"]),
    ("from .schema import _COLUMNS\n", ["1 _COLUMNS"]),
    ("import arena._private.thing\n", ["1 arena._private.thing"]),
    ("from arena._private import thing\n", ["1 thing"]),
    ("from __future__ import annotations\nfrom arena.storage import Storage\n", []),
])
def test_a_private_import_is_found(tmp_path: Path, code: str, expected: list[str]) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(code)
    assert private_imports(sample) == expected


def test_a_foreign_private_attribute_is_found(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(storage, self):\n    self._own()\n    storage._query('x')\n"
                      "    return storage.__class__\n")
    assert foreign_private_attributes(sample) == ["3 storage._query"]
