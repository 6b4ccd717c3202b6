"""arena/scripts/ensure-chromium.sh: a no-op when chromium and chromedriver answer,
an apt-get install as root on Debian otherwise, and a specific non-zero failure
where it cannot install them (never a silent skip: the browser tests need them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.script_tools import apt_calls, fake_tools, recording_apt, run_script

SCRIPT = "ensure-chromium.sh"


def machine(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """A made-up machine, with HOLLYWOOD_CHROMIUM/CHROMEDRIVER pointing into its PATH
    (absent until "installed")."""
    env = fake_tools(tmp_path, ("head", "chmod"), **scripts)
    return {**env, "HOLLYWOOD_CHROMIUM": str(tmp_path / "bin" / "chromium"),
            "HOLLYWOOD_CHROMEDRIVER": str(tmp_path / "bin" / "chromedriver")}


def test_nothing_to_do_when_chromium_and_its_driver_are_installed() -> None:
    for binary in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(binary, os.X_OK):
            pytest.fail(f"{binary} is not installed: run `make setup`")
    result = run_script(SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_non_root_without_chromium_fails_with_a_reason(tmp_path: Path) -> None:
    result = run_script(SCRIPT, machine(tmp_path, id="echo 1000"))
    assert result.returncode == 1
    assert "not\nroot" in result.stderr and "apt-get install chromium" in result.stderr


def test_root_on_debian_installs_chromium_and_its_driver(tmp_path: Path) -> None:
    if not Path("/etc/debian_version").is_file():
        pytest.fail("the CI machine is Debian: /etc/debian_version is missing")
    apt = recording_apt(tmp_path, {"chromium": "Chromium 156.0",
                                   "chromedriver": "ChromeDriver 156.0"})
    result = run_script(SCRIPT, machine(tmp_path, id="echo 0", **{"apt-get": apt}))
    assert result.returncode == 0, result.stderr
    assert "installed Chromium 156.0, ChromeDriver 156.0" in result.stderr
    assert apt_calls(tmp_path) == ["update -qq", "install -y -qq chromium chromium-driver"]
