"""run_series: full series in containers, start-up faults, image build faults,
Ctrl-C mid-series, and an unavailable Docker engine."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import FaultKind
from arena.match.runner import run_series
from arena.sandbox import SandboxError
from arena.sandbox.docker import docker_client as connect_docker
from engine.series import Series
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers, bot_ref
from tests.helpers.series_specs import spec


@pytest.mark.docker
def test_full_series_matches_the_engine(docker_sandbox: Any, docker_client: Any) -> None:
    events: list[dict[str, Any]] = []
    greedy, rand = bot_ref(SAMPLE_BOTS / "greedy"), bot_ref(SAMPLE_BOTS / "random")
    outcome = run_series(spec(greedy, rand, "full", swap_seats=True), docker_sandbox,
                         on_event=events.append)
    assert outcome.fault is None
    replayed = Series.replay(outcome.log)
    result = replayed.result
    assert result is not None
    assert outcome.winner == result.winner
    assert outcome.games_won == result.games_won
    assert outcome.game_scores == result.game_scores
    assert outcome.hands_won == result.hands_won
    assert outcome.points == result.points
    assert (outcome.hands_played, outcome.capped) == (result.hands_played, result.capped)
    assert events and events[-1]["type"] == "series_end"
    assert all(seconds > 0 for seconds in outcome.think_seconds)
    assert outcome.wall_seconds > sum(outcome.think_seconds)
    assert arena_leftovers(docker_client) == []


@pytest.mark.docker
def test_both_bots_failing_to_start_is_a_draw(docker_sandbox: Any, docker_client: Any) -> None:
    quitter = bot_ref(HOSTILE_BOTS / "exits_at_start")
    outcome = run_series(spec(quitter, quitter, "both-quit"), docker_sandbox)
    assert outcome.winner is None
    assert outcome.fault is not None and outcome.fault.seat == 0
    assert outcome.fault.kind is FaultKind.CRASH
    assert "seat 1 failed to start too" in outcome.fault.message
    other = outcome.fault.other_seat_fault
    assert other is not None and other.seat == 1 and other.kind is FaultKind.CRASH
    assert outcome.hands_played == 0
    assert arena_leftovers(docker_client) == []


@pytest.mark.docker
def test_a_bot_whose_image_does_not_build_forfeits(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "broken"\nversion = "1"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "bot.py"]\n'
    )
    (folder / "Dockerfile").write_text(
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY missing.py /bot/\n"
    )
    outcome = run_series(spec(bot_ref(SAMPLE_BOTS / "random"), bot_ref(folder), "broken"),
                         docker_sandbox)
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat, outcome.winner) == (FaultKind.STARTUP, 1, 0)
    assert "missing.py" in outcome.fault.message
    assert arena_leftovers(docker_client) == []


@pytest.mark.docker
def test_ctrl_c_mid_series_leaves_nothing_behind(docker_sandbox: Any, docker_client: Any) -> None:
    seen = []

    def interrupt_on_third_event(event: dict[str, Any]) -> None:
        seen.append(event)
        if len(seen) == 3:
            raise KeyboardInterrupt

    greedy = bot_ref(SAMPLE_BOTS / "greedy")
    with pytest.raises(KeyboardInterrupt):
        run_series(spec(greedy, greedy, "ctrl-c"), docker_sandbox,
                   on_event=interrupt_on_third_event)
    assert arena_leftovers(docker_client) == []


def test_unavailable_docker_is_an_arena_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(SandboxError, match="Docker is not available"):
        connect_docker()


@pytest.mark.docker
def test_a_bot_folder_with_a_symlink_forfeits(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "linked"
    shutil.copytree(SAMPLE_BOTS / "random", folder)
    ref = bot_ref(folder)
    (folder / "secret").symlink_to("/etc/passwd")  # after loading: appears later
    outcome = run_series(spec(ref, bot_ref(SAMPLE_BOTS / "random"), "linked"), docker_sandbox)
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat) == (FaultKind.STARTUP, 0)
    assert "symbolic links are not allowed" in outcome.fault.message
    assert arena_leftovers(docker_client) == []
