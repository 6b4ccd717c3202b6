"""engine/ depends on nothing but the standard library, and ships py.typed.

import-linter's ``standard_library_only`` contract (tests/project/test_layers.py) checks the
import graph; these tests check the same promise independently from the source: every
import names the standard library or the engine, none names a module of an installed
distribution, and nothing is imported by a name in a string (which no graph sees)."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).resolve().parent
PROJECT = tomllib.loads((ENGINE_DIR.parent / "pyproject.toml").read_text())["project"]["name"]
# Calls that import a module named by a string, out of any static checker's sight.
DYNAMIC_IMPORTS = frozenset({"__import__", "import_module", "import_from_path",
                             "spec_from_file_location", "load_module", "exec_module"})


def imported_top_level_modules(source: Path) -> set[str]:
    """Top-level names of every import in ``source``; a relative import is the engine."""
    tree = ast.parse(source.read_text(), filename=str(source))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module.split(".")[0] if node.level == 0 and node.module
                      else "engine")
    return names


def dynamic_imports(source: Path) -> list[str]:
    """``file:line name`` of every call that imports by a string (``__import__``,
    ``importlib.import_module``, ...), and of every import of ``importlib``."""
    tree = ast.parse(source.read_text(), filename=str(source))
    found = []
    for node in ast.walk(tree):
        name = ""
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")
            name = name if name in DYNAMIC_IMPORTS else ""
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""])
            name = next((module for module in modules if module.startswith("importlib")), "")
        if name:
            found.append(f"{source.name}:{getattr(node, 'lineno', 0)} {name}")
    return found


def engine_sources() -> list[Path]:
    return sorted(ENGINE_DIR.rglob("*.py"))


def installed_distribution_modules() -> set[str]:
    """Top-level modules of every distribution installed in this environment but the
    project's own (which holds ``engine`` and ``arena``)."""
    return {module for module, distributions in
            importlib.metadata.packages_distributions().items()
            if set(distributions) != {PROJECT}}


def test_engine_has_modules_to_check() -> None:
    modules = {path.name for path in ENGINE_DIR.glob("*.py")}
    assert {"__init__.py", "cards.py", "melds.py", "settle.py", "profiles.py",
            "scoresheet.py"} <= modules


def test_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    offenders = {}
    for source in engine_sources():
        outside = imported_top_level_modules(source) - allowed
        if outside:
            offenders[source.name] = sorted(outside)
    assert offenders == {}


def test_engine_imports_no_module_of_an_installed_distribution() -> None:
    installed = installed_distribution_modules()
    # The environment's own third-party packages are among them, so the check bites.
    assert {"numpy", "grpc", "google", "rich", "docker", "openskill"} <= installed
    assert "engine" not in installed
    offenders = {source.name: sorted(imported_top_level_modules(source) & installed)
                 for source in engine_sources()}
    assert {name: modules for name, modules in offenders.items() if modules} == {}


def test_engine_imports_nothing_by_a_name_in_a_string() -> None:
    assert [found for source in engine_sources() for found in dynamic_imports(source)] == []


def test_checker_catches_a_third_party_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom grpc import server\nif True:\n    import rich.console\n"
                      "from . import cards\nfrom .hand import Hand\ndef f():\n"
                      "    from numpy import linalg\n")
    imported = imported_top_level_modules(sample)
    assert imported == {"os", "grpc", "rich", "engine", "numpy"}
    assert imported - set(sys.stdlib_module_names) - {"engine"} == {"grpc", "rich", "numpy"}
    assert imported & installed_distribution_modules() == {"grpc", "rich", "numpy"}


def test_checker_catches_an_import_by_a_name_in_a_string(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import importlib\nx = importlib.import_module('numpy')\n"
                      "y = __import__('rich')\nz = len('numpy')\n")
    assert dynamic_imports(sample) == ["sample.py:1 importlib", "sample.py:2 import_module",
                                       "sample.py:3 __import__"]


def test_py_typed_ships_with_the_package() -> None:
    assert (ENGINE_DIR / "py.typed").is_file()
    config = tomllib.loads((ENGINE_DIR.parent / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["engine"]
