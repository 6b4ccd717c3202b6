"""`arena play A B`: bots as folders or hand-started `tcp:` bots, every hand printed as
it is played, the final score sheet; the `tcp:` addresses and what is said when
nothing listens there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli.play import resolve_player, seat_names
from arena.core.faults import BotFault, FaultKind
from arena.sandbox.tcp import AddressError, HandStartedBot, TcpAddress
from engine.dealing import deal_hand
from tests.helpers.polling import wait_until
from tests.helpers.ports import accepts, free_port

REPO = Path(__file__).resolve().parents[3]
GREEDY = REPO / "sample_bots" / "greedy"


@pytest.fixture
def greedy_by_hand(tmp_path: Path) -> Iterator[int]:
    """The Python greedy sample bot started by hand (as an author would, in a
    terminal) on a TCP port; yields the port."""
    port = free_port()
    env = {**os.environ, "HOLLYWOOD_BOT_ADDRESS": f"localhost:{port}"}
    env.pop("HOLLYWOOD_BOT_SOCKET", None)
    with (tmp_path / "bot-stderr.txt").open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "greedy_bot"], cwd=GREEDY, env=env,
                                   stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_until(lambda: accepts(port) or process.poll() is not None,
                   what="the hand-started greedy bot to listen")
        assert process.poll() is None, (tmp_path / "bot-stderr.txt").read_text()
        yield port
        assert process.poll() is None, "arena play stopped a bot it did not start"
    finally:
        process.kill()
        process.wait()


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_play_against_a_hand_started_tcp_bot_prints_every_hand(greedy_by_hand: int) -> None:
    played = arena("play", str(GREEDY), f"tcp:localhost:{greedy_by_hand}", "--sandbox",
                   "process", "--series", "2", "--max-hands", "4", "--seed", "5", "--show")
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    out = played.stdout
    tcp = f"tcp:localhost:{greedy_by_hand}"  # its name: the arena starts nothing there
    assert f"arena play: greedy ({GREEDY}) vs {tcp}; 2 series" in out
    blocks = [block for block in re.split(r"─+ series play-\d: [^\n]*─+\n", out)[1:]]
    assert len(blocks) == 2, out
    for block in blocks:
        summary = re.search(r"series play-\d: .*\((?:games \d-\d, points \d+-\d+, )(\d+) hands",
                            block)
        assert summary is not None, block
        hands = int(summary[1])
        # Every hand played is printed, in order, each ending with its score sheet.
        assert re.findall(r"─ hand (\d+) ─", block) == [str(n) for n in range(1, hands + 1)]
        assert block.count("\nsheet after: ") == hands
        assert "final sheet: greedy " in block
    # --show prints the deal: hand 1 of the first series is the engine's deal for seed 5.
    deal = deal_hand(5, 1)
    first_hand = blocks[0].split("─ hand 1 ─", 1)[1]
    assert f"deal: greedy: {' '.join(str(c) for c in deal.hands[0])}" in first_hand
    assert f"      {tcp}: {' '.join(str(c) for c in deal.hands[1])}" in first_hand
    assert f"upcard: {deal.upcard}" in first_hand
    tally = re.search(rf"greedy won (\d), {tcp} won (\d), drawn (\d) of 2 series; "
                      r"0 forfeited by a fault", out)
    assert tally is not None and sum(int(n) for n in tally.groups()) == 2, out


def test_without_show_a_hand_is_only_how_it_ended(greedy_by_hand: int) -> None:
    played = arena("play", str(GREEDY), f"tcp:localhost:{greedy_by_hand}", "--sandbox",
                   "process", "--max-hands", "2")
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert "─ hand 1 ─" in played.stdout and "sheet after: " in played.stdout
    assert "deal: " not in played.stdout and "upcard: " not in played.stdout


@pytest.mark.parametrize(("reference", "message"), [
    ("tcp:localhost", "is not tcp:HOST:PORT"),
    ("tcp:localhost:99999", "the port must be 1-65535, got 99999"),
    ("tcp::50051", "is not tcp:HOST:PORT"),
])
def test_a_bad_tcp_address_is_refused(reference: str, message: str) -> None:
    played = arena("play", str(GREEDY), reference, "--sandbox", "process")
    assert played.returncode == 2
    assert message in played.stderr
    assert "Traceback" not in played.stderr


def test_an_unknown_bot_without_a_database_says_what_it_looked_for(tmp_path: Path) -> None:
    played = arena("play", str(GREEDY), "no-such-bot", "--sandbox", "process",
                   "--db", str(tmp_path / "none.db"))
    assert played.returncode == 2
    assert "'no-such-bot' is not a bot folder or tcp:HOST:PORT" in played.stderr
    assert not (tmp_path / "none.db").exists()


def test_two_bots_of_one_name_are_told_apart() -> None:
    greedy = resolve_player(str(GREEDY), Path("unused.db"))
    assert seat_names([greedy, greedy]) == ("greedy (A)", "greedy (B)")
    tcp = resolve_player("tcp:localhost:50051", Path("unused.db"))
    assert seat_names([greedy, tcp]) == ("greedy", "tcp:localhost:50051")


def test_tcp_addresses_parse() -> None:
    assert TcpAddress.parse("tcp:localhost:50051") == TcpAddress("localhost", 50051)
    assert TcpAddress.parse("tcp:127.0.0.1:1") == TcpAddress("127.0.0.1", 1)
    assert TcpAddress.parse("tcp:[::1]:8080").target == "[::1]:8080"
    for bad in ("localhost:50051", "tcp:localhost:", "tcp:local host:1", "tcp:host:0"):
        with pytest.raises(AddressError):
            TcpAddress.parse(bad)


def test_nothing_listening_is_a_startup_fault_saying_how_to_start_the_bot() -> None:
    port = free_port()  # nothing listens on it
    ticks = iter([0.0, 5.0])  # the start-up time is used up after the first attempt
    bot = HandStartedBot(TcpAddress("localhost", port), clock=lambda: next(ticks))
    with pytest.raises(BotFault) as raised:
        bot.wait_ready(timeout=1.0)
    assert raised.value.kind is FaultKind.STARTUP
    assert f"nothing accepts connections at localhost:{port}" in raised.value.message
    assert f"HOLLYWOOD_BOT_ADDRESS=localhost:{port}" in raised.value.message
    assert bot.stderr_tail() == "" and bot.fault_if_dead() is None


def test_two_hand_started_bots_need_no_sandbox(greedy_by_hand: int) -> None:
    """Both seats by hand (one process serving both, one series at a time): the
    sandbox named is never created, so not even Docker is needed."""
    tcp = f"tcp:localhost:{greedy_by_hand}"
    no_docker = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    played = arena("play", tcp, tcp, "--sandbox", "docker", "--max-hands", "2",
                   "--startup-seconds", "5", env=no_docker)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert f"{tcp} (A) won" in played.stdout and "sandbox docker" in played.stdout


def test_a_registered_bot_plays_from_its_registered_copy(tmp_path: Path) -> None:
    from arena.core.manifest import content_hash, iter_bot_files
    from arena.storage import Storage

    db = tmp_path / "arena.db"
    storage = Storage(db)
    storage.register_bot(name="greedy", version="1.0.0", language="python", author="",
                         description="", content_hash=content_hash(GREEDY),
                         source_folder=GREEDY, files=list(iter_bot_files(GREEDY)))
    storage.close()
    player = resolve_player("greedy", db)
    assert player.bot.name == "greedy" and player.address is None
    assert player.bot.folder == tmp_path / "arena.bots" / "greedy-1"
    assert resolve_player("greedy@1.0.0", db).bot.folder == player.bot.folder
    played = arena("play", "greedy", str(REPO / "sample_bots" / "random"), "--db", str(db),
                   "--sandbox", "process", "--max-hands", "1")
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert "─ hand 1 ─" in played.stdout
    unknown = arena("play", "greedie", str(GREEDY), "--db", str(db), "--sandbox", "process")
    assert unknown.returncode == 2
    assert "unknown bot 'greedie'; did you mean 'greedy'?" in unknown.stderr


def test_a_fault_is_shown_and_makes_the_exit_status_1() -> None:
    played = arena("play", str(GREEDY), str(REPO / "tests" / "hostile_bots" / "illegal_card"),
                   "--sandbox", "process", "--max-hands", "3")
    assert played.returncode == 1, played.stdout[-2000:] + played.stderr[-2000:]
    # The hostile bot answers its first decision, in hand 1, with a card it does not hold.
    assert re.search(r"FAULT \(hand 1, decision [12]\): hostile-illegal-card: illegal_action: ",
                     played.stdout), played.stdout
    assert "forfeit: hostile-illegal-card: illegal_action: " in played.stdout
    assert "greedy won 1, hostile-illegal-card won 0, drawn 0 of 1 series; 1 forfeited by a fault" \
        in played.stdout
