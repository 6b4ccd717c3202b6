"""Every sample bot plays a complete series against every other, through real gRPC
between separate processes (no containers), with the arena's own match loop.

Bots are discovered from ``sample_bots/*/bot.toml`` (``[run] command``), so bots
added later are included automatically.
"""

from __future__ import annotations

import itertools

import pytest

from arena.botclient import BotClient
from arena.limits import TimeLimits
from arena.match import play_match
from engine import Series
from tests.bot_processes import LocalBot, discover_bots, run_bot

BOTS = [bot for bot in discover_bots() if bot.folder.parent.name == "sample_bots"]
PAIRS = list(itertools.combinations(BOTS, 2))
PAIR_IDS = [f"{first.name}-vs-{second.name}" for first, second in PAIRS]
LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=30.0)


def test_the_python_sample_bots_are_discovered() -> None:
    names = {bot.name for bot in BOTS}
    assert {"random", "greedy"} <= names


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=PAIR_IDS)
def test_a_full_series_between_two_sample_bots(first: LocalBot, second: LocalBot) -> None:
    for bot in (first, second):
        if not bot.runnable():
            pytest.fail(f"{bot.name}: {bot.command[0]} is not installed")
    seed_env = {"HOLLYWOOD_BOT_SEED": "7"}
    with run_bot(first, seed_env) as one, run_bot(second, seed_env) as two:
        clients = []
        try:
            for running in (one, two):
                client = BotClient.connect(running.target, startup_timeout=LIMITS.startup_s)
                clients.append(client)
                assert client.handshake(timeout=10).name == running.bot.name
            series = Series(seed=2024, max_hands=60)
            events: list[dict[str, object]] = []
            result = play_match((clients[0], clients[1]), series, LIMITS, events.append,
                                series_id=f"{first.name}-{second.name}")
        finally:
            for client in clients:
                client.close()
        assert result.fault is None, (result.fault, one.stderr(), two.stderr())
        assert series.is_over and result.series_result is series.result
        assert result.winner == series.result.winner
        assert result.hands_played == series.result.hands_played
        assert result.decisions == sum(1 for e in events if e["type"] == "action")
        assert events[-1]["type"] == "series_end"
        # The series replays from its log: the bots' actions went through the engine.
        assert Series.replay(series.log).result == series.result
