"""arena/scripts/ensure-node.sh: a no-op when node and npm are there, an apt-get
install as root on Debian otherwise, and a specific non-zero failure where it cannot
install them (never a silent skip: the js-greedy tests need node)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.script_tools import apt_calls, fake_tools, recording_apt, run_script

SCRIPT = "ensure-node.sh"
REAL_TOOLS = ("sed", "chmod")


def test_nothing_to_do_when_node_and_npm_are_installed() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are not installed: run `make setup`")
    result = run_script(SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_a_too_old_node_fails_with_a_reason(tmp_path: Path) -> None:
    env = fake_tools(tmp_path, REAL_TOOLS, node="echo v16.20.0", npm="echo 8.0.0",
                     id="echo 0")
    result = run_script(SCRIPT, env)
    assert result.returncode == 1
    assert "v16.20.0 is older than v18" in result.stderr


def test_non_root_without_node_fails_with_a_reason(tmp_path: Path) -> None:
    result = run_script(SCRIPT, fake_tools(tmp_path, REAL_TOOLS, id="echo 1000"))
    assert result.returncode == 1
    assert "not root" in result.stderr and "apt-get install nodejs npm" in result.stderr


def test_root_on_debian_installs_nodejs_and_npm(tmp_path: Path) -> None:
    if not Path("/etc/debian_version").is_file():
        pytest.fail("the CI machine is Debian: /etc/debian_version is missing")
    apt = recording_apt(tmp_path, {"node": "v20.11.1", "npm": "10.2.4"})
    result = run_script(SCRIPT, fake_tools(tmp_path, REAL_TOOLS, id="echo 0",
                                           **{"apt-get": apt}))
    assert result.returncode == 0, result.stderr
    assert "installed node v20.11.1, npm 10.2.4" in result.stderr
    assert apt_calls(tmp_path) == ["update -qq", "install -y -qq nodejs npm"]
