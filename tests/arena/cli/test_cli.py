"""The `arena` command line: read commands with --json, mutating commands with the
token, `season run` end to end (embedded server, in-process runner), and bad
arguments giving a clear message and exit 2 (never a traceback)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli import main
from arena.cli.render import standings_table
from arena.core import arguments
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.server.app import RunningServer, start_server
from engine import Series
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder

SAMPLES = REPO_ROOT / "sample_bots"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def remote(server: RunningServer, *argv: str) -> list[str]:
    return [*argv, "--server", server.address, "--token-file", str(server.token_path)]


def test_register_list_create_and_read(server: RunningServer, capsys) -> None:
    code, out, _ = run(capsys, *remote(server, "bots", "register", str(SAMPLES / "random"),
                                       str(SAMPLES / "greedy"), "--json"))
    assert code == 0 and [r["bot"]["id"] for r in json.loads(out)] == [
        "random@1.0.0", "greedy@1.0.0"]
    code, out, _ = run(capsys, *remote(server, "bots", "list", "--json"))
    assert code == 0 and len(json.loads(out)) == 2
    code, out, _ = run(capsys, *remote(
        server, "season", "create", "--bots", "random", "greedy", "--series-per-pair", "2",
        "--max-hands", "20", "--set", "undercut_bonus=20", "--seed", "5", "--json"))
    assert code == 0
    season = json.loads(out)
    assert season["config"]["seed"] == 5 and season["series_total"] == 2
    assert server.manager.wait(int(season["id"]), timeout=60)
    code, out, _ = run(capsys, *remote(server, "standings", "--json"))
    standings = json.loads(out)
    assert code == 0 and standings["series_done"] == 2 and len(standings["rows"]) == 2
    code, out, _ = run(capsys, *remote(server, "standings"))
    assert code == 0 and "random@1.0.0" in out and "Head to head" in out
    code, out, _ = run(capsys, *remote(server, "season", "show", "--json"))
    assert code == 0 and json.loads(out)["season"]["status"] == "SEASON_STATUS_FINISHED"
    code, out, _ = run(capsys, *remote(server, "season", "list"))
    assert code == 0 and "finished" in out
    code, out, _ = run(capsys, *remote(server, "series", "show", f"{season['id']}-0"))
    assert code == 0 and "hand 1" in out and "dealer:" in out and "sheet after:" in out
    code, out, _ = run(capsys, *remote(server, "series", "show", f"{season['id']}-0", "--json"))
    detail = json.loads(out)
    assert detail["event_log"][0]["type"] == "series_start" and detail["hands"]
    code, out, _ = run(capsys, *remote(server, "series", "list", "--json"))
    assert code == 0 and len(json.loads(out)["series"]) == 2
    code, out, _ = run(capsys, *remote(server, "watch", "--json"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines[-1]["status"] == "SEASON_STATUS_FINISHED"


def test_mutation_without_token_is_refused(server: RunningServer, capsys,
                                           monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)  # no .arena/admin.token here
    code, _, err = run(capsys, "bots", "register", str(SAMPLES / "random"), "--server",
                       server.address)
    assert code == 2 and "admin token" in err and "UNAUTHENTICATED" in err
    assert "token used: no token" in err and "arena login --server" in err
    assert server.storage.count_rows()["bots"] == 0
    code, _, err = run(capsys, "bots", "register", str(SAMPLES / "random"), "--server",
                       server.address, "--token-file", str(tmp_path / "missing"))
    assert code == 2 and f"cannot read the token file {tmp_path / 'missing'}" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["season", "create", "--bots", "random"], "at least two bots"),
        (["season", "create", "--bots", "random", "nobody"], "unknown bot 'nobody'"),
        (["season", "create", "--bots", "random", "greedy", "--set", "knock_limit=99"],
         "knock_limit must be between 0 and 10"),
        (["season", "create", "--bots", "random", "greedy", "--set", "nonsense"],
         "must look like FIELD=VALUE"),
        (["season", "create", "--bots", "random", "greedy", "--set", 'name="x"'],
         "profile override 'name' is not allowed"),
        (["series", "show", "9-9"], "unknown series '9-9'"),
        (["season", "cancel", "42"], "unknown season 42"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(
    server: RunningServer, capsys, argv: list[str], fragment: str
) -> None:
    run(capsys, *remote(server, "bots", "register", str(SAMPLES / "random"),
                        str(SAMPLES / "greedy")))
    before = server.storage.count_rows()
    code, _, err = run(capsys, *remote(server, *argv))
    assert code == 2 and fragment in err and "Traceback" not in err
    assert server.storage.count_rows() == before


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["season", "create", "--bots", "a", "b", "--concurrency", "0"], "at least 1"),
        (["season", "create", "--bots", "a", "b", "--decision-seconds", "x"], "not a number"),
        (["series", "show", "abc"], "not a series id"),
        (["serve", "--port", "70000"], "port must be 0..65535"),
        (["launch"], "invalid choice"),
        (["season", "create"], "--bots"),
    ],
)
def test_bad_arguments_exit_2_with_usage(capsys, argv: list[str], fragment: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert fragment in capsys.readouterr().err


def test_unreachable_server_exits_1(capsys) -> None:
    code, _, err = run(capsys, "standings", "--server", "localhost:1")
    assert code == 1 and "cannot reach the arena server at localhost:1" in err


def test_season_run_embedded_end_to_end(tmp_path: Path) -> None:
    """`arena season run` as a user runs it: a subprocess, bot folders registered on
    the fly, live view, final standings printed (real sample bots, in process)."""
    completed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "season", "run", "--db", str(tmp_path / "a.db"),
         "--bots", str(SAMPLES / "random"), str(SAMPLES / "greedy"), "--series-per-pair", "4",
         "--max-hands", "30", "--sandbox", "inprocess", "--http", "localhost:0"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert "watch it live: http://localhost:" in completed.stdout
    assert "Final standings of season 1 (finished)" in completed.stdout
    assert "greedy@1.0.0" in completed.stdout and "4/4 series" in completed.stdout
    again = subprocess.run(
        [sys.executable, "-m", "arena.cli", "season", "run", "--db", str(tmp_path / "a.db"),
         "--bots", "random", "--json", "--no-http"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "at least two bots" in again.stderr


def listed(capsys: pytest.CaptureFixture[str], server: RunningServer) -> list[str]:
    """`arena bots list --json`: the registered bot ids."""
    code, out, _ = run(capsys, *remote(server, "bots", "list", "--json"))
    assert code == 0
    return [bot["id"] for bot in json.loads(out)]


def registered(capsys: pytest.CaptureFixture[str], db: Path) -> list[str]:
    """`arena bots list --json` on the database ``db`` (a server started for it)."""
    running = start_server(db, port=0, resume=False)
    try:
        return listed(capsys, running)
    finally:
        running.stop(grace=None)


@pytest.fixture
def bad_folder(tmp_path: Path) -> Path:
    folder = make_bot_folder(tmp_path, "fine")
    (folder / "bot.toml").write_text('name = "Bad Name"\nversion = "1"\nlanguage = "x"\n')
    return folder


GREEDY = str(SAMPLES / "greedy")
RANDOM = str(SAMPLES / "random")


@pytest.mark.parametrize(
    ("bots", "settings", "message"),
    [
        ([GREEDY, "BAD"], [], "bot.toml: name 'Bad Name' must match"),
        ([GREEDY, RANDOM], ["--set", "knock_limit=11"],
         "error: profile: profile field knock_limit must be between 0 and 10, got 11"),
        ([GREEDY, RANDOM], ["--profile", "bogus"], "error: profile: unknown profile 'bogus'"),
        ([GREEDY, RANDOM], ["--set", 'name="x"'],
         "error: profile override 'name' is not allowed: choose the rule profile with "
         "--profile"),
        ([GREEDY, "nosuch"], [], "error: unknown bot 'nosuch' (see `arena bots list`)"),
        ([GREEDY, "nosuch@1.0.0"], [], "error: unknown bot 'nosuch@1.0.0'"),
        ([GREEDY], [], "error: a season needs at least two bots, got 1 (greedy@1.0.0)"),
        ([GREEDY, "greedy"], [], "error: bots: greedy@1.0.0 named more than once"),
        ([GREEDY, GREEDY], [], "error: bots: greedy@1.0.0 named more than once"),
        ([GREEDY, "MISSING/"], [], "does not exist or is not a directory"),
    ],
)
def test_season_run_with_bad_input_registers_nothing(
    capsys, tmp_path: Path, bad_folder: Path, bots: list[str], settings: list[str],
    message: str
) -> None:
    db = tmp_path / "fresh" / "arena.db"
    bots = [{"BAD": str(bad_folder), "MISSING/": str(tmp_path / "missing")}.get(b, b)
            for b in bots]
    code, _, err = run(capsys, "season", "run", "--db", str(db), "--bots", *bots,
                         "--sandbox", "process", "--no-http", *settings)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert registered(capsys, db) == []


def test_season_run_checks_names_as_if_its_folders_were_registered(
    capsys, tmp_path: Path
) -> None:
    """A bare name means the latest version, which a folder in the same command may
    be about to register: alpha's 2.0.0 folder plus `alpha` names 2.0.0 twice."""
    db = tmp_path / "arena.db"
    running = start_server(db, port=0, resume=False)
    try:
        run(capsys, *remote(running, "bots", "register", str(make_bot_folder(tmp_path, "alpha"))))
    finally:
        running.stop(grace=None)
    newer = make_bot_folder(tmp_path, "alpha", "2.0.0", code="v = 2\n")
    code, _, err = run(capsys, "season", "run", "--db", str(db), "--bots", str(newer), "alpha",
                         "--no-http")
    assert code == 2 and "bots: alpha@2.0.0 named more than once" in err
    assert registered(capsys, db) == ["alpha@1.0.0"]


