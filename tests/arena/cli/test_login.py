"""`arena login` checks the token with its server before storing it (WhoAmI) and makes
that server the default of later commands (issue 28, point 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.client import default_server
from arena.cli.credentials import credentials_path, default_server_path, find_credentials
from arena.core.defaults import DEFAULT_SERVER
from arena.server.app import RunningServer
from tests.helpers.ports import free_port
from tests.helpers.servers import ServerFactory


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean user: config dir under tmp_path, no $ARENA_TOKEN or $ARENA_SERVER."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    """Served from a folder of its own: the test keeps its config files in tmp_path."""
    return serve(database=tmp_path / "srv" / "arena.db")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_admin_token_is_checked_stored_and_its_server_made_the_default(
        home: Path, server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert default_server() == DEFAULT_SERVER
    code, out, err = run(capsys, "login", "--server", server.address,
                         "--token-file", str(server.token_path))
    assert code == 0, err
    assert "the server says it is the admin's" in out
    assert f"{server.address} is now the default server" in out
    assert find_credentials(server.address, None, None).token == server.token
    assert default_server_path().read_text() == f"{server.address}\n"
    assert default_server() == server.address
    # A later command needs neither --server nor a token.
    code, out, err = run(capsys, "authors", "add", "ann")
    assert code == 0, err


def test_an_authors_token_is_named_as_the_authors(
        home: Path, server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "authors", "add", "ann", "--server", server.address,
                       "--token-file", str(server.token_path), "--json")
    assert code == 0
    token = home / "ann.token"
    token.write_text(json.loads(out)["token"])
    code, out, err = run(capsys, "login", "--server", server.address, "--token-file",
                         str(token))
    assert code == 0, err
    assert "the server says it is author ann's" in out


def test_a_wrong_token_is_refused_and_nothing_is_stored(
        home: Path, server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = home / "wrong.txt"
    wrong.write_text("not-the-token")
    code, _, err = run(capsys, "login", "--server", server.address, "--token-file",
                         str(wrong))
    assert code == 2
    assert f"the server at {server.address} refused the token: wrong admin token" in err
    assert "nothing stored" in err
    assert not credentials_path().exists() and not default_server_path().exists()


def test_an_unreachable_server_stores_nothing_unless_told(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = f"localhost:{free_port()}"
    token = home / "t.txt"
    token.write_text("some-token")
    code, _, err = run(capsys, "login", "--server", nowhere, "--token-file", str(token))
    assert code == 1
    assert f"cannot check the token with the arena server at {nowhere}" in err
    assert "nothing stored (--no-check stores it without asking the server)" in err
    assert not credentials_path().exists()
    code, out, _ = run(capsys, "login", "--server", nowhere, "--token-file", str(token),
                       "--no-check")
    assert code == 0 and "not checked (--no-check)" in out
    assert find_credentials(nowhere, None, None).token == "some-token"
    assert default_server() == nowhere


def test_the_environment_and_the_option_still_win_over_the_stored_default(
        home: Path, server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "login", "--server", server.address, "--token-file",
               str(server.token_path))[0] == 0
    monkeypatch.setenv("ARENA_SERVER", "elsewhere:1")
    assert default_server() == "elsewhere:1"
    monkeypatch.delenv("ARENA_SERVER")
    nowhere = f"localhost:{free_port()}"
    code, _, err = run(capsys, "bots", "list", "--server", nowhere)
    assert code == 1 and f"cannot reach the arena server at {nowhere}" in err
