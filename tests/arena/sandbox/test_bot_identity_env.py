"""The arena gives a bot the name and version it runs it as (issue 28, point 6):
every sandbox backend sets HOLLYWOOD_BOT_NAME and HOLLYWOOD_BOT_VERSION, and the
Python SDK answers the handshake with them (unless the bot's class hard-codes its
own), so a bot need not repeat its bot.toml.

The bot references below carry a name and version unlike the folder's bot.toml
(greedy 1.0.0; its class sets neither): only the arena's variables can carry them
into the handshake."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path
from typing import Any

import hollywood_sdk as hs
import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.match.botclient import BotClient
from arena.match.connection import connect_running
from arena.sandbox.base import Sandbox
from arena.sandbox.inprocess import InProcessSandbox
from arena.sandbox.process import ProcessSandbox
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import SAMPLE_BOTS

LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=5.0)


def renamed_greedy() -> BotRef:
    return dataclasses.replace(BotRef.from_folder(SAMPLE_BOTS / "greedy"),
                               name="renamed", version="7.8.9")


def handshake_in(sandbox: Sandbox, bot: BotRef) -> tuple[str, str]:
    running = sandbox.start(bot, series_id="identity-env", seat=0)
    try:
        running.wait_ready(LIMITS.startup_s)
        client = connect_running(running, LIMITS.startup_s)
        try:
            info = client.handshake(timeout=10)
        finally:
            client.close()
    finally:
        running.stop()
    return info.name, info.version


def test_the_process_sandbox_gives_the_bot_its_name_and_version() -> None:
    assert handshake_in(ProcessSandbox(), renamed_greedy()) == ("renamed", "7.8.9")


def test_the_inprocess_sandbox_gives_the_bot_its_name_and_version() -> None:
    assert handshake_in(InProcessSandbox(), renamed_greedy()) == ("renamed", "7.8.9")


@pytest.mark.docker
def test_the_docker_sandbox_gives_the_bot_its_name_and_version(docker_sandbox: Any) -> None:
    # The real name and version (an image per version), checked in the container's
    # environment as well as in the handshake.
    bot = BotRef.from_folder(SAMPLE_BOTS / "greedy")
    running = docker_sandbox.start(bot, series_id="identity-env", seat=0)
    try:
        environment = running._container.attrs["Config"]["Env"]
    finally:
        running.stop()
    assert {"HOLLYWOOD_BOT_NAME=greedy", "HOLLYWOOD_BOT_VERSION=1.0.0"} <= set(environment)


class Named(hs.Bot):
    name = "classname"
    version = "0.1.0"


def test_the_sdk_takes_the_arenas_variables_over_bot_toml(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "tomlname"\nversion = "1.2.3"\nauthor = "Ann"\n')
    given = {"HOLLYWOOD_BOT_NAME": "envname", "HOLLYWOOD_BOT_VERSION": "3.2.1"}
    assert hs.server.identity_of(hs.Bot(), tmp_path, given) == hs.Identity(
        "envname", "3.2.1", "Ann")
    # What the author hard-coded still wins (and validation rejects it if stale).
    assert hs.server.identity_of(Named(), tmp_path, given) == hs.Identity(
        "classname", "0.1.0", "Ann")


def test_without_the_variables_the_sdk_falls_back_as_before(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "tomlname"\nversion = "1.2.3"\n')
    assert hs.server.identity_of(Named(), tmp_path, {}) == hs.Identity("classname", "0.1.0")
    assert hs.server.identity_of(hs.Bot(), tmp_path, {"HOLLYWOOD_BOT_NAME": " "}) == \
        hs.Identity("tomlname", "1.2.3")


def handshake_of_process(argv: list[str], cwd: Path, environment: dict[str, str],
                         socket_path: Path) -> tuple[str, str]:
    """Start a bot as the arena would (``HOLLYWOOD_BOT_SOCKET`` plus ``environment``)
    and return what its handshake says."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOLLYWOOD_BOT_SOCKET": str(socket_path), **environment}
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: socket_path.exists() or process.poll() is not None,
                   what=f"{argv[0]} to listen")
        client = BotClient.connect(f"unix:{socket_path}", startup_timeout=LIMITS.startup_s)
        try:
            info = client.handshake(timeout=10)
        finally:
            client.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return info.name, info.version


GIVEN = {"HOLLYWOOD_BOT_NAME": "renamed", "HOLLYWOOD_BOT_VERSION": "7.8.9"}


def test_js_greedy_answers_with_the_arenas_variables(tmp_path: Path) -> None:
    folder = SAMPLE_BOTS / "js-greedy"
    node_path = {"NODE_PATH": str(folder / "node_modules")}
    assert handshake_of_process(["node", "bot.js"], folder, {**node_path, **GIVEN},
                                tmp_path / "js.sock") == ("renamed", "7.8.9")
    # Without them (run by hand), its bot.toml.
    assert handshake_of_process(["node", "bot.js"], folder, node_path,
                                tmp_path / "js2.sock") == ("js-greedy", "1.0.0")
