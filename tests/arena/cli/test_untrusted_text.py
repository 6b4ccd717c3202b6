"""Text from operators, bots and their authors is untrusted (issue 18 point 4,
issue 10 point 2): the nastiest strings go in through every write path, and
every read command of the CLI (tables, --json, the live view) still works and
shows them neutralised, never as markup or terminal control."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.cli.app import main
from arena.core.faults import BotFault, FaultKind
from arena.core.text import first_forbidden, neutralise, quote, safe_text
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder

SAMPLES = REPO_ROOT / "sample_bots"
HIDDEN = ("\x1b", "\x00", "\u202e", "\u2066", "\x07", "\r", "\u200b", "\x85", "\u2028")
NASTY = "[/][bold red]x[link=file:///etc]y \x1b[2J\x1b]0;title\x07 \u202eevil\u202c \x00 \r"


def test_neutralise_escapes_every_hidden_character_and_keeps_the_rest() -> None:
    assert neutralise("a\x1b[31mb\u202ec\x00d") == "a\\x1b[31mb\\u202ec\\x00d"
    assert neutralise("名前 😀 [/] é") == "名前 😀 [/] é"
    assert neutralise("line 1\nline\t2\r") == "line 1\\x0aline\\x092\\x0d"
    assert neutralise("line 1\nline\t2\r", multiline=True) == "line 1\nline\t2\\x0d"
    assert neutralise("\ud800") == "\\ud800"  # a lone surrogate cannot even be encoded
    for char in HIDDEN:
        assert char not in neutralise(f"x{char}y")


def test_bounds_and_quotes() -> None:
    assert safe_text("ab" * 10, 5) == "ababa [... 15 characters cut]"
    assert safe_text("0123456789", 4, keep="tail") == "[... 6 characters cut] 6789"
    assert quote("\x1b" * 300, limit=8) == '"\\x1b\\x1b [... 1192 characters cut]"'
    assert first_forbidden("ok\u2066") == (
        "LEFT-TO-RIGHT ISOLATE (\\u2066) at position 2")
    assert first_forbidden("ok\nfine", multiline=True) is None


def test_a_fault_keeps_a_bounded_neutral_message_and_tail() -> None:
    fault = BotFault(FaultKind.MALFORMED, "card '\x1b[2J" + "x" * 100_000 + "'",
                     stderr_tail="first\n" + "\u202e" * 50_000 + "\nlast words\n")
    assert fault.message.startswith("card '\\x1b[2Jxxx") and len(fault.message) < 2100
    assert fault.stderr_tail.endswith("\\u202e\nlast words\n")
    assert "\u202e" not in fault.stderr_tail and len(fault.stderr_tail) < 17_000


def cli(capsys: pytest.CaptureFixture[str], server: RunningServer,
        *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--server", server.address, "--token-file", str(server.token_path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def nasty_bot(root: Path, author: str, description: str) -> Path:
    folder = make_bot_folder(root, "nasty-random", code="")
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(
        manifest.replace('language = "python"\n', 'language = "python"\n'
                         f'author = {json.dumps(author)}\n'
                         f'description = {json.dumps(description)}\n'))
    return folder


def store_nasty_texts(server: RunningServer, capsys: pytest.CaptureFixture[str],
                      tmp_path: Path) -> int:
    """Every write path, with the worst text each accepts; returns a season id."""
    # An upload with hidden characters in its display texts is refused...
    code, _, err = cli(capsys, server, "bots", "register",
                       str(nasty_bot(tmp_path / "refused", NASTY, "")))
    assert code == 2 and "author contains" in err
    # ...so they are stored raw below, as an older database may hold them.
    assert cli(capsys, server, "bots", "register", str(SAMPLES / "greedy"),
               str(nasty_bot(tmp_path, "[bold]markup[/bold]", "plain")))[0] == 0
    # Identifiers with hidden characters are refused, not stored.
    for bad in ("1.0\u202e", "1\x00", "1 0"):
        folder = make_bot_folder(tmp_path / "bad", "lookalike", version="1")
        toml = (folder / "bot.toml").read_text().replace('version = "1"',
                                                         f"version = {json.dumps(bad)}")
        (folder / "bot.toml").write_text(toml)
        code, _, err = cli(capsys, server, "bots", "register", str(folder))
        assert code == 2 and "version" in err and "\u202e" not in err and "\x00" not in err
    # Operator text: markup is accepted and kept as text, hidden characters refused.
    code, out, _ = cli(capsys, server, "season", "create", "--bots", "greedy",
                       "nasty-random", "--name", "[/] [bold]season[/bold] [red", "--json",
                       "--max-hands", "3")
    assert code == 0, out
    season_id = int(json.loads(out)["id"])
    assert server.manager.wait(season_id, timeout=60)
    for argv in (["--name", "a\x1b[2Jb"], ["--set", "gin_bonus\x1b=1"],
                 ["--set", "gin_bonus=\u202e[/]"], ["--name", "n" * 5000]):
        code, out, err = cli(capsys, server, "season", "create", "--bots", "greedy",
                             "nasty-random", "--hold", *argv)
        assert code == 2, (argv, out, err)
        assert "\x1b" not in err and "\u202e" not in err and len(err) < 1500, err
    # Storage itself, for texts other writers may bring (an exception's text, an
    # older database): through its API and raw into the file.
    server.storage.set_season_status(season_id, "finished", NASTY * 10)
    with sqlite3.connect(server.storage.path) as db:
        fault = {"kind": "malformed", "message": NASTY, "seat": 1, "hand_number": 1,
                 "decision_number": 2, "stderr_tail": NASTY + "\n" + NASTY,
                 "other_seat_fault": None}
        db.execute("UPDATE series_results SET fault_json=? WHERE series_id=?",
                   (json.dumps(fault), f"{season_id}-0"))
        db.execute("UPDATE seasons SET name=? WHERE id=?", (NASTY, season_id))
        db.execute("UPDATE bots SET author=? WHERE name='greedy'", (NASTY,))
        db.execute("UPDATE bots SET author=?, description=? WHERE name='nasty-random'",
                   (NASTY, NASTY * 3))
    return season_id


def assert_safe(text: str) -> None:
    for char in HIDDEN:
        assert char not in text.replace("\r\n", "\n"), (repr(char), text[:2000])


def test_every_read_command_survives_anything_stored(
    server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    season_id = store_nasty_texts(server, capsys, tmp_path)
    series_ids = [f"{season_id}-{index}" for index in range(2)]
    reads = [["bots", "list"], ["season", "list"], ["season", "show", str(season_id)],
             ["standings", "--season", str(season_id)],
             ["series", "list", "--season", str(season_id)], ["watch", "--season", str(season_id)],
             *(["series", "show", series_id] for series_id in series_ids)]
    for argv in reads:
        code, out, err = cli(capsys, server, *argv)
        assert code == 0, (argv, err)
        assert_safe(out)
        assert_safe(err)
        code, out, err = cli(capsys, server, *argv, "--json")
        assert code == 0, (argv, err)
        for line in out.splitlines() if argv[0] == "watch" else [out]:
            json.loads(line)
    code, out, _ = cli(capsys, server, "season", "list")
    assert "[/][bold red]x[link=file:///etc]y \\x1b[2J" in out and "\\u202eevil" in out
    code, out, _ = cli(capsys, server, "series", "show", f"{season_id}-0")
    assert "fault: malformed by seat 1" in out and "[/][bold red]x" in out
    code, out, _ = cli(capsys, server, "bots", "list")
    # The author's cell may wrap at its space ("[/][bold" / "red]x..."): still literal.
    assert "nasty-random@1.0.0" in out and "[/][bold" in out and "red]x[link=file" in out
    code, out, _ = cli(capsys, server, "season", "show", str(season_id), "--json")
    assert json.loads(out)["season"]["name"] == NASTY  # --json gives the data as stored