def test_bots_register_checks_every_folder_before_registering_any(
    server: RunningServer, capsys, tmp_path: Path, bad_folder: Path
) -> None:
    good = make_bot_folder(tmp_path, "alpha")
    code, _, err = run(capsys, *remote(server, "bots", "register", str(good), str(bad_folder)))
    assert code == 2 and "bot.toml: name 'Bad Name' must match" in err
    code, _, err = run(capsys, *remote(server, "bots", "register", str(good),
                                       str(tmp_path / "nowhere")))
    assert code == 2 and "nowhere does not exist or is not a directory" in err
    assert listed(capsys, server) == []
    # Same name@version as a registered bot but other content: refused up front too.
    run(capsys, *remote(server, "bots", "register", str(good)))
    other = make_bot_folder(tmp_path / "other", "alpha", code="x = 1\n")
    code, _, err = run(capsys, *remote(server, "bots", "register", RANDOM, str(other)))
    assert code == 2
    assert f"bot alpha@1.0.0 is already registered with different content than {other}" in err
    # Two folders of one name@version that differ.
    beta, beta_too = (make_bot_folder(tmp_path / sub, "beta", code=sub) for sub in ("a", "b"))
    code, _, err = run(capsys, *remote(server, "bots", "register", str(beta), str(beta_too)))
    assert code == 2 and f"{beta} and {beta_too} are both beta@1.0.0 but differ" in err
    assert listed(capsys, server) == ["alpha@1.0.0"]


