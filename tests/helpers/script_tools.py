"""Running the project's `arena/scripts/ensure-*.sh` against a made-up machine: a
PATH holding only fake tools (shell scripts with given bodies) and the few real ones
a script needs, and a fake `apt-get` that records its calls and "installs" tools."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "arena" / "scripts"


def fake_tools(tmp_path: Path, real: Iterable[str], **scripts: str) -> dict[str, str]:
    """The environment of a machine whose PATH (``tmp_path/bin``) holds only the named
    tools and links to the ``real`` ones."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    for name in ("bash", *real):
        found = shutil.which(name)
        if found and not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(found)
    return {**os.environ, "PATH": str(bin_dir)}


def recording_apt(tmp_path: Path, installs: Mapping[str, str]) -> str:
    """The body of a fake apt-get that appends its arguments to ``tmp_path/apt-calls``
    and, on ``install``, writes each of ``installs`` (tool name -> its version line)
    into ``tmp_path/bin``."""
    bin_dir = tmp_path / "bin"
    writes = "".join(f'  printf "#!/bin/sh\\necho {line}\\n" > {bin_dir}/{name}\n'
                     for name, line in installs.items())
    tools = " ".join(f"{bin_dir}/{name}" for name in installs)
    return (f'echo "$@" >> {tmp_path / "apt-calls"}\n'
            f'if [ "$1" = install ]; then\n{writes}  chmod +x {tools}\nfi')


def apt_calls(tmp_path: Path) -> list[str]:
    """The argument lines the fake apt-get was called with, in order."""
    return (tmp_path / "apt-calls").read_text().splitlines()


def run_script(name: str, env: Mapping[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    """Run ``arena/scripts/<name>`` with bash in ``env`` (the real one when None)."""
    return subprocess.run(["bash", str(SCRIPTS / name)], capture_output=True, text=True,
                          env=None if env is None else dict(env), timeout=60)
