"""arena/scripts/ensure-chromium.sh: a no-op when chromium and chromedriver answer,
an apt-get install as root on Debian otherwise, and a specific non-zero failure
where it cannot install them (never a silent skip: the browser tests need them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "arena" / "scripts" / "ensure-chromium.sh"


def fake_tools(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """A PATH holding only the named tools and the few real ones the script uses, and
    HOLLYWOOD_CHROMIUM/CHROMEDRIVER pointing into it (absent until "installed")."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    for name in ("bash", "head", "chmod"):
        real = shutil.which(name)
        if real and not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(real)
    return {**os.environ, "PATH": str(bin_dir),
            "HOLLYWOOD_CHROMIUM": str(bin_dir / "chromium"),
            "HOLLYWOOD_CHROMEDRIVER": str(bin_dir / "chromedriver")}


def run(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True,
                          env=env, timeout=60)


def test_nothing_to_do_when_chromium_and_its_driver_are_installed() -> None:
    for binary in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(binary, os.X_OK):
            pytest.fail(f"{binary} is not installed: run `make setup`")
    result = run()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_non_root_without_chromium_fails_with_a_reason(tmp_path: Path) -> None:
    result = run(fake_tools(tmp_path, id="echo 1000"))
    assert result.returncode == 1
    assert "not\nroot" in result.stderr and "apt-get install chromium" in result.stderr


def test_root_on_debian_installs_chromium_and_its_driver(tmp_path: Path) -> None:
    if not Path("/etc/debian_version").is_file():
        pytest.fail("the CI machine is Debian: /etc/debian_version is missing")
    bin_dir = tmp_path / "bin"
    calls = tmp_path / "apt-calls"
    # The fake apt-get records its arguments and "installs" both binaries.
    apt = (f'echo "$@" >> {calls}\n'
           f'if [ "$1" = install ]; then\n'
           f'  printf "#!/bin/sh\\necho Chromium 156.0\\n" > {bin_dir}/chromium\n'
           f'  printf "#!/bin/sh\\necho ChromeDriver 156.0\\n" > {bin_dir}/chromedriver\n'
           f'  chmod +x {bin_dir}/chromium {bin_dir}/chromedriver\n'
           f'fi')
    result = run(fake_tools(tmp_path, id="echo 0", **{"apt-get": apt}))
    assert result.returncode == 0, result.stderr
    assert "installed Chromium 156.0, ChromeDriver 156.0" in result.stderr
    assert calls.read_text().splitlines() == [
        "update -qq", "install -y -qq chromium chromium-driver"]
