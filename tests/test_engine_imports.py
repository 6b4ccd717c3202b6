"""engine/ depends on nothing but the standard library, and ships py.typed."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).resolve().parent


def imported_top_level_modules(source: Path) -> set[str]:
    """Top-level names of every absolute import in ``source`` (relative ones are in-package)."""
    tree = ast.parse(source.read_text(), filename=str(source))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_has_modules_to_check() -> None:
    modules = {path.name for path in ENGINE_DIR.glob("*.py")}
    assert {"__init__.py", "cards.py", "melds.py", "settle.py", "profiles.py",
            "scoresheet.py"} <= modules


def test_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    offenders = {}
    for source in sorted(ENGINE_DIR.rglob("*.py")):
        outside = imported_top_level_modules(source) - allowed
        if outside:
            offenders[source.name] = sorted(outside)
    assert offenders == {}


def test_checker_catches_a_third_party_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom grpc import server\nif True:\n    import rich.console\n")
    assert imported_top_level_modules(sample) - set(sys.stdlib_module_names) == {"grpc", "rich"}


def test_py_typed_ships_with_the_package() -> None:
    assert (ENGINE_DIR / "py.typed").is_file()
    config = tomllib.loads((ENGINE_DIR.parent / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["engine"]
