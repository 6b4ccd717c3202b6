"""Series in the in-process sandbox print no gRPC noise on stderr (issue 28, point 6):
the bots' servers stop gracefully, so the arena's gRPC core never logs "Got goaway"."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS


def test_a_run_of_series_in_the_inprocess_sandbox_is_quiet_on_stderr() -> None:
    played = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", str(SAMPLE_BOTS / "greedy"),
         str(SAMPLE_BOTS / "random"), "--sandbox", "inprocess", "--series", "6",
         "--max-hands", "3"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert played.returncode == 0, played.stderr[-3000:]
    assert "0 forfeited by a fault" in played.stdout
    assert "goaway" not in played.stderr.lower(), played.stderr[-3000:]
    assert "chttp2" not in played.stderr, played.stderr[-3000:]
