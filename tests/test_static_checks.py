"""The code base's static contracts run with the tests, so CI (`make test`) fails on
them too: `mypy --strict` on the engine, the arena and the bot SDK, and `ruff`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_engine_arena_and_sdk_are_mypy_strict_clean() -> None:
    done = _run(str(BIN / "mypy"), "--strict", "engine", "arena",
                "sample_bots/sdk/python/hollywood_sdk")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_is_clean() -> None:
    done = _run(str(BIN / "ruff"), "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
