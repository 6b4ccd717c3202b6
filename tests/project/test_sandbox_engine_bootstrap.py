"""arena/scripts/ensure-docker.sh: a no-op with an engine up, and a specific,
non-zero failure where it cannot install or start one (never a silent skip)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.script_tools import fake_tools, run_script

SCRIPT = "ensure-docker.sh"
REAL_TOOLS = ("seq", "sleep", "tail", "dirname", "mkdir", "setsid", "nohup")


@pytest.mark.docker
def test_nothing_to_do_when_docker_answers(docker_client: object) -> None:
    result = run_script(SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_non_root_without_engine_fails_with_a_reason(tmp_path: Path) -> None:
    result = run_script(SCRIPT, fake_tools(tmp_path, REAL_TOOLS, docker="exit 1",
                                           id="echo 1000"))
    assert result.returncode == 1
    assert "not root" in result.stderr and "docker' group" in result.stderr


def test_engine_that_never_answers_fails_with_its_log(tmp_path: Path) -> None:
    log = tmp_path / "dockerd.log"
    env = fake_tools(tmp_path, REAL_TOOLS, docker="exit 1", id="echo 0", pgrep="exit 1",
                     dockerd="echo 'dockerd: cannot start, no cgroups' >&2")
    env.update(HOLLYWOOD_DOCKERD_LOG=str(log), HOLLYWOOD_DOCKERD_WAIT="2")
    result = run_script(SCRIPT, env)
    assert result.returncode == 1
    assert "did not answer 'docker info' within 2s" in result.stderr
    assert "no cgroups" in result.stderr  # the daemon's own log is shown
