"""No code outside arena/sandbox/ names a sandbox backend or imports its own modules
(issue 37): callers ask the backend's declared capabilities
(``arena.sandbox.registry.Capabilities``), call the ``Sandbox`` hooks and take the
default from the registry, so adding a backend touches its module and its registry
line only.

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


# Nor imports a backend's own modules: what loads the Docker SDK (the image builder,
# the containers' modules) is reached through the ``Sandbox`` hooks (``build``,
# ``prepare_host``), so a second backend that builds needs no caller changed.


def _imported_modules(tree: ast.AST, *, top_level_only: bool) -> set[str]:
    nodes = tree.body if top_level_only and isinstance(tree, ast.Module) else ast.walk(tree)
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sdk_bound_modules(package: Path, sdk: str) -> set[str]:
    """The modules of ``package/sandbox`` whose import loads ``sdk`` (a module-level
    import of it, or of another such module)."""
    sandbox = package / "sandbox"
    prefix = f"{package.name}.sandbox."
    imports = {prefix + path.stem: _imported_modules(ast.parse(path.read_text()),
                                                     top_level_only=True)
               for path in sandbox.glob("*.py")}
    bound = {name for name, used in imports.items()
             if any(module == sdk or module.startswith(sdk + ".") for module in used)}
    while True:
        more = {name for name, used in imports.items() if name not in bound and used & bound}
        if not more:
            return bound
        bound |= more


def sdk_bound_imports_outside_the_sandbox(package: Path, sdk: str) -> list[str]:
    """``path: module`` for each import (at any depth, lazy ones too) of a module
    bound to ``sdk`` by code of ``package`` outside its ``sandbox`` folder."""
    bound = sdk_bound_modules(package, sdk)
    found = []
    for path in sorted(package.rglob("*.py")):
        if (package / "sandbox") in path.parents:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for module in sorted(_imported_modules(tree, top_level_only=False) & bound):
            found.append(f"{path.relative_to(package.parent)}: {module}")
    return found


def test_no_code_outside_the_sandbox_package_imports_a_docker_module() -> None:
    bound = sdk_bound_modules(REPO / "arena", "docker")
    # The check sees what it must: the builder and the container sandbox itself.
    assert {"arena.sandbox.images", "arena.sandbox.docker"} <= bound
    assert "arena.sandbox.base" not in bound and "arena.sandbox.registry" not in bound
    found = sdk_bound_imports_outside_the_sandbox(REPO / "arena", "docker")
    assert found == [], ("use the Sandbox hooks (build, prepare_host) instead:\n"
                         + "\n".join(found))


def test_the_check_finds_a_lazy_import_of_a_module_that_loads_the_sdk(
        tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sandbox").mkdir(parents=True)
    (package / "sandbox" / "engine.py").write_text("import docker.errors\n")
    (package / "sandbox" / "builder.py").write_text("from pkg.sandbox.engine import x\n")
    (package / "sandbox" / "base.py").write_text("def build() -> None:\n"
                                                 "    import pkg.sandbox.engine\n")
    (package / "caller.py").write_text("from pkg.sandbox import base\n\n"
                                       "def build() -> None:\n"
                                       "    from pkg.sandbox.builder import build_image\n")
    assert sdk_bound_modules(package, "docker") == {"pkg.sandbox.engine",
                                                    "pkg.sandbox.builder"}
    assert sdk_bound_imports_outside_the_sandbox(package, "docker") == [
        "pkg/caller.py: pkg.sandbox.builder"]
