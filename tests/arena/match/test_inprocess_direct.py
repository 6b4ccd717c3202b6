"""In-process bots called directly, without gRPC (issue 29, point 3): the direct path
and the gRPC path play the same series to the same event logs and results, give the
same faults for the same misbehaviour, and hand a bot the same observation (its
own: nothing hidden) at every decision."""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import Any

import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2
from hollywood_sdk.server import Identity

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.match import protocol
from arena.match.connection import connect_running
from arena.match.direct import DirectConnection
from arena.match.runner import run_series
from arena.sandbox.base import InProcessTarget, Sandbox
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox
from arena.sandbox.process import ProcessSandbox
from engine.profiles import get_profile
from engine.series import Series
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.grpc_inprocess import GrpcInProcessSandbox, serve_over_grpc
from tests.helpers.series_specs import spec

SAMPLES = REPO_ROOT / "sample_bots"
LIMITS = TimeLimits(startup_s=20.0, decision_s=2.0, reserve_s=10.0)

SEEDED_RANDOM = (
    "import random\n"
    "import hollywood_sdk as hs\n"
    "class SeededRandom(hs.Bot):\n"
    "    def __init__(self):\n"
    "        self._random = random.Random(20261202)\n"
    "    def decide(self, observation):\n"
    "        return self._random.choice(observation.legal_actions)\n"
    "if __name__ == '__main__':\n"
    "    hs.serve(SeededRandom())\n")


def sdk_bot(tmp_path: Path, name: str, code: str, sdk_class: str) -> BotRef:
    folder = make_bot_folder(tmp_path, name, code=code)
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(
        manifest.replace("[run]\n", f'[run]\nsdk_class = "{sdk_class}"\n'))
    return BotRef.from_folder(folder)


def sample(name: str) -> BotRef:
    return BotRef.from_folder(SAMPLES / name)


def equal_spec(first: BotRef, second: BotRef, seed: int, **changes: Any) -> SeriesSpec:
    """Series ``eq-<seed>`` of 12 hands, seats swapped on odd seeds: the equality tests'."""
    options: dict[str, Any] = {"max_hands": 12, "swap_seats": bool(seed % 2), "limits": LIMITS}
    return spec(first, second, f"eq-{seed}", seed=seed, **(options | changes))