def test_series_show_of_a_start_up_forfeit_says_no_hand_was_played(
    capsys, tmp_path: Path
) -> None:
    def never_up(spec: SeriesSpec) -> SeriesOutcome:  # seat 1's image failed to build
        series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                        swap_seats=spec.swap_seats)
        fault = BotFault(FaultKind.STARTUP, "image failed to build", seat=1)
        return outcome_of(spec.series_id, series, 0, fault, (0.0, 0.0), 0.0)

    running = start_server(tmp_path / "arena.db", port=0,
                           runner_factory=lambda config: never_up)
    try:
        run(capsys, *remote(running, "bots", "register", RANDOM, GREEDY))
        run(capsys, *remote(running, "season", "create", "--bots", "random", "greedy",
                            "--series-per-pair", "1"))
        assert running.manager.wait(1, timeout=30)
        code, out, _ = run(capsys, *remote(running, "series", "show", "1-0"))
    finally:
        running.stop(grace=None)
    assert code == 0
    assert "no hand was played: the series ended before the first deal" in out
    assert "hand 1" not in out and "upcard:" not in out and "not finished" not in out
    assert "fault: startup by seat 1 before the first deal: image failed to build" in out


def test_demo_registers_every_sample_bot_and_plays_a_season(tmp_path: Path) -> None:
    """What `make run` runs (here with real bots in the process sandbox; the Docker
    path is covered by test_season_e2e)."""
    completed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "demo", "--db", str(tmp_path / "a.db"),
         "--sandbox", "process", "--max-hands", "20", "--seed", "9", "--http", "localhost:0"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    from arena.core.manifest import BotManifest

    # A compiled sample bot takes part once built (its program is in its folder).
    expected = sorted(f"{m.name}@{m.version}" for m, folder in (
        (BotManifest.load(p.parent), p.parent) for p in SAMPLES.glob("*/bot.toml"))
        if "/" not in m.run_command[0] or (folder / m.run_command[0]).is_file())
    assert len(expected) >= 2
    registered = completed.stdout.split("registered: ", 1)[1].splitlines()[0]
    assert sorted(registered.split(", ")) == expected, registered
    assert "Final standings of season 1 (finished)" in completed.stdout
    assert "Head to head" in completed.stdout
    # Every run starts from a fresh demo database (season 1 again).
    again = subprocess.run(
        [sys.executable, "-m", "arena.cli", "demo", "--db", str(tmp_path / "a.db"),
         "--sandbox", "process", "--max-hands", "5", "--seed", "9", "--no-http"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Final standings of season 1 (finished)" in again.stdout


@pytest.mark.parametrize(
    ("parse", "text", "expected"),
    [
        (arguments.positive_int, "1", 1),
        (arguments.seconds, "0.25", 0.25),
        (arguments.seed, "0", 0),
        (arguments.seed, "9223372036854775807", 9223372036854775807),
        (arguments.port, "0", 0),
        (arguments.port, "65535", 65535),
        (arguments.series_id, "3-17", "3-17"),
    ],
)
def test_number_arguments_accept_their_edges(parse, text: str, expected: object) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (arguments.positive_int, "0", "must be at least 1, got 0"),
        (arguments.positive_int, "1.5", "'1.5' is not a whole number"),
        (arguments.seconds, "0", "must be more than 0, got 0"),
        (arguments.seconds, "-1", "must be more than 0, got -1"),
        (arguments.seconds, "nan", "must be more than 0, got nan"),
        (arguments.seconds, "soon", "'soon' is not a number of seconds"),
        (arguments.seed, "9223372036854775808", "must be between 0 and 2**63-1"),
        (arguments.seed, "-1", "must be between 0 and 2**63-1"),
        (arguments.port, "65536", "port must be 0..65535, got 65536"),
        (arguments.port, "http", "'http' is not a port number"),
        (arguments.series_id, "3-", "'3-' is not a series id (like 3-17)"),
        (arguments.series_id, "-17", "'-17' is not a series id (like 3-17)"),
    ],
)
def test_number_arguments_refuse_with_the_reason(parse, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_images_command_line_parses_its_timeout_like_the_arena(capsys) -> None:
    from arena.sandbox import images

    with pytest.raises(SystemExit) as exited:
        images.main(["build", "some-folder", "--timeout", "0"])
    assert exited.value.code == 2
    assert "argument --timeout: must be more than 0, got 0" in capsys.readouterr().err


def test_standings_caption_states_the_whole_ordering_rule() -> None:
    from arena.season.standings import compute_standings

    rule = ("series points (win 1, draw 0.5), then rating ordinal (mu - 3 sigma), "
            "then games won - lost, then points for - against, then bot id")
    caption = standings_table(arena_pb2.Standings(season_id=1)).caption
    # Every abbreviation of the table's headers, then the order.
    assert caption == ("W-D-L = series won-drawn-lost, F = forfeits (each also an L; Games, "
                       "Hands and Pts± count the series played to their end), SPts = series "
                       "points, Games = games won-lost, Hands = hands won, Pts± = points for "
                       "minus against, Rating = OpenSkill μ±σ. "
                       f"Ordered by {rule}. Elo = Bradley-Terry over all series with its "
                       "95 % interval (a draw model, and a prior of one virtual drawn series "
                       "against a fixed opponent at 0, as in BayesElo: see docs/formats.md); "
                       "'tied' = neither this row nor the next is significantly stronger "
                       "(95 %); 'behind' = the next row is significantly stronger (95 %).")
    assert compute_standings(["a@1"], []).to_dict()["ordering_rule"] == rule


SERVER_STACK = ("arena.server.service", "arena.season", "arena.storage", "openskill")


def _server_stack_loaded_by(module: str) -> list[str]:
    """The modules of the server stack that importing ``module`` loads (in a fresh
    interpreter)."""
    probe = (f"import json, sys; import {module}; "
             "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [name for name in json.loads(done.stdout)
            if any(name == top or name.startswith(top + ".") for top in SERVER_STACK)]


@pytest.mark.parametrize("module", ["arena.cli.client", "arena.cli"])
def test_the_thin_client_does_not_load_the_server_stack(module: str) -> None:
    assert _server_stack_loaded_by(module) == []


def test_the_import_probe_sees_the_server_stack_when_it_is_loaded() -> None:
    assert {"arena.server.service", "arena.season", "arena.storage", "openskill"} <= set(
        _server_stack_loaded_by("arena.server.service"))


def test_sample_bots_leave_out_a_compiled_bot_until_it_is_built(tmp_path: Path) -> None:
    from arena.cli.local import sample_bot_folders, unbuilt_sample_bots

    for name, command in (("scripted", '["python3", "-m", "bot"]'), ("compiled", '["bin/bot"]')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.toml").write_text(
            f'name = "{name}"\nversion = "1.0.0"\nlanguage = "x"\n[run]\ncommand = {command}\n')
        (tmp_path / name / "Dockerfile").write_text("FROM scratch\n")
    assert sample_bot_folders(tmp_path) == [tmp_path / "scripted"]
    assert unbuilt_sample_bots(tmp_path) == [tmp_path / "compiled"]
    (tmp_path / "compiled" / "bin").mkdir()
    (tmp_path / "compiled" / "bin" / "bot").write_text("#!/bin/sh\n")
    assert sample_bot_folders(tmp_path) == [tmp_path / "compiled", tmp_path / "scripted"]
    assert unbuilt_sample_bots(tmp_path) == []


def test_the_standings_and_crosstable_fit_80_columns() -> None:
    """Four bots with long names and wide cells: no line over 80 characters, no cell
    cut (every bot id and value whole), every header explained in the caption."""
    from rich.console import Console

    from arena.cli.render import crosstable

    names = ("shark@1.0.0", "greedy@1.0.0", "js-greedy@1.0.0", "random@10.0.0")
    message = arena_pb2.Standings(season_id=1, series_done=12, series_total=12)
    for rank, name in enumerate(names, start=1):
        message.rows.add(rank=rank, bot_id=name, series_played=66, series_won=50,
                         series_drawn=6, series_lost=10, series_forfeited=10,
                         series_points=53, games_won=160, games_lost=20, hands_won=340,
                         points_for=12430, points_against=2600, rating_mu=31.9,
                         rating_sigma=7.1, bt_elo=-357, bt_elo_low=-952, bt_elo_high=+689,
                         tied_with_next=True)
        for other in names:
            if other != name:
                message.crosstable.add(bot_id=name, opponent_id=other, won=10, drawn=2,
                                       lost=10, forfeited=3)
    console = Console(width=80, record=True)
    console.print(standings_table(message))
    console.print(crosstable(message))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    first = next(line for line in text.splitlines() if line.startswith(" 1 shark"))
    assert first.split() == ["1", "shark@1.0.0", "50-6-10", "10", "53", "160-20", "340",
                             "+9830", "31.9±7.1", "-357±820", "tied"]
    assert "│ 4 random@10.0.0" in text and "10-2-10 F3" in text
    caption = str(standings_table(message).caption)
    for header in ("W-D-L =", "F =", "SPts =", "Games =", "Hands =", "Pts± =", "Rating =",
                   "Elo =", "'tied' ="):
        assert header in caption


def _followed(expected: int) -> str:
    from rich.console import Console

    from arena.cli.render import LiveSeasonView

    standings = arena_pb2.Standings(season_id=1, series_done=7, series_total=8,
                                    series_expected=expected, series_per_minute=12.5)
    console = Console(width=80, record=True)
    LiveSeasonView(console).follow(iter([arena_pb2.WatchSeasonResponse(
        standings=standings, status=arena_pb2.SEASON_STATUS_RUNNING, series_total=8,
        series_done=7)]))
    return console.export_text()


def test_the_live_view_shows_no_bar_for_a_season_without_a_count() -> None:
    # A ladder without rounds, an SPRT match: no series count to reach.
    endless = _followed(0).splitlines()[0]
    assert endless.strip() == "7 series played, 12.5 series/min (running)"
    counted = _followed(8).splitlines()[0]
    assert "7/8" in counted and "━" in counted and "series played" not in counted
