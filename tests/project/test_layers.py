"""The architecture's import rules (pyproject.toml [tool.importlinter], docs/design.md):
the layers of arena/, an engine and an SDK that import nothing of the arena, a match
loop that knows nothing of seasons, a thin client, and no import loops anywhere.

The first test checks the code base; the others copy it, plant one forbidden import
and check that the same command then fails, so the rules cannot pass vacuously."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
SDK = Path("sample_bots") / "sdk" / "python" / "hollywood_sdk"


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / SDK.parent}"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_code_base_keeps_every_import_contract() -> None:
    done = _lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.fixture(scope="module")
def copy_of_the_code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layers")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("engine", "arena", "hollywood_env"):
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    shutil.copytree(REPO / SDK, root / SDK, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(
    ("module", "planted", "broken_contract"),
    [
        ("arena/match/loop.py", "import arena.server.service", "the match loop knows nothing"),
        ("arena/core/settings.py", "import arena.storage.store", "arena layers"),
        ("arena/storage/store.py", "import arena.season.standings", "arena layers"),
        ("arena/cli/client.py", "import arena.server.service", "the thin client"),
        ("engine/cards.py", "import arena.core.faults", "engine imports nothing"),
        ("engine/cards.py", "import grpc", "engine imports nothing"),
        # No list names numpy: the engine's contract allows the standard library only.
        ("engine/cards.py", "import numpy", "engine imports nothing"),
        ("engine/settle.py", "from numpy import linalg", "engine imports nothing"),
        ("engine/hand.py", "import some_package_nobody_installed", "engine imports nothing"),
        (f"{SDK}/views.py", "import engine.cards", "the bot SDK never imports"),
        ("engine/observation.py", "import engine.hand", "no import loops"),
        ("hollywood_env/actions.py", "import arena.core.faults", "the learning environment"),
    ],
)
def test_a_planted_forbidden_import_breaks_a_contract(
    copy_of_the_code: Path, module: str, planted: str, broken_contract: str
) -> None:
    source = copy_of_the_code / module
    original = source.read_text()
    try:
        source.write_text(original + f"\n{planted}  # planted by test_layers\n")
        done = _lint_imports(copy_of_the_code)
    finally:
        source.write_text(original)
    assert done.returncode != 0, done.stdout
    broken = [line for line in done.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(line.startswith(broken_contract) for line in broken), done.stdout
