"""What operators see (issue 10, point 7): an unknown bot name suggests the closest
registered one, and a closed output pipe ends a command quietly."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.core.text import unknown_name
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.servers import ServerFactory, with_bots


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return with_bots(serve(), tmp_path)


def test_the_message_names_the_closest_known_name() -> None:
    assert unknown_name("bot", "gredy", ["greedy", "random"], "arena bots list") == (
        "unknown bot 'gredy'; did you mean 'greedy'? (see `arena bots list`)")
    assert unknown_name("bot", "zzz", ["greedy", "random"], "arena bots list") == (
        "unknown bot 'zzz' (see `arena bots list`)")


def test_a_mistyped_bot_gets_a_suggestion_from_the_server(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["season", "create", "--server", server.address, "--token", server.token,
                 "--bots", "gredy", "random", "--hold"])
    assert code == 2
    assert "unknown bot 'gredy'; did you mean 'greedy'?" in capsys.readouterr().err
    code = main(["season", "create", "--server", server.address, "--token", server.token,
                 "--bots", "greedy@1.0.1", "random", "--hold"])
    assert code == 2
    assert "did you mean 'greedy@1.0.0'?" in capsys.readouterr().err


def test_a_mistyped_bot_gets_a_suggestion_from_season_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_bot_folder(tmp_path / "bots", "greedy")
    code = main(["season", "run", "--db", str(tmp_path / "a.db"), "--no-http",
                 "--bots", str(folder), "gredy"])
    assert code == 2
    assert "did you mean 'greedy'?" in capsys.readouterr().err


@pytest.mark.parametrize("as_json", [True, False])
def test_a_closed_output_pipe_ends_the_command_quietly(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    as_json: bool,
) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: every write raises BrokenPipeError
    saved = os.dup(1)
    closed = open(writer, "w", buffering=1)  # noqa: SIM115 (closed below)
    argv = ["bots", "list", "--server", server.address] + (["--json"] if as_json else [])
    try:
        monkeypatch.setattr(sys, "stdout", closed)
        code = main(argv)  # returns: no SystemExit from rich's console
    finally:
        monkeypatch.undo()
        os.dup2(saved, 1)
        os.close(saved)
        closed.close()
    # The reader took all it wanted (every command: tests/arena/cli/test_author_path.py).
    assert code == 0
    assert "Traceback" not in capsys.readouterr().err
