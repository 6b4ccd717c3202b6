"""No code outside arena/sandbox/ names a sandbox backend (issue 37): callers ask
the backend's declared capabilities (``arena.sandbox.registry.Capabilities``) and
take the default from the registry, so adding a backend touches its module and its
registry line only.

What counts: a string literal in arena/ (outside arena/sandbox/) whose whole value
is a registered backend's name, wherever it stands (a comparison, a default, a
dict key, a list). Prose that mentions a backend inside a longer string (a
docstring, a help text such as "e.g. --sandbox process") does not count: it
decides nothing, and the registry's own summaries are what ``--help`` lists."""

from __future__ import annotations

import ast
from pathlib import Path

from arena.sandbox import registry

REPO = Path(__file__).resolve().parents[2]


def backend_names_outside_the_sandbox(package: Path, names: frozenset[str]) -> list[str]:
    """``path:line: 'name'`` for each literal naming a backend in ``package`` outside
    its ``sandbox`` folder."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if (package / "sandbox") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in names:
                where = path.relative_to(package.parent)
                found.append(f"{where}:{node.lineno}: {node.value!r}")
    return found


def test_no_code_outside_the_sandbox_package_names_a_backend() -> None:
    found = backend_names_outside_the_sandbox(REPO / "arena", frozenset(registry.names()))
    assert found == [], "ask registry.backend(name).capabilities instead:\n" + "\n".join(found)


def test_the_check_finds_a_backend_name(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sandbox").mkdir(parents=True)
    (package / "sandbox" / "registry.py").write_text('DEFAULT = "docker"\n')
    (package / "caller.py").write_text('"""Runs bots in docker by default."""\n\n'
                                  'def images(name: str) -> bool:\n'
                                  '    return name == "docker"\n')
    assert backend_names_outside_the_sandbox(package, frozenset({"docker"})) == [
        "pkg/caller.py:4: 'docker'"]
