"""arena/scripts/ensure-node.sh: a no-op when node and npm are there, an apt-get
install as root on Debian otherwise, and a specific non-zero failure where it cannot
install them (never a silent skip: the js-greedy tests need node)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "arena" / "scripts" / "ensure-node.sh"


def fake_tools(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """A PATH holding only the named tools (shell scripts with the given bodies) and
    the few real ones the script itself uses."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    for name in ("bash", "sed", "chmod"):
        real = shutil.which(name)
        if real and not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(real)
    return {**os.environ, "PATH": str(bin_dir)}


def run(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True,
                          env=env, timeout=60)


def test_nothing_to_do_when_node_and_npm_are_installed() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are not installed: run `make setup`")
    result = run()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_a_too_old_node_fails_with_a_reason(tmp_path: Path) -> None:
    result = run(fake_tools(tmp_path, node="echo v16.20.0", npm="echo 8.0.0", id="echo 0"))
    assert result.returncode == 1
    assert "v16.20.0 is older than v18" in result.stderr


def test_non_root_without_node_fails_with_a_reason(tmp_path: Path) -> None:
    result = run(fake_tools(tmp_path, id="echo 1000"))
    assert result.returncode == 1
    assert "not root" in result.stderr and "apt-get install nodejs npm" in result.stderr


def test_root_on_debian_installs_nodejs_and_npm(tmp_path: Path) -> None:
    if not Path("/etc/debian_version").is_file():
        pytest.skip("the apt-get path is for Debian-like systems")
    bin_dir = tmp_path / "bin"
    calls = tmp_path / "apt-calls"
    # The fake apt-get records its arguments and "installs" node v20 and npm.
    apt = (f'echo "$@" >> {calls}\n'
           f'if [ "$1" = install ]; then\n'
           f'  printf "#!/bin/sh\\necho v20.11.1\\n" > {bin_dir}/node\n'
           f'  printf "#!/bin/sh\\necho 10.2.4\\n" > {bin_dir}/npm\n'
           f'  chmod +x {bin_dir}/node {bin_dir}/npm\n'
           f'fi')
    result = run(fake_tools(tmp_path, id="echo 0", **{"apt-get": apt}))
    assert result.returncode == 0, result.stderr
    assert "installed node v20.11.1, npm 10.2.4" in result.stderr
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq nodejs npm"]
