"""The bot SDK, ``hollywood-sdk``, installed into a bot image's build context.

A Python bot's image gets the SDK as an installed distribution, as ``pip install``
of its wheel (`make sdk`) would leave it: the ``hollywood_sdk`` package beside a
``hollywood_sdk-VERSION.dist-info`` whose metadata (name, version, Python and
dependency floors) comes from the SDK's own ``pyproject.toml``, so a bot can ask
``importlib.metadata.version("hollywood-sdk")`` and ``pip check`` knows what it needs.
It is written here rather than built with a build backend, which the arena's
runtime does not hold; ``tests/arena/sandbox/test_sdk_package.py`` checks that the
two agree.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import tomllib
from pathlib import Path
from typing import Final

SDK_ROOT: Final = Path(__file__).resolve().parents[2] / "sample_bots" / "sdk" / "python"
"""The SDK's sources and its ``pyproject.toml`` (a checkout's; an installed arena has
none, and stages no SDK)."""
SDK_MODULE: Final = "hollywood_sdk"
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc")


def install_sdk(site: Path, root: Path = SDK_ROOT) -> bool:
    """Put the SDK of ``root`` into ``site`` as an installed distribution; False (and
    nothing written) when ``root`` holds no SDK."""
    if not (root / SDK_MODULE).is_dir() or not (root / "pyproject.toml").is_file():
        return False
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    shutil.copytree(root / SDK_MODULE, site / SDK_MODULE, ignore=_IGNORED)
    info = site / f"{SDK_MODULE}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(_metadata(project))
    (info / "top_level.txt").write_text(f"{SDK_MODULE}\n")
    (info / "INSTALLER").write_text("hollywood-arena\n")
    files = sorted(p for p in (site / SDK_MODULE).rglob("*") if p.is_file())
    files += [info / "METADATA", info / "top_level.txt", info / "INSTALLER"]
    lines = [f"{p.relative_to(site).as_posix()},{_digest(p)},{p.stat().st_size}" for p in files]
    lines.append(f"{(info / 'RECORD').relative_to(site).as_posix()},,")
    (info / "RECORD").write_text("\n".join(lines) + "\n")
    return True


def _metadata(project: dict[str, object]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}", f"Summary: {project.get('description', '')}"]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    dependencies = project.get("dependencies", [])
    assert isinstance(dependencies, list)
    lines += [f"Requires-Dist: {requirement}" for requirement in dependencies]
    return "\n".join(lines) + "\n"


def _digest(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
