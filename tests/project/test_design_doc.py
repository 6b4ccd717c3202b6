"""docs/design.md is drawn from the code: its import tables say what the source
imports, and its table of where each kind of change goes names real files and
reaches every package of ``arena``.

The imports are read from the source with ``ast`` (not from the layers' contracts,
which say what is allowed, not what is done), so a new dependency between the
top-level packages, or a layer reaching a new outside package, fails here until
the page says so."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"
PROJECT_PACKAGES = frozenset({"engine", "arena", "hollywood", "hollywood_sdk", "hollywood_env"})
SDK_FOLDER = ROOT / "sample_bots" / "sdk" / "python" / "hollywood_sdk"
SOURCES = {
    "engine": [ROOT / "engine"],
    "sample_bots": [ROOT / "sample_bots"],
    "hollywood_sdk": [SDK_FOLDER],
    "hollywood_env": [ROOT / "hollywood_env"],
    "arena": [ROOT / "arena"],
}
FILE_NAME = re.compile(r"[\w./-]+\.(?:py|md|proto|html|toml)")


def imported_tops(path: Path) -> set[str]:
    """The project's top-level packages a Python file imports (absolute imports)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names)
    return found & PROJECT_PACKAGES


def python_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*.py")
            if ".venv" not in path.parts and "node_modules" not in path.parts]


def section(heading: str) -> str:
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def table_rows(text: str, first_column: str) -> dict[str, set[str]]:
    """The rows of the markdown table whose header starts with ``first_column``: the
    first cell's name -> the project packages named (in backticks) by the second."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines)
                 if line.startswith(f"| {first_column} |"))
    rows: dict[str, set[str]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        names = set(re.findall(r"`([\w.]+)`", cells[1]))
        rows[cells[0].strip("`")] = names & PROJECT_PACKAGES
    return rows


def test_the_top_level_import_table_is_what_the_source_imports() -> None:
    documented = table_rows(section("## Layout and dependency direction"), "package")
    actual: dict[str, set[str]] = {}
    for package, folders in SOURCES.items():
        tops: set[str] = set()
        for folder in folders:
            for path in python_files(folder):
                if package == "sample_bots" and SDK_FOLDER in path.parents:
                    continue
                tops |= imported_tops(path)
        actual[package] = tops - {package}
    assert documented == actual


def test_the_layer_import_table_is_what_each_layer_imports() -> None:
    documented = table_rows(section("### The layers of `arena/`"), "layer")
    actual: dict[str, set[str]] = {}
    for folder in sorted((ROOT / "arena").iterdir()):
        if (folder / "__init__.py").exists():
            tops: set[str] = set()
            for path in python_files(folder):
                tops |= imported_tops(path)
            actual[f"arena.{folder.name}"] = tops - {"arena"}
    assert documented == actual


def change_table() -> str:
    return section("### Where each kind of change goes")


def missing_files(table: str) -> list[str]:
    """The files a table names that do not exist. A path is checked from the root
    (one starting with ``/`` is a URL, not a file); a bare file name (``auth.py``
    after ``arena/server/doors.py``) in the folder of a path named before it in its
    cell, or anywhere in the tree; a .proto anywhere under proto/."""
    missing = []
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith("| change"):
            continue
        for cell in line.split("|"):
            folders = [ROOT]
            for token in re.findall(r"`([^`]+)`", cell):
                if token.startswith("/") or not (FILE_NAME.fullmatch(token)
                                                 or token.endswith("/")):
                    continue
                if "/" in token.rstrip("/"):
                    path = ROOT / token
                    folders.insert(0, path if token.endswith("/") else path.parent)
                    found = path.exists()
                elif token.endswith(".proto"):
                    found = any((ROOT / "proto").rglob(token))
                else:
                    found = any((folder / token).exists() for folder in folders) or any(
                        ROOT.glob(f"*/**/{token}"))
                if not found:
                    missing.append(token)
    return missing


def test_every_file_the_change_table_names_exists() -> None:
    assert missing_files(change_table()) == []


def test_every_package_of_the_arena_has_a_row() -> None:
    table = change_table()
    packages = sorted(path.parent.relative_to(ROOT).as_posix()
                      for path in (ROOT / "arena").rglob("__init__.py"))
    absent = [package for package in packages
              if f"`{package}/" not in table and f"`{package.replace('/', '.')}" not in table]
    assert absent == []


def test_the_checks_fail_on_a_wrong_page() -> None:
    """The readers above see planted errors: a package nobody may name, files that
    do not exist (a path, and a bare name beside a real path)."""
    rows = table_rows("| layer | x |\n|---|---|\n| `arena.core` | `engine`, `numpy` |\n", "layer")
    assert rows == {"arena.core": {"engine"}}
    gone = "arena/season/" + "gone_module.py"  # split, so the module-name check skips it
    planted = (f"| a change | `{gone}` | `arena/server/doors.py`, "
               "`no_such_door.py`, `auth.py`, `/api/` |\n")
    assert missing_files(planted) == [gone, "no_such_door.py"]
