"""The compiled sample bot, sample_bots/cpp-greedy: its toolchain installs from Debian
(arena/scripts/ensure-cpp-toolchain.sh), build.sh compiles it and bundles its shared
libraries, the bundle fits the upload limits, and it plays the Python greedy bot
without a fault in the process sandbox and in Docker.

Slow (the first build compiles gRPC's generated code: about a minute).
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match.botclient import BotClient
from arena.sandbox.process import ProcessSandbox
from tests.arena.sandbox.test_bot_identity_env import handshake_of_process
from tests.helpers.bot_processes import LocalBot, run_bot
from tests.helpers.compiled_bots import (
    LIMITS,
    build_sample_bot,
    check_clean,
    check_notes,
    play_pair,
)
from tests.helpers.polling import wait_until
from tests.helpers.ports import accepts, free_port
from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS, arena_leftovers

pytestmark = pytest.mark.slow

CPP = SAMPLE_BOTS / "cpp-greedy"
# The upload limits of a bot bundle (issue 11), written out here.
MAX_COMPRESSED = 20 * 1024 * 1024
MAX_UNPACKED = 100 * 1024 * 1024
MAX_ENTRIES = 5000
# What the bundle may take from the base image: the C library and its loader.
FROM_THE_BASE_IMAGE = ("linux-vdso.so", "libc.so", "libm.so", "libpthread.so", "libdl.so",
                       "librt.so", "libresolv.so", "ld-linux")


@pytest.fixture(scope="module")
def cpp_greedy() -> Path:
    """The bot built: the toolchain installed if missing, then build.sh."""
    return build_sample_bot(CPP, "ensure-cpp-toolchain.sh", 1200)


def bundle_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if ".git" not in path.parts:
            yield path


def test_the_bundle_fits_the_upload_limits_and_has_no_links(cpp_greedy: Path) -> None:
    entries = list(bundle_files(cpp_greedy))
    assert [path for path in entries if path.is_symlink()] == []
    assert all(path.is_file() or path.is_dir() for path in entries)
    assert len(entries) <= MAX_ENTRIES
    unpacked = sum(path.stat().st_size for path in entries if path.is_file())
    assert unpacked <= MAX_UNPACKED
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for path in entries:
            tar.add(path, arcname=str(path.relative_to(cpp_greedy)), recursive=False)
    assert len(packed.getvalue()) <= MAX_COMPRESSED
    # The build leaves sources and the bundle only (intermediate files go elsewhere).
    assert {path.relative_to(cpp_greedy).parts[0] for path in entries} <= {
        ".gitignore", "Dockerfile", "README.md", "bot.toml", "build.sh", "src", "bin", "lib"}


def test_every_library_outside_the_c_library_comes_from_the_bundle(cpp_greedy: Path) -> None:
    listed = subprocess.run(["ldd", str(cpp_greedy / "bin" / "cpp-greedy")],
                            capture_output=True, text=True, check=True).stdout
    lines = [line.strip() for line in listed.splitlines() if line.strip()]
    assert any(line.startswith("libgrpc++.so") for line in lines), listed
    for line in lines:
        assert "not found" not in line, line
        soname = Path(line.split()[0]).name  # "libfoo.so.1 => ..." or "/lib64/ld-linux..."
        if not soname.startswith(FROM_THE_BASE_IMAGE):
            assert f"{cpp_greedy}/bin/../lib/" in line, line


def test_the_handshake_says_what_bot_toml_says(cpp_greedy: Path) -> None:
    bot = LocalBot("cpp-greedy", cpp_greedy, ("bin/cpp-greedy",), "c++")
    with run_bot(bot) as running:
        client = BotClient.connect(running.target, startup_timeout=LIMITS.startup_s)
        try:
            info = client.handshake(timeout=10)
        finally:
            client.close()
    assert (info.name, info.version, info.protocol_version) == ("cpp-greedy", "1.0.0", 1)


def test_the_handshake_says_what_the_arena_gives_it(cpp_greedy: Path, tmp_path: Path) -> None:
    # Started outside its folder, with the arena's variables: they win over bot.toml.
    given = {"HOLLYWOOD_BOT_NAME": "renamed", "HOLLYWOOD_BOT_VERSION": "7.8.9"}
    assert handshake_of_process([str(cpp_greedy / "bin" / "cpp-greedy")], tmp_path, given,
                                tmp_path / "bot.sock") == ("renamed", "7.8.9")


def test_plays_greedy_in_the_process_sandbox(cpp_greedy: Path) -> None:
    outcomes = play_pair(ProcessSandbox(), cpp_greedy, "cpp-process")
    check_clean(outcomes)
    check_notes(outcomes)
    assert arena_leftovers() == []


@pytest.mark.docker
def test_plays_greedy_in_docker(cpp_greedy: Path, docker_sandbox: Any, docker_client: Any
                                ) -> None:
    check_clean(play_pair(docker_sandbox, cpp_greedy, "cpp-docker"))
    assert arena_leftovers(docker_client) == []


def test_the_toolchain_script_does_nothing_when_the_tools_are_there(cpp_greedy: Path) -> None:
    done = subprocess.run(["bash", str(REPO_ROOT / "arena/scripts/ensure-cpp-toolchain.sh")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""


def test_arena_play_against_the_binary_started_by_hand(cpp_greedy: Path, tmp_path: Path) -> None:
    """As an author would debug it: the binary started in a terminal on a TCP port
    (its first argument), the arena only connecting to it."""
    port = free_port()
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        process = subprocess.Popen([str(cpp_greedy / "bin" / "cpp-greedy"), f"localhost:{port}"],
                                   cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_until(lambda: accepts(port) or process.poll() is not None,
                   what="cpp-greedy to listen")
        played = subprocess.run(
            [sys.executable, "-m", "arena.cli", "play", f"tcp:localhost:{port}",
             str(SAMPLE_BOTS / "greedy"), "--sandbox", "process", "--max-hands", "3"],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
        assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
        assert "─ hand 1 ─" in played.stdout and "0 forfeited by a fault" in played.stdout
        assert process.poll() is None  # the author's process: not the arena's to stop
    finally:
        process.terminate()
        process.wait(timeout=30)
    # It found its bot.toml beside bin/ although started elsewhere, and said so.
    assert "serving on localhost:" in (tmp_path / "stderr.txt").read_text()
