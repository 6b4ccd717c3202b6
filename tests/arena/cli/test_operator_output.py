"""What operators see (issue 10, point 7): ``--json`` writes numbers as JSON numbers
in a stable key order, sizes are printed in KiB/MiB, and ``season run`` says each
forfeit when it happens and sums the faults up at the end, also when piped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli import main
from arena.cli.output import to_json
from arena.cli.render import fault_summary
from arena.core.sizes import human_size
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.servers import ServerFactory, with_bots

SAMPLES = REPO_ROOT / "sample_bots"


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return with_bots(serve(), tmp_path)


def cli_json(capsys: pytest.CaptureFixture[str], server: RunningServer, *argv: str) -> object:
    assert main([*argv, "--server", server.address, "--token", server.token, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_numbers_are_numbers_and_keys_come_in_declaration_order(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    season = cli_json(capsys, server, "season", "create", "--bots", "greedy", "random",
                      "--seed", "9007199254740993", "--hold")
    assert isinstance(season, dict)
    assert season["id"] == 1  # uint64: was the string "1"
    assert season["config"]["seed"] == 9007199254740993  # exact, beyond a double's 2**53
    assert list(season) == ["id", "name", "config", "profile_json", "bot_ids", "status",
                            "series_total", "series_done", "created_at", "updated_at",
                            "error", "series_voided", "outcomes_refused", "format_summary"]
    shown = cli_json(capsys, server, "season", "show", "1")
    assert isinstance(shown, dict)
    assert shown["season"] == {**season, "updated_at": shown["season"]["updated_at"]}
    assert shown["standings"]["season_id"] == 1
    assert [row["points_for"] for row in shown["standings"]["rows"]] == [0, 0]
    listed = cli_json(capsys, server, "series", "list")
    assert isinstance(listed, dict) and listed["next_page_token"] == ""
    # Unplayed: only the commitment to each seed shows (64 hex digits), not the seed.
    assert [(item["season_id"], item["seed"], item["seed_revealed"], item["seed_nonce"],
             len(item["seed_commitment"])) for item in listed["series"]] == [
        (1, 0, False, "", 64), (1, 0, False, "", 64)]


def test_json_map_keys_are_sorted_and_nested_messages_ordered() -> None:
    season = arena_pb2.Season(id=7)
    season.config.profile_overrides["target"] = "50"
    season.config.profile_overrides["gin_bonus"] = "20"
    data = to_json(season)
    assert list(data["config"]["profile_overrides"]) == ["gin_bonus", "target"]
    assert list(data["config"])[:3] == ["profile", "profile_overrides", "series_per_pair"]
    summary = to_json(arena_pb2.SeriesSummary(seed=2**64 - 1, games_won=[2, 1]))
    assert (summary["seed"], summary["games_won"]) == (18446744073709551615, [2, 1])


@pytest.mark.parametrize(("size", "text"), [
    (0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
    (70_000, "68.4 KiB"), (50 * 1024 * 1024, "50 MiB"), (52_428_801, "50.0 MiB"),
    (3 * 1024**3, "3 GiB"), (5 * 1024**5, "5120 TiB"),
])
def test_sizes_read_in_binary_units(size: int, text: str) -> None:
    assert human_size(size) == text


def test_an_oversized_bot_toml_is_refused_in_kib(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_bot_folder(tmp_path / "bots", "big")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + "#" * (70_000 - manifest.stat().st_size))
    code = main(["season", "run", "--db", str(tmp_path / "a.db"), "--no-http",
                 "--bots", str(folder), str(folder)])
    assert code == 2
    assert "bot.toml: 68.4 KiB, larger than 64 KiB" in capsys.readouterr().err


CRASHING_BOT = "import sys\nsys.stderr.write('boom\\n')\nsys.exit(3)\n"


def test_season_run_says_each_forfeit_and_sums_them_up_when_piped(tmp_path: Path) -> None:
    crashy = make_bot_folder(tmp_path / "bots", "crashy", code=CRASHING_BOT)
    completed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "season", "run", "--db", str(tmp_path / "a.db"),
         "--bots", str(crashy), str(SAMPLES / "greedy"), "--series-per-pair", "2",
         "--max-hands", "5", "--sandbox", "process", "--no-http", "--log-format", "json"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )  # capture_output: stdout is a pipe, not a terminal
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout.splitlines()
    reason = "crash: the bot exited with code 3 during start-up, before binding its socket"
    said = [out.index(f"forfeit in 1-{index}: crashy@1.0.0 (seat {index}) before the first "
                      f"deal, {reason}") for index in (0, 1)]
    assert max(said) < out.index("Final standings of season 1 (finished)")
    assert out[-2:] == ["faults: 2 forfeits", "  crashy@1.0.0: 2 (crash 2)"]
    logged = [json.loads(line) for line in completed.stderr.splitlines()
              if line.startswith("{")]
    assert [line["event"] for line in logged] == [
        "season_created", "season_started", "fault", "fault", "season_finished"]
    assert {line["reason"] for line in logged if line["event"] == "fault"} == {
        reason.removeprefix("crash: ")}


def test_fault_summary_counts_by_bot_then_kind() -> None:
    def forfeit(series_id: str, seat: int, kind: str, bots: tuple[str, str]) -> Any:
        return arena_pb2.SeriesSummary(series_id=series_id, seat0_bot=bots[0],
                                       seat1_bot=bots[1],
                                       fault=arena_pb2.Fault(kind=kind, seat=seat))
    forfeits = [forfeit("1-0", 0, "timeout", ("a@1", "b@1")),
                forfeit("1-1", 1, "crash", ("a@1", "b@1")),
                forfeit("1-2", 1, "crash", ("b@1", "c@1")),
                forfeit("1-3", 0, "crash", ("b@1", "c@1"))]
    assert fault_summary(forfeits) == ["faults: 4 forfeits", "  b@1: 2 (crash 2)",
                                       "  a@1: 1 (timeout 1)", "  c@1: 1 (crash 1)"]
    assert fault_summary([]) == ["faults: none"]
