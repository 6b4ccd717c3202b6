"""Where the client finds its token: --token, --token-file, $ARENA_TOKEN, then the
credentials file that `arena login` writes (mode 0600; a file others may read is
refused), each named in authentication errors."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.credentials import credentials_path, find_credentials
from arena.server.app import RunningServer
from tests.helpers.servers import ServerFactory

SERVER = "arena.example:50551"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean user: config dir under tmp_path, no $ARENA_TOKEN, no .arena/ here."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def login(capsys: pytest.CaptureFixture[str], server: str, token_file: Path) -> None:
    # Unchecked: these servers are made up, or the token wrong on purpose
    # (tests/arena/cli/test_login.py has the check).
    assert main(["login", "--server", server, "--token-file", str(token_file),
                 "--no-check"]) == 0
    capsys.readouterr()


def test_each_source_wins_over_the_ones_after_it(
        home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stored = home / "stored.txt"
    stored.write_text("from-login\n")
    login(capsys, SERVER, stored)
    path = home / "config" / "hollywood-arena" / "credentials"
    assert credentials_path() == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert find_credentials(SERVER, None, None).token == "from-login"
    assert find_credentials("other:1", None, None).token is None  # per server
    monkeypatch.setenv("ARENA_TOKEN", "from-env")
    assert find_credentials(SERVER, None, None).token == "from-env"
    token_file = home / "t.txt"
    token_file.write_text("from-file\n")
    assert find_credentials(SERVER, None, token_file).token == "from-file"
    assert find_credentials(SERVER, "from-option", token_file).token == "from-option"
    assert [find_credentials(SERVER, *args).source.split()[0] for args in (
        ("from-option", token_file), (None, token_file))] == ["--token", "--token-file"]
    monkeypatch.delenv("ARENA_TOKEN")
    assert find_credentials(SERVER, None, None).source == (
        f"the credentials file {path} (entry [{SERVER}])")


def test_login_keeps_other_servers_entries(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = home / "a.txt", home / "b.txt"
    first.write_text("token-a")
    second.write_text("token-b")
    login(capsys, "one:1", first)
    login(capsys, "two:2", second)
    assert find_credentials("one:1", None, None).token == "token-a"
    assert find_credentials("two:2", None, None).token == "token-b"


def test_a_credentials_file_others_can_read_is_refused(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stored = home / "stored.txt"
    stored.write_text("secret")
    login(capsys, SERVER, stored)
    path = credentials_path()
    path.chmod(0o644)
    code = main(["bots", "list", "--server", "localhost:1"])
    assert code == 1  # a read needs no token: only the server is missing
    assert "cannot reach the arena server at localhost:1" in capsys.readouterr().err
    code = main(["authors", "list", "--server", SERVER])
    err = capsys.readouterr().err
    assert code == 2
    assert f"the credentials file {path} may be read by others (mode 0644)" in err
    assert f"chmod 600 {path}" in err


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    """Served from a folder of its own: the test keeps its config files in tmp_path."""
    return serve(database=tmp_path / "srv" / "arena.db")


def test_an_authentication_error_names_the_source_and_the_next_step(
        home: Path, server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    wrong = home / "wrong.txt"
    wrong.write_text("not-the-token")
    login(capsys, server.address, wrong)
    code = main(["authors", "list", "--server", server.address])
    err = capsys.readouterr().err
    assert code == 2 and "wrong admin token (UNAUTHENTICATED)" in err
    assert f"token used: the credentials file {credentials_path()}" in err
    assert f"next: store a valid token with `arena login --server {server.address}" in err
    monkeypatch.setenv("ARENA_TOKEN", "nobody.secret")
    code = main(["--server", server.address, "authors", "list"])  # options before the command
    err = capsys.readouterr().err
    assert code == 2 and "the token names no known author" in err
    assert "token used: $ARENA_TOKEN" in err and "next: set ARENA_TOKEN to a valid token" in err
    login(capsys, server.address, server.token_path)
    monkeypatch.delenv("ARENA_TOKEN")
    assert main(["authors", "list", "--server", server.address]) == 0


def test_an_admin_token_never_starts_with_a_dash_that_would_read_as_an_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli.app import build_parser
    from arena.server import tokens

    # token_urlsafe's alphabet has "-": one token in 64 began with it, and then
    # `--token TOKEN` failed with "expected one argument" (seen in CI-like runs).
    monkeypatch.setattr(tokens.secrets, "token_urlsafe", lambda size: "-Xy_z")
    token = tokens.ensure_admin_token(tmp_path / "admin.token")
    assert token == "admin_-Xy_z"
    args = build_parser().parse_args(["season", "list", "--token", token])
    assert args.token == token
    assert tokens.ensure_admin_token(tmp_path / "admin.token") == token  # read back
