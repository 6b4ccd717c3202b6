"""The website from the command line: `arena season run --http HOST:PORT
--keep-serving` prints the address first, serves the season while it plays, keeps
serving the finished season, and stops cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES = REPO_ROOT / "sample_bots"
BOUND = 120.0


def read_until(process: subprocess.Popen[str], pattern: str) -> re.Match[str]:
    """Read the command's output until a line matches ``pattern``."""
    assert process.stdout is not None
    deadline = time.monotonic() + BOUND
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"the command ended; it printed: {''.join(seen)[-2000:]}")
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"no line matched {pattern!r} within {BOUND} s")


def test_season_run_keeps_serving_the_finished_season_until_interrupted(tmp_path: Path
                                                                         ) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "season", "run", "--db", str(tmp_path / "a.db"),
         "--bots", str(SAMPLES / "greedy"), str(SAMPLES / "shark"), "--series-per-pair", "2",
         "--max-hands", "20", "--sandbox", "inprocess", "--http", "localhost:0",
         "--keep-serving"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = read_until(process, r"watch it live: (http://localhost:\d+)").group(1)
        assert read_until(process, r"still serving (\S+) \(Ctrl-C stops\)").group(1) == url
        season = httpx2.get(f"{url}/api/seasons", timeout=10).json()["seasons"][0]
        assert (season["status"], season["series_done"], season["series_total"]) == (
            "finished", 2, 2)
        page = httpx2.get(f"{url}/seasons/{season['id']}", timeout=10)
        assert page.status_code == 200 and "shark@1.0.0" in page.text
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
