"""The code base's static contracts run with the tests, so CI (`make test`) fails on
them too: `mypy --strict` on the engine, the arena and the bot SDK, `ruff`, and
`vulture` (dead code; its paths, confidence and whitelist are in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*command: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_engine_arena_and_sdk_are_mypy_strict_clean() -> None:
    done = _run(str(BIN / "mypy"), "--strict", "engine", "arena", "hollywood_env", "examples",
                "sample_bots/sdk/python/hollywood_sdk")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_is_clean() -> None:
    done = _run(str(BIN / "ruff"), "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_vulture_finds_no_dead_code() -> None:
    done = _run(BIN / "vulture")
    assert done.returncode == 0, done.stdout + done.stderr


def test_vulture_reports_a_function_nobody_calls(tmp_path: Path) -> None:
    """The project's settings (confidence, ignores) still catch plain dead code."""
    sample = tmp_path / "sample.py"
    sample.write_text("def used() -> int:\n    return 1\n\n\n"
                      "def never_called() -> int:\n    return used()\n\n\n"
                      "LIMIT = 3\n")
    done = _run(BIN / "vulture", sample)
    assert done.returncode != 0
    reported = sorted(line.split("unused ")[1].split(" (")[0]
                      for line in done.stdout.splitlines())
    assert reported == ["function 'never_called'", "variable 'LIMIT'"]
