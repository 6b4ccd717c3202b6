"""Every sample bot plays a complete series against every other, through real gRPC
between separate processes (no containers), with the arena's own match loop.

Bots are discovered from ``sample_bots/*/bot.toml`` (``[run] command``), so bots
added later are included automatically.
"""

from __future__ import annotations

import itertools

import pytest

from arena.core.limits import TimeLimits
from arena.match.botclient import BotClient
from arena.match.loop import play_match
from engine import Series
from tests.helpers.bot_processes import SAMPLE_BOTS, LocalBot, discover_bots, run_bot

# Compiled bots need their build first: tests/sample_bots/test_cpp_greedy.py builds cpp-greedy and
# plays it against greedy; the Ruby bot needs Debian's ruby and its stubs generated
# (tests/sample_bots/test_ruby_highcard.py).
BOTS = [bot for bot in discover_bots()
        if bot.folder.parent.name == "sample_bots" and bot.language not in ("c++", "ruby")]
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
        assert result.outcome.fault is None, (result.outcome.fault, one.stderr(), two.stderr())
        assert series.is_over and result.outcome.result is series.result
        assert result.outcome.winner == series.result.winner
        assert result.outcome.hands_played == series.result.hands_played
        assert result.decisions == sum(1 for e in events if e["type"] == "action")
        assert events[-1]["type"] == "series_end"
        # The series replays from its log: the bots' actions went through the engine.
        assert Series.replay(series.log).result == series.result


# ------------------------------------------------------------------ sample bot behaviour

def _observation(phase: int, hand: str, pile: str, legal: list[tuple[int, str]]) -> object:
    import hollywood_sdk as hs
    from hollywood.bot.v1 import bot_pb2

    request = bot_pb2.DecideRequest(
        observation=bot_pb2.Observation(phase=phase, hand=hand.split(), discard_pile=pile.split()),
        legal_actions=[bot_pb2.Action(kind=kind, card=card) for kind, card in legal],
        profile=bot_pb2.RuleProfile(name="friendly", knock_limit=10, no_discard_of_taken_card=True),
    )
    return hs.Observation.from_proto(request)


def _sample_bot(module: str, folder: str) -> object:
    import importlib
    import sys

    sys.path.insert(0, str(SAMPLE_BOTS / folder))
    return importlib.import_module(module)


def test_greedy_takes_a_discard_only_when_it_lowers_deadwood_and_knocks_at_once() -> None:
    from hollywood.bot.v1 import bot_pb2 as pb

    greedy = _sample_bot("greedy_bot", "greedy").GreedyBot()  # type: ignore[attr-defined]
    draw = [(pb.ACTION_KIND_DRAW_STOCK, ""), (pb.ACTION_KIND_DRAW_DISCARD, "")]
    hand = "4h 5h 6h 9c 9d 9s Ac 2c Kd Qs"
    assert str(greedy.decide(_observation(pb.PHASE_DRAW, hand, "Jc 3c", draw))) == "draw discard"
    assert str(greedy.decide(_observation(pb.PHASE_DRAW, hand, "3c Jc", draw))) == "draw stock"
    eleven = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd Qs"
    legal = [(pb.ACTION_KIND_DISCARD, c) for c in eleven.split()] + [
        (pb.ACTION_KIND_KNOCK, "Kd"), (pb.ACTION_KIND_KNOCK, "Qs")]
    assert str(greedy.decide(_observation(pb.PHASE_DISCARD, eleven, "", legal))) == "knock Kd"
    no_knock = [(pb.ACTION_KIND_DISCARD, c) for c in eleven.split()]
    assert str(greedy.decide(_observation(pb.PHASE_DISCARD, eleven, "", no_knock))) in (
        "discard Kd", "discard Qs")


def test_random_is_reproducible_with_a_seed_and_always_legal() -> None:
    from hollywood.bot.v1 import bot_pb2 as pb

    module = _sample_bot("random_bot", "random")
    cards = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd Qs"
    observation = _observation(pb.PHASE_DISCARD, cards, "",
                               [(pb.ACTION_KIND_DISCARD, c) for c in cards.split()])
    runs = [[module.RandomBot(seed).decide(observation)  # type: ignore[attr-defined]
             for _ in range(20)] for seed in (1, 1, 2)]
    assert runs[0] == runs[1] != runs[2]
    assert all(action in observation.legal_actions for action in runs[2])  # type: ignore[attr-defined]