def played(chosen: SeriesSpec, sandbox: Sandbox) -> tuple[SeriesOutcome, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    return run_series(chosen, sandbox, on_event=events.append), events


def same_play(direct: SeriesOutcome, other: SeriesOutcome) -> None:
    """Everything of a played series but its timings."""
    assert direct.log == other.log
    assert (direct.winner, direct.games_won, direct.hands_won, direct.points,
            direct.game_scores, direct.hands_played, direct.capped) == (
        other.winner, other.games_won, other.hands_won, other.points,
        other.game_scores, other.hands_played, other.capped)


@pytest.mark.parametrize("seed", [8, 2027])
@pytest.mark.parametrize("pair", [("greedy", "shark"), ("random", "greedy"),
                                  ("shark", "random")])
def test_direct_and_grpc_paths_play_the_same_series(
        tmp_path: Path, seed: int, pair: tuple[str, str]) -> None:
    seeded = sdk_bot(tmp_path, "seeded-random", SEEDED_RANDOM, "seeded_random:SeededRandom")
    bots = [seeded if name == "random" else sample(name) for name in pair]
    chosen = equal_spec(bots[0], bots[1], seed)
    direct, direct_events = played(chosen, InProcessSandbox())
    over_grpc, grpc_events = played(chosen, GrpcInProcessSandbox())
    assert direct.fault is None and over_grpc.fault is None
    same_play(direct, over_grpc)
    assert direct_events == grpc_events
    # ...and both are the engine's own series (an independent replay of the log).
    replayed = Series.replay(direct.log).result
    assert replayed is not None
    assert (direct.winner, direct.hands_played) == (replayed.winner, replayed.hands_played)
    assert direct.hands_played >= 1


def test_direct_path_plays_as_bots_in_their_own_processes() -> None:
    chosen = equal_spec(sample("greedy"), sample("shark"), 11, max_hands=6)
    direct, _ = played(chosen, InProcessSandbox())
    in_processes, _ = played(chosen, ProcessSandbox())
    assert direct.fault is None and in_processes.fault is None
    same_play(direct, in_processes)


HOSTILE = {
    "raises": ("    def decide(self, observation):\n"
               "        if observation.hand_number == 2:\n"
               "            raise ValueError('no idea')\n"
               "        return observation.legal_actions[0]\n"),
    "not-an-action": ("    def decide(self, observation):\n"
                      "        return 'draw stock'\n"),
    "illegal": ("    def decide(self, observation):\n"
                "        if observation.phase is hs.Phase.DISCARD:\n"
                "            return hs.Action.draw_stock()\n"
                "        return observation.legal_actions[0]\n"),
    "foreign-card": ("    def decide(self, observation):\n"
                     "        if observation.phase is hs.Phase.DISCARD:\n"
                     "            hand = set(observation.hand)\n"
                     "            other = next(c for c in hs.parse_cards(\n"
                     "                ['As','Ks','Qs','Js','Ts','9s','8s','7s','6s','5s','4s',\n"
                     "                 '3s','2s','Ah']) if c not in hand)\n"
                     "            return hs.Action.discard(other)\n"
                     "        return observation.legal_actions[0]\n"),
    # An offered view kept from an earlier decision, played once it is no longer offered.
    "stale": ("    kept = None\n"
              "    def decide(self, observation):\n"
              "        if observation.phase is hs.Phase.DISCARD:\n"
              "            if self.kept is None:\n"
              "                self.kept = observation.legal_actions[0]\n"
              "            elif self.kept not in observation.legal_actions:\n"
              "                return self.kept\n"
              "        return observation.legal_actions[0]\n"),
    "oversized": ("    def decide(self, observation):\n"
                  "        if observation.phase is hs.Phase.DISCARD:\n"
                  "            meld = tuple(observation.hand[:3])\n"
                  "            return hs.Action.knock(observation.hand[0], (meld,) * 6000)\n"
                  "        return observation.legal_actions[0]\n"),
}


@pytest.mark.parametrize("misbehaviour", sorted(HOSTILE))
def test_a_misbehaving_bot_gets_the_same_fault_on_both_paths(
        tmp_path: Path, misbehaviour: str) -> None:
    code = ("import hollywood_sdk as hs\n"
            "class Hostile(hs.Bot):\n" + HOSTILE[misbehaviour])
    hostile = sdk_bot(tmp_path, "hostile", code, "hostile:Hostile")
    chosen = equal_spec(sample("greedy"), hostile, 5, max_hands=4)
    direct, direct_events = played(chosen, InProcessSandbox())
    over_grpc, grpc_events = played(chosen, GrpcInProcessSandbox())
    assert direct.fault is not None and over_grpc.fault is not None
    if misbehaviour == "oversized":  # gRPC words the size in its own transport's terms
        grpc_fault = over_grpc.fault.to_dict()
        assert "larger than max (84010 vs. 65536)" in grpc_fault.pop("message")
        assert direct.fault.message == ("the Decide reply is larger than the 64 KiB allowed "
                                        "(Received message larger than max (84010 vs. 65536))")
        assert {**direct.fault.to_dict(), "message": ""} == {**grpc_fault, "message": ""}
    else:
        assert direct.fault.to_dict() == over_grpc.fault.to_dict()
    assert direct.fault.seat == 1 and direct.winner == 0
    expected = {"raises": FaultKind.CRASH, "not-an-action": FaultKind.CRASH,
                "illegal": FaultKind.ILLEGAL_ACTION,
                "foreign-card": FaultKind.ILLEGAL_ACTION, "stale": FaultKind.ILLEGAL_ACTION,
                "oversized": FaultKind.OVERSIZED}[misbehaviour]
    assert direct.fault.kind is expected
    if misbehaviour == "raises":
        assert direct.fault.hand_number == 2
        assert "ValueError: no idea" in direct.fault.bot_words  # its owner's, apart
    if misbehaviour == "oversized":
        grpc_events = [{**event, "message": direct.fault.message}
                       if event["type"] == "fault" else event for event in grpc_events]
    same_play(direct, over_grpc)
    assert direct_events == grpc_events


BLOCKS = (
    "import threading\n"
    "import hollywood_sdk as hs\n"
    "RELEASE = threading.Event()\n"
    "class Blocks(hs.Bot):\n"
    "    def decide(self, observation):\n"
    "        if observation.decision_number >= 3:\n"
    "            RELEASE.wait(60)\n"
    "        return observation.legal_actions[0]\n")


def test_a_bot_that_does_not_answer_in_time_is_a_timeout_on_both_paths(
        tmp_path: Path) -> None:
    """A bot that blocks (never runnable, so charged on time at any load) past its
    deadline and reserve: TIMEOUT at the same decision; the series ends without it."""
    blocks = sdk_bot(tmp_path, "blocks", BLOCKS, "blocks:Blocks")
    limits = TimeLimits(startup_s=20.0, decision_s=0.05, reserve_s=0.0)
    chosen = equal_spec(blocks, sample("greedy"), 4, max_hands=2, swap_seats=False, limits=limits)
    sandbox = InProcessSandbox()
    try:
        direct, direct_events = played(chosen, sandbox)
        over_grpc, grpc_events = played(chosen, GrpcInProcessSandbox())
    finally:
        bot = sandbox.start(blocks).in_process_target.bot
        sys.modules[type(bot).__module__].RELEASE.set()
    assert direct.fault is not None and over_grpc.fault is not None
    assert (direct.fault.kind, direct.fault.seat, direct.fault.hand_number) == (
        FaultKind.TIMEOUT, 0, 1)
    assert direct.fault.decision_number is not None and direct.fault.decision_number >= 3
    for outcome in (direct, over_grpc):
        assert "no answer to Decide within 0.05 s" in outcome.fault.message
    assert (direct.fault.kind, direct.fault.seat, direct.fault.hand_number,
            direct.fault.decision_number) == (
        over_grpc.fault.kind, over_grpc.fault.seat, over_grpc.fault.hand_number,
        over_grpc.fault.decision_number)
    assert direct.log == over_grpc.log
    assert [event["type"] for event in direct_events] == [
        event["type"] for event in grpc_events]


def choose(legal: Any) -> Any:
    """From the stock when it may (so every hand ends), else the last legal action."""
    return next((action for action in legal if str(action) == "draw stock"), legal[-1])


class Recorder(hs.Bot):
    """Keeps every observation, hand result and series result it is given."""

    name, version = "recorder", "1.0.0"

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.seen.append(observation)
        return choose(observation.legal_actions)

    def on_hand_end(self, result: hs.HandResult) -> None:
        self.seen.append(result)

    def on_series_end(self, result: hs.SeriesResult) -> None:
        self.seen.append(result)


class RecordingSandbox(InProcessSandbox):
    """Every start makes a ``Recorder`` in place of the bot's own class, called
    directly or served over gRPC."""

    def __init__(self, recorders: list[Recorder], over_grpc: bool) -> None:
        super().__init__()
        self.recorders = recorders
        self.over_grpc = over_grpc

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        recorder = Recorder()
        self.recorders.append(recorder)
        if self.over_grpc:
            return serve_over_grpc(recorder, Identity(bot.name, bot.version))
        return InProcessBot(InProcessTarget(recorder, bot.name, bot.version, ""))


def told_as_one(seen: list[Any]) -> list[Any]:
    """``seen`` with the series id a bot is told (opaque, drawn per play) as one
    placeholder, after checking each play told one id throughout."""
    told = {item.series_id for item in seen if hasattr(item, "series_id")}
    assert len(told) == 1
    return [dataclasses.replace(item, series_id="told") if hasattr(item, "series_id") else item
            for item in seen]


def test_the_bot_sees_the_same_observations_as_over_grpc_and_only_its_own() -> None:
    chosen = equal_spec(sample("greedy"), sample("shark"), 9, max_hands=3)
    direct: list[Recorder] = []
    over_grpc: list[Recorder] = []
    first, _ = played(chosen, RecordingSandbox(direct, over_grpc=False))
    second, _ = played(chosen, RecordingSandbox(over_grpc, over_grpc=True))
    assert first.log == second.log and first.fault is None
    for seat in (0, 1):
        # Same views, field by field, but the series id each run drew for its bots.
        assert told_as_one(direct[seat].seen) == told_as_one(over_grpc[seat].seen)
        observations = [item for item in direct[seat].seen
                        if isinstance(item, hs.Observation)]
        assert observations and all(type(item) is hs.Observation for item in observations)
        assert {item.seat for item in observations} == {seat}
    # Independently: each decision's hand is the engine's hand for that seat, and the
    # opponent's cards are never in it.
    series = Series(chosen.seed, chosen.profile, max_hands=chosen.max_hands,
                    swap_seats=chosen.swap_seats)
    asked = {0: iter([o for o in direct[0].seen if isinstance(o, hs.Observation)]),
             1: iter([o for o in direct[1].seen if isinstance(o, hs.Observation)])}
    while (seat := series.current_player) is not None:
        seen = next(asked[seat])
        engine_view = series.observation(seat)
        assert [str(card) for card in seen.hand] == [str(card) for card in engine_view.hand]
        hidden = set(map(str, series.observation(1 - seat).hand)) - {
            str(card) for card in engine_view.opponent_known_cards}
        assert not hidden & {str(card) for card in seen.hand}
        assert seen.stock_size == engine_view.stock_size
        series.apply(choose(series.legal_actions()))


class Raises(hs.Bot):
    name, version = "raises", "1.0.0"

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.hands = 0

    def decide(self, observation: hs.Observation) -> hs.Action:
        raise self.error

    def on_hand_end(self, result: hs.HandResult) -> None:
        self.hands += 1
        raise RuntimeError("hook failed")


def direct_to(bot: hs.Bot) -> DirectConnection:
    connection = connect_running(_Handle(InProcessTarget(bot, "raises", "1.0.0", "")), 1.0)
    assert isinstance(connection, DirectConnection)
    return connection


class _Handle:
    def __init__(self, target: InProcessTarget) -> None:
        self.in_process_target = target
        self.target = "in-process:x"


def first_decision() -> tuple[Any, list[Any]]:
    series = Series(1, get_profile("friendly"))
    legal = series.legal_actions()
    request = protocol.decide_request(
        series.observation(series.current_player or 0), legal,
        protocol.profile_to_proto(series.profile, 10), series_id="s", decision_number=1,
        decision_s=1.0, reserve_s=1.0)
    return request, legal


def test_a_bot_exiting_from_decide_is_a_crash_and_the_connection_goes_on() -> None:
    bot = Raises(SystemExit(3))
    connection = direct_to(bot)
    request, legal = first_decision()
    with pytest.raises(Exception) as raised:
        connection.decide(request, legal, allowed_s=5.0)
    assert getattr(raised.value, "kind", None) is FaultKind.CRASH
    assert "SystemExit" in str(raised.value)
    assert connection.hand_ended(bot_pb2.HandEndedRequest(series_id="s"), timeout=5.0)
    assert bot.hands == 1  # the hook ran, its exception was the bot's own business
    connection.close()


def test_the_handshake_answers_the_bots_identity_and_refuses_an_empty_one() -> None:
    connection = direct_to(Raises(ValueError()))
    info = connection.handshake(1.0)
    assert (info.name, info.version, info.protocol_version) == ("raises", "1.0.0", 1)
    nameless = DirectConnection(InProcessTarget(Raises(ValueError()), " ", "1.0.0", ""))
    with pytest.raises(Exception) as raised:
        nameless.handshake(1.0)
    assert getattr(raised.value, "kind", None) is FaultKind.MALFORMED
    for made in (connection, nameless):
        made.close()


def test_a_notification_is_skipped_while_the_bot_is_stuck_in_a_call() -> None:
    release = threading.Event()

    class Stuck(hs.Bot):
        def decide(self, observation: hs.Observation) -> hs.Action:
            release.wait(60)
            return observation.legal_actions[0]

    connection = direct_to(Stuck())
    request, legal = first_decision()
    try:
        with pytest.raises(Exception) as raised:
            connection.decide(request, legal, allowed_s=0.01)
        assert getattr(raised.value, "kind", None) is FaultKind.TIMEOUT
        assert connection.series_ended(bot_pb2.SeriesEndedRequest(), timeout=30.0) is False
    finally:
        release.set()
        connection.close()

