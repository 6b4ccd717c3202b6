"""A series the arena stored, read back through `arena export` (with `--decisions`):
the environment re-deals it from its seed and seats, the stored moves give the stored
result, and every exported decision is what the environment shows at that point."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.server.app import RunningServer, start_server
from engine import Action
from hollywood_env import action_index
from hollywood_env.stored import for_stored_series, stored_moves
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.fake_runner import run_fake_series

SAMPLES = REPO_ROOT / "sample_bots"


@pytest.fixture
def exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Path]:
    running: RunningServer = start_server(tmp_path / "arena.db", port=0,
                                          runner_factory=lambda config: run_fake_series)
    try:
        client = ["--server", running.address, "--token-file", str(running.token_path)]
        assert main(["bots", "register", str(SAMPLES / "random"), str(SAMPLES / "greedy"),
                     *client]) == 0
        capsys.readouterr()
        assert main(["season", "create", "--bots", "random", "greedy", "--series-per-pair",
                     "2", "--max-hands", "12", "--json", *client]) == 0
        season = json.loads(capsys.readouterr().out)
        assert running.manager.wait(int(season["id"]), timeout=60)
        target = tmp_path / "out"
        assert main(["export", "--season", str(season["id"]), "--to", str(target),
                     "--decisions", "--json", *client]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["series"] == 2 and summary["decisions"] > 0
        yield target
    finally:
        running.stop(grace=None)


def test_reset_with_a_stored_seed_reproduces_the_series(exported: Path) -> None:
    files = sorted((exported / "series").glob("*.json"))
    assert len(files) == 2
    for file in files:
        stored = json.loads(file.read_text())
        environment = for_stored_series(file)
        for agent, index in stored_moves(file):
            assert environment.agent_selection == agent
            environment.step(index)
        assert environment.series.log == stored["event_log"]
        result = environment.series.result
        assert result is not None
        summary = stored["series"]
        assert result.points == tuple(summary["points"])
        assert summary["winner"] == (-1 if result.winner is None else result.winner)


def test_every_exported_decision_is_legal_and_seen_as_the_environment_shows_it(
        exported: Path) -> None:
    by_series: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (exported / "decisions.jsonl").read_text().splitlines():
        record = json.loads(line)
        by_series[record["series_id"]].append(record)
    assert len(by_series) == 2
    for series_id, records in by_series.items():
        environment = for_stored_series(exported / "series" / f"{series_id}.json")
        assert [r["decision"] for r in records] == list(range(1, len(records) + 1))
        for record in records:
            agent = f"player_{record['seat']}"
            assert environment.agent_selection == agent
            shown = environment.engine_observation(agent)
            assert record["observation"] == json.loads(json.dumps(shown.to_dict()))
            legal = [str(a) for a in environment.series.legal_actions()]
            assert record["legal_actions"] == legal
            index = action_index(Action.parse(record["action"]))
            assert environment.observe(agent)["action_mask"][index] == 1
            assert record["bot"] in ("random@1.0.0", "greedy@1.0.0")
            environment.step(index)
        assert all(environment.terminations.values())
