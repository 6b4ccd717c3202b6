"""The Python bot SDK: card and meld helpers, views, and serving over real gRPC."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]


def cards(text: str) -> list[hs.Card]:
    return hs.parse_cards(text.split())


# ------------------------------------------------------------------ cards and melds


def test_card_notation_round_trips_and_rejects_bad_text() -> None:
    assert [str(c) for c in cards("As Td 7c 10h kD")] == ["As", "Td", "7c", "Th", "Kd"]
    assert hs.Card.parse("Kh").value == 10 and hs.Card.parse("As").value == 1
    assert len(set(hs.FULL_DECK)) == 52
    for bad in ("", "1s", "Ax", "Tdd", "11c"):
        with pytest.raises(hs.CardError, match="not a card"):
            hs.Card.parse(bad)


def test_worked_example_gin_and_best_discard() -> None:
    hand = cards("4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h")
    assert hs.best_discards(hand) == (0, [hs.Card.parse("Kd")])
    arrangement = hs.best_arrangement(cards("4h 5h 6h 7h 9c 9d 9s Ac 2c 3c"))
    assert arrangement.deadwood == 0 and len(arrangement.melds) == 3


def test_deadwood_chooses_between_overlapping_set_and_run() -> None:
    # 5c belongs either to the run Ac-5c or to the set of fives: both are tried.
    assert hs.min_deadwood(cards("Ac 2c 3c 4c 5c 5d 5h 5s 9d Td")) == 19
    assert hs.min_deadwood(cards("3c 4c 5c 5d 5h 6c Kd Qd Jd 2s")) == 12  # run beats set
    assert hs.min_deadwood(cards("Qc Kc Ac 2d 4h 6s 8c 9d Th Js")) == 70  # no wrap


def test_best_discards_respects_the_allowed_cards() -> None:
    hand = cards("4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h")
    deadwood, choice = hs.best_discards(hand, allowed=cards("7h 9c"))
    assert choice == cards("7h") and deadwood == 10


def _reference_deadwood(hand: list[hs.Card]) -> int:
    """Brute force: the most card value covered by pairwise-disjoint melds."""
    melds = [m for m in hs.possible_melds(hand) if hs.is_meld(m)]
    best = 0
    for size in range(0, 4):
        for combo in itertools.combinations(melds, size):
            used = [c for m in combo for c in m]
            if len(used) == len(set(used)):
                best = max(best, sum(c.value for c in used))
    return sum(c.value for c in hand) - best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(hs.FULL_DECK), min_size=10, max_size=10, unique=True))
def test_min_deadwood_matches_brute_force(hand: list[hs.Card]) -> None:
    assert hs.min_deadwood(hand) == _reference_deadwood(hand)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(hs.FULL_DECK), min_size=11, max_size=11, unique=True))
def test_best_discards_matches_discarding_each_card_in_turn(hand: list[hs.Card]) -> None:
    each = {card: _reference_deadwood([c for c in hand if c != card]) for card in hand}
    best = min(each.values())
    assert hs.best_discards(hand) == (best, sorted(c for c in hand if each[c] == best))


# ------------------------------------------------------------------ in-process gRPC


def decide_request(**overrides: object) -> bot_pb2.DecideRequest:
    request = bot_pb2.DecideRequest(
        series_id="s-1",
        hand_number=2,
        decision_number=7,
        observation=bot_pb2.Observation(
            seat=1,
            dealer=0,
            phase=bot_pb2.PHASE_DRAW,
            hand=["Ac", "2c", "3c", "5d", "6d", "9h", "Th", "Jh", "Ks", "Qs"],
            discard_pile=["7c", "4d"],
            stock_size=29,
            opponent_hand_size=10,
            opponent_known_cards=["8c"],
            sheet=bot_pb2.ScoreSheet(
                players=[
                    bot_pb2.PlayerSheet(game_scores=[30, 0, 0], hands_won=1),
                    bot_pb2.PlayerSheet(game_scores=[0, 0, 0], hands_won=0),
                ],
                games=[bot_pb2.GameStatus(), bot_pb2.GameStatus(), bot_pb2.GameStatus()],
            ),
        ),
        legal_actions=[
            bot_pb2.Action(kind=bot_pb2.ACTION_KIND_DRAW_STOCK),
            bot_pb2.Action(kind=bot_pb2.ACTION_KIND_DRAW_DISCARD),
        ],
        profile=bot_pb2.RuleProfile(name="friendly", knock_limit=10, gin_bonus=25,
                                    undercut_bonus=25, game_target=100,
                                    no_discard_of_taken_card=True, dead_hand_stock=2,
                                    max_hands=200, profile_json='{"name": "friendly"}',
                                    knock_discard_face_down=True),
        deadline_ms=1000,
        reserve_ms=30000,
    )
    for name, value in overrides.items():
        setattr(request, name, value)
    return request


class RecordingBot(hs.Bot):
    name = "recorder"
    version = "2.0"

    def __init__(self) -> None:
        self.seen: list[hs.Observation] = []
        self.hands: list[hs.HandResult] = []
        self.series: list[hs.SeriesResult] = []

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.seen.append(observation)
        if observation.decision_number == 99:
            raise RuntimeError("boom at 99")
        return observation.legal_actions[-1]

    def on_hand_end(self, result: hs.HandResult) -> None:
        self.hands.append(result)
        raise ValueError("a broken hook must not break the server")

    def on_series_end(self, result: hs.SeriesResult) -> None:
        self.series.append(result)


@pytest.fixture
def served() -> Iterator[tuple[RecordingBot, bot_pb2_grpc.BotServiceStub]]:
    bot = RecordingBot()
    with tempfile.TemporaryDirectory(prefix="hg-") as tmp:
        target = f"unix:{tmp}/b.sock"
        server = hs.start_server(bot, target)
        channel = grpc.insecure_channel(target)
        try:
            yield bot, bot_pb2_grpc.BotServiceStub(channel)
        finally:
            channel.close()
            server.stop(None)


def test_handshake_reports_identity_and_protocol_version(
    served: tuple[RecordingBot, bot_pb2_grpc.BotServiceStub],
) -> None:
    _, stub = served
    reply = stub.Handshake(bot_pb2.HandshakeRequest(protocol_version=1), timeout=5)
    assert (reply.name, reply.version, reply.protocol_version) == ("recorder", "2.0", 1)
    assert hs.PROTOCOL_VERSION == bot_pb2.PROTOCOL_VERSION_1


def test_identity_defaults_to_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "mybot"\nversion = "1.2.3"\nauthor = "Ann"\n')
    identity = hs.server.identity_of(hs.Bot(), tmp_path)
    assert identity == hs.Identity("mybot", "1.2.3", "Ann")


def test_decide_gives_the_bot_a_typed_view_and_returns_its_action(
    served: tuple[RecordingBot, bot_pb2_grpc.BotServiceStub],
) -> None:
    bot, stub = served
    reply = stub.Decide(decide_request(), timeout=5)
    assert reply.action.kind == bot_pb2.ACTION_KIND_DRAW_DISCARD
    view = bot.seen[0]
    assert view.phase is hs.Phase.DRAW and view.seat == 1
    assert view.top_discard == hs.Card.parse("4d") and view.hand[0] == hs.Card.parse("Ac")
    assert view.opponent_known_cards == (hs.Card.parse("8c"),)
    assert view.sheet.scores[0] == (30, 0, 0) and view.sheet.game_winner == (None, None, None)
    assert view.profile.no_discard_of_taken_card and view.profile.raw == {"name": "friendly"}
    assert view.profile.knock_discard_face_down and not view.profile.winner_deals_next
    assert view.legal_actions == (hs.Action.draw_stock(), hs.Action.draw_discard())
    assert (view.deadline_ms, view.reserve_ms, view.decision_number) == (1000, 30000, 7)
    assert view.can(hs.ActionKind.DRAW_STOCK) and not view.can(hs.ActionKind.KNOCK)


def test_a_bot_exception_fails_the_call_and_is_logged_not_fatal(
    served: tuple[RecordingBot, bot_pb2_grpc.BotServiceStub],
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, stub = served
    with pytest.raises(grpc.RpcError) as caught:
        stub.Decide(decide_request(decision_number=99), timeout=5)
    assert caught.value.code() is grpc.StatusCode.UNKNOWN
    assert "RuntimeError: boom at 99" in caught.value.details()
    assert "boom at 99" in capfd.readouterr().err
    # The server survives and keeps answering.
    assert stub.Decide(decide_request(), timeout=5).action.kind == bot_pb2.ACTION_KIND_DRAW_DISCARD


def test_hand_and_series_hooks_receive_results(
    served: tuple[RecordingBot, bot_pb2_grpc.BotServiceStub],
) -> None:
    bot, stub = served
    stub.HandEnded(
        bot_pb2.HandEndedRequest(
            series_id="s-1", hand_number=3, seat=0, outcome=bot_pb2.HAND_OUTCOME_UNDERCUT,
            knocker=1, winner=0, points=31,
            hands=[bot_pb2.ExposedHand(cards=["As"], deadwood=1), bot_pb2.ExposedHand()],
            layoffs=[bot_pb2.Layoff(card="7h", meld_index=0)],
        ),
        timeout=5,
    )
    stub.SeriesEnded(
        bot_pb2.SeriesEndedRequest(series_id="s-1", seat=0, end=bot_pb2.SERIES_END_FORFEIT,
                                   winner=0, games_won=[0, 0], fault_seat=1,
                                   fault_kind="timeout"),
        timeout=5,
    )
    hand = bot.hands[0]
    assert (hand.outcome, hand.knocker, hand.winner, hand.points) == ("undercut", 1, 0, 31)
    assert hand.layoffs == ((hs.Card.parse("7h"), 0),)
    series = bot.series[0]
    assert (series.end, series.winner, series.fault_seat, series.fault_kind) == (
        "forfeit", 0, 1, "timeout")


def test_listen_target_prefers_the_socket_and_explains_what_is_missing() -> None:
    assert hs.listen_target({"HOLLYWOOD_BOT_SOCKET": "/run/b.sock",
                             "HOLLYWOOD_BOT_ADDRESS": "x:1"}) == "unix:/run/b.sock"
    assert hs.listen_target({"HOLLYWOOD_BOT_ADDRESS": "127.0.0.1:5000"}) == "127.0.0.1:5000"
    with pytest.raises(hs.ServeError, match="HOLLYWOOD_BOT_SOCKET"):
        hs.listen_target({})


def test_serve_shuts_down_on_sigterm_and_removes_its_socket() -> None:
    with tempfile.TemporaryDirectory(prefix="hg-") as tmp:
        socket_path = Path(tmp) / "b.sock"
        env = {**os.environ, "HOLLYWOOD_BOT_SOCKET": str(socket_path)}
        process = subprocess.Popen(
            [sys.executable, "-m", "random_bot"], cwd=REPO / "sample_bots" / "random", env=env,
            stderr=subprocess.PIPE, text=True,
        )
        try:
            give_up = time.monotonic() + 20
            while not socket_path.exists():
                assert process.poll() is None and time.monotonic() < give_up
                time.sleep(0.02)
            with grpc.insecure_channel(f"unix:{socket_path}") as channel:
                # The socket file appears when it is bound, a moment before the
                # server listens: wait for the channel to be ready.
                reply = bot_pb2_grpc.BotServiceStub(channel).Handshake(
                    bot_pb2.HandshakeRequest(protocol_version=1), timeout=10,
                    wait_for_ready=True)
            assert (reply.name, reply.version) == ("random", "1.0.0")
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0
            assert not socket_path.exists()
        finally:
            process.kill()
            process.wait()


def test_tcp_serving_for_bots_outside_containers() -> None:
    import socket

    from arena.match.botclient import BotClient

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = hs.listen_target({"HOLLYWOOD_BOT_ADDRESS": f"127.0.0.1:{port}"})
    server = hs.start_server(RecordingBot(), target)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            assert client.handshake(timeout=5).name == "recorder"
    finally:
        server.stop(None)
