"""Small bumps of an author's path (issue 28, point 6): `bots list` has a status
column; a closed output pipe ends any command quietly with exit 0; `--json` output
carries its next-page cursor; `make run ARGS=...` passes options to `arena demo`."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.parser import build_parser
from arena.server.app import RunningServer
from tests.helpers.lifecycle_helpers import mark_deactivated
from tests.helpers.servers import ServerFactory, with_bots

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return with_bots(serve(), tmp_path)


def cli(server: RunningServer, *argv: str) -> int:
    return main([*argv, "--server", server.address, "--token", server.token])


def table_rows(out: str) -> dict[str, list[str]]:
    """The rows of a rich table printed with plain ASCII-less box lines, by first cell."""
    rows = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in line.strip("│┃ ").split("│")]
        if len(cells) > 1 and cells[0]:
            rows[cells[0]] = cells
    return rows


def test_bots_list_shows_the_status_in_its_own_column(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    mark_deactivated(server.storage, "random@1.0.0", "5 forfeits in a row")
    assert cli(server, "bots", "list") == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "language" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")] == [
        "id", "status", "language", "author", "owner", "registered", "content"]
    rows = table_rows(out)
    assert rows["greedy@1.0.0"][1:2] == ["active"]
    assert rows["random@1.0.0"][1:2] == ["deactivated"]
    assert rows["random@1.0.0"][4] == "admin"  # the owner alone, nothing squeezed in
    assert "(deactivated)" not in out


def test_series_list_json_carries_the_next_page_cursor(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(server, "season", "create", "--bots", "greedy", "random",
               "--series-per-pair", "3", "--hold", "--json") == 0
    capsys.readouterr()
    assert cli(server, "series", "list", "--json", "--page-size", "2") == 0
    first = capsys.readouterr()
    page = json.loads(first.out)
    assert [item["series_id"] for item in page["series"]] == ["1-0", "1-1"]
    assert page["next_page_token"]
    assert "next page:" in first.err  # people still get the hint
    assert cli(server, "series", "list", "--json", "--page-size", "2",
               "--page", page["next_page_token"]) == 0
    last = json.loads(capsys.readouterr().out)
    assert [item["series_id"] for item in last["series"]] == ["1-2"]
    assert last["next_page_token"] == ""


def test_standings_json_carries_the_next_page_cursor(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(server, "season", "create", "--bots", "greedy", "random", "--hold",
               "--json") == 0
    capsys.readouterr()
    assert cli(server, "standings", "--json", "--page-size", "1") == 0
    page = json.loads(capsys.readouterr().out)
    assert len(page["rows"]) == 1 and page["next_page_token"]
    assert cli(server, "standings", "--json", "--page-size", "1",
               "--page", page["next_page_token"]) == 0
    last = json.loads(capsys.readouterr().out)
    assert len(last["rows"]) == 1 and last["next_page_token"] == ""
    assert last["rows"][0]["bot_id"] != page["rows"][0]["bot_id"]


def run_into_closed_pipe(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """``main(argv)`` with stdout a pipe whose reader is gone, as under `| head -1`
    once head has its line. A SystemExit would escape: the command must return."""
    reader, writer = os.pipe()
    os.close(reader)
    saved = os.dup(1)
    closed = open(writer, "w", buffering=1)  # noqa: SIM115 (closed below)
    try:
        monkeypatch.setattr(sys, "stdout", closed)
        os.dup2(writer, 1)
        return main(argv)
    finally:
        monkeypatch.undo()
        os.dup2(saved, 1)
        os.close(saved)
        with contextlib.suppress(BrokenPipeError):  # when main() left bytes unflushed
            closed.close()


@pytest.mark.parametrize("command", [
    ["season", "show", "1"], ["season", "show", "1", "--json"], ["bots", "list"],
    ["standings", "--json"], ["season", "list"]])
def test_a_closed_output_pipe_ends_every_command_quietly_with_success(
        server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    assert cli(server, "season", "create", "--bots", "greedy", "random", "--hold",
               "--json") == 0
    capsys.readouterr()
    code = run_into_closed_pipe([*command, "--server", server.address], monkeypatch)
    assert code == 0
    assert capsys.readouterr().err == ""


def test_season_show_piped_into_a_reader_that_has_gone_exits_0_and_says_nothing(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    # `arena season show 1 | head -1`, with head gone before the first write.
    assert cli(server, "season", "create", "--bots", "greedy", "random", "--hold",
               "--json") == 0
    reader, writer = os.pipe()
    os.close(reader)
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "arena.cli", "season", "show", "1",
             "--server", server.address], stdout=writer, stderr=subprocess.PIPE,
            cwd=ROOT, timeout=120, check=False)
    finally:
        os.close(writer)
    assert (completed.returncode, completed.stderr) == (0, b"")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_run_passes_its_args_to_arena_demo() -> None:
    # Under `make test` this make is a sub-make: without --no-print-directory it would
    # end with "make[1]: Leaving directory ...", and MAKEFLAGS would carry the parent's.
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    completed = subprocess.run(
        ["make", "--no-print-directory", "-n", "run",
         "ARGS=--http 127.0.0.1:8090 --db '/tmp/a demo.db'"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120, check=True)
    command = completed.stdout.strip().splitlines()[-1]
    words = shlex.split(command)
    assert words[0].endswith("/arena") and words[1] == "demo"
    args = build_parser().parse_args(words[1:])
    assert (args.http, args.db) == (("127.0.0.1", 8090), Path("/tmp/a demo.db"))
