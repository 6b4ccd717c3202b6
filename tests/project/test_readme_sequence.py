"""The README's server sequence runs as written (issue 28, point 6): `arena serve`,
`arena bots register sample_bots/* path/to/my-bot`, then `arena season create ...
--watch` and the read commands, each exiting 0. Registration waits for every upload's
vetting, so the season is never refused with "is validating".

The commands are read from the README's code block, run by a shell (so `sample_bots/*`
expands as for a reader) in a folder laid out like a checkout (`.venv` and
`sample_bots` linked in, `path/to/my-bot` a bot of the reader's). Only where things
happen is added: the server's port, no website and the process sandbox for vetting
(`arena serve`), the process sandbox and a hand cap for the season (no Docker, a
bounded run); the clients find the server through $ARENA_SERVER and the admin token
in `.arena/`, as the README says."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.polling import wait_until
from tests.helpers.ports import accepts, free_port
from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS

pytestmark = pytest.mark.slow

README = REPO_ROOT / "README.md"
ANCHOR = "With a long-running server"
EXPECTED_START = [
    ".venv/bin/arena serve",
    ".venv/bin/arena bots register sample_bots/* path/to/my-bot",
    ".venv/bin/arena season create --bots greedy shark my-bot --watch",
]
WHERE = {
    "serve": "--no-http --vet-sandbox process",
    "season create": "--sandbox process --max-hands 15",
}


def readme_sequence() -> list[str]:
    """The commands of the first ``sh`` block after ``ANCHOR``, comments removed."""
    text = README.read_text()
    block = re.search(r"```sh\n(.*?)```", text[text.index(ANCHOR):], re.DOTALL)
    assert block is not None, f"no sh block after {ANCHOR!r} in the README"
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def test_the_readme_still_has_the_sequence() -> None:
    commands = readme_sequence()
    assert commands[:3] == EXPECTED_START
    assert all(command.startswith(".venv/bin/arena ") for command in commands)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder laid out as the README's reader has it."""
    (tmp_path / ".venv").symlink_to(REPO_ROOT / ".venv")
    (tmp_path / "sample_bots").symlink_to(SAMPLE_BOTS)
    mine = tmp_path / "path" / "to" / "my-bot"
    shutil.copytree(SAMPLE_BOTS / "greedy", mine,
                    ignore=shutil.ignore_patterns("__pycache__"))
    manifest = mine / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "greedy"', 'name = "my-bot"'))
    return tmp_path


@pytest.fixture
def environment(checkout: Path) -> dict[str, str]:
    port = free_port()
    return {**os.environ, "ARENA_SERVER": f"localhost:{port}",
            "XDG_CONFIG_HOME": str(checkout / "config"), "HOME": str(checkout),
            "COLUMNS": "160"}


@pytest.fixture
def served(checkout: Path, environment: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    [serve] = [command for command in readme_sequence() if command.split()[1] == "serve"]
    port = int(environment["ARENA_SERVER"].rsplit(":", 1)[1])
    line = f"{serve} --port {port} {WHERE['serve']}"
    with (checkout / "serve.log").open("wb") as log:
        process = subprocess.Popen(["bash", "-c", f"exec {line}"], cwd=checkout,
                                   env=environment, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: accepts(port) or process.poll() is not None,
                   what="arena serve to listen", bound_s=120)
        assert process.poll() is None, (checkout / "serve.log").read_text()
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_readme_server_sequence_runs_as_written(
        checkout: Path, environment: dict[str, str], served: subprocess.Popen[bytes]) -> None:
    outputs = {}
    for command in readme_sequence():
        words = command.split()
        if words[1] == "serve":
            continue
        extra = WHERE.get(" ".join(words[1:3]), "")
        done = subprocess.run(["bash", "-c", f"{command} {extra}"], cwd=checkout,
                              env=environment, capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
        assert "is validating" not in done.stdout + done.stderr
        outputs[" ".join(words[1:3])] = done.stdout
    registered = outputs["bots register"]
    # Every upload was followed to its verdict before the command returned.
    for name in ("greedy", "shark", "my-bot"):
        assert f"{name}@1.0.0: active" in registered, registered
    assert "finished" in outputs["season create"].lower(), outputs["season create"]
    assert "my-bot" in outputs["standings"]
