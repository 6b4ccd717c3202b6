"""`pip install .` gives a working `arena` command: into a fresh venv holding nothing but
requirements/runtime.lock (hashes checked), with the generated stubs and the
reference bot of vetting inside the arena's own package, run from a folder outside
the checkout."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900,
                            check=False)
    assert result.returncode == 0, (
        f"{command} failed:\n{result.stdout[-2000:]}{result.stderr[-3000:]}")
    return result


@pytest.mark.slow
def test_pip_install_dot_from_the_runtime_lock_gives_the_arena_command(tmp_path: Path) -> None:
    assert (REPO / "proto" / "gen" / "python" / "hollywood" / "arena" / "v1").is_dir(), (
        "run `make stubs` first: the wheel carries the generated stubs")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    python = str(env_dir / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", "--require-hashes", "--no-deps",
          "-r", str(REPO / "requirements" / "runtime.lock")], tmp_path)
    # Build isolation off: the build uses this (the dev venv's, locked) setuptools, and
    # writes its wheel elsewhere than the checkout's build/ of other runs.
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "-w", str(wheels), str(REPO)], tmp_path)
    [wheel] = wheels.glob("hollywood_arena-*.whl")
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], tmp_path)
    _run([python, "-m", "pip", "check"], tmp_path)

    helped = _run([str(env_dir / "bin" / "arena"), "--help"], tmp_path)
    assert "Hollywood Gin Arena" in helped.stdout
    for command in ("serve", "health", "backup", "worker"):
        assert command in helped.stdout
    # Everything is found in the venv, none of it in the checkout.
    where = _run([python, "-c",
                  "import arena, engine, hollywood.arena.v1.arena_pb2 as a, "
                  "hollywood.bot.v1.bot_pb2 as b; print(arena.__file__, engine.__file__, "
                  "a.__file__, b.__file__)"], tmp_path)
    places = where.stdout.split()
    assert len(places) == 4
    assert all(Path(place).is_relative_to(env_dir) for place in places), places
    # Vetting plays every new bot against the sample random bot: the wheel carries it.
    reference = _run([python, "-c", "from arena.match.validation import REFERENCE_BOT_FOLDER as f;"
                      "print(f); print(sorted(p.name for p in f.iterdir() if p.suffix == '.py' or "
                      "p.is_file()))"], tmp_path)
    folder, files = reference.stdout.splitlines()
    assert Path(folder).is_relative_to(env_dir)
    assert files == str(["Dockerfile", "bot.toml", "random_bot.py"])
