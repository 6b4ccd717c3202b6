"""arena/scripts/ensure-docker.sh: a no-op with an engine up, and a specific,
non-zero failure where it cannot install or start one (never a silent skip)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "arena" / "scripts" / "ensure-docker.sh"


def fake_tools(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """A PATH where each named tool is a shell script with the given body."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    for name in ("bash", "seq", "sleep", "tail", "dirname", "mkdir", "setsid", "nohup"):
        real = subprocess.run(["sh", "-c", f"command -v {name}"], capture_output=True,
                              text=True).stdout.strip()
        if real and not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(real)
    return {**os.environ, "PATH": str(bin_dir)}


@pytest.mark.docker
def test_nothing_to_do_when_docker_answers(docker_client: object) -> None:
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_non_root_without_engine_fails_with_a_reason(tmp_path: Path) -> None:
    env = fake_tools(tmp_path, docker="exit 1", id="echo 1000")
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 1
    assert "not root" in result.stderr and "docker' group" in result.stderr


def test_engine_that_never_answers_fails_with_its_log(tmp_path: Path) -> None:
    log = tmp_path / "dockerd.log"
    env = fake_tools(tmp_path, docker="exit 1", id="echo 0", pgrep="exit 1",
                     dockerd="echo 'dockerd: cannot start, no cgroups' >&2")
    env.update(HOLLYWOOD_DOCKERD_LOG=str(log), HOLLYWOOD_DOCKERD_WAIT="2")
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 1
    assert "did not answer 'docker info' within 2s" in result.stderr
    assert "no cgroups" in result.stderr  # the daemon's own log is shown
