"""Vetting plays a whole series within a time budget (issue 36, point 7): through a
real server vetting in the process sandbox (each bot its own process), a bot that
raises at hand 4 is rejected, its reason in the arena's words (kind, hand and
decision) and its own words and stderr in its owner's validation log only, while a
good bot passes after a whole series; a series that outlasts the budget is
stopped there and judged on the hands played (a clock the test drives); an
opponent's fault is the arena's, and its words never reach this author's log."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.core.series import BotRef
from arena.match.validation import validate_bot
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import Sandbox
from arena.server.app import RunningServer
from tests.arena.server.test_vetting_integrity import status_of
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory

HAND = 4
# The random sample bot (a random opponent rarely ends a series before hand 4:
# it needs three wins of 100 points) that raises at its first decision of hand 4.
FAILING_CODE = f'''
import random
import sys

import hollywood_sdk as hs


class LateBot(hs.Bot):
    def decide(self, observation):
        if observation.hand_number >= {HAND}:
            print("late-bot: my secret plan fell apart", file=sys.stderr)
            raise RuntimeError("late-bot-words: out of ideas")
        return random.choice(observation.legal_actions)


if __name__ == "__main__":
    hs.serve(LateBot())
'''


def late_bot(root: Path) -> Path:
    folder = root / "late"
    shutil.copytree(REPO_ROOT / "sample_bots" / "random", folder)
    toml = (folder / "bot.toml").read_text().replace('name = "random"', 'name = "late"')
    (folder / "bot.toml").write_text(toml.replace('"random_bot"', '"late_bot"')
                                     .replace("random_bot:RandomBot", "late_bot:LateBot"))
    (folder / "random_bot.py").unlink()
    (folder / "late_bot.py").write_text(FAILING_CODE)
    return folder


@pytest.fixture
def server(serve: ServerFactory) -> RunningServer:
    return serve(runner=None, resume=False, vetting_sandbox="process")


def settled(client: ArenaClient, bot_id: str) -> str:
    wait_until(lambda: status_of(client, bot_id).bot.status in ("active", "rejected"),
               what=f"{bot_id} vetted", bound_s=120)
    return status_of(client, bot_id).bot.status


def test_a_bot_that_raises_at_hand_4_is_rejected_and_a_good_one_passes(
        server: RunningServer, tmp_path: Path) -> None:
    with ArenaClient(server.address, server.token) as client:
        # First, while no version is active: its opponent is the sample random bot,
        # which never ends a series before hand 4 (a greedy one might).
        client.submit(pack(late_bot(tmp_path)))
        assert settled(client, "late@1.0.0") == "rejected"
        version = status_of(client, "late@1.0.0")
        client.submit(pack(REPO_ROOT / "sample_bots" / "greedy"))
        assert settled(client, "greedy@1.0.0") == "active"
        good = status_of(client, "greedy@1.0.0").validation_log
    reason = version.status_detail
    assert re.match(rf"late faulted at hand {HAND}, decision \d+: crash: ", reason), reason
    assert "late-bot" not in reason  # the bot's words and stderr are not the reason
    log = version.validation_log
    assert "against random 1.0.0" in log
    assert f"hand {HAND - 1}:" in log and f"hand {HAND}:" not in log
    assert f"rejected: {reason}" in log
    assert "your bot said: " in log and "late-bot-words: out of ideas" in log
    assert "late-bot: my secret plan fell apart" in log  # its stderr tail
    assert version.rejection_cause == "author"

    assert re.search(r"passed: \d+ hand\(s\) played, points \d+-\d+", good), good
    played = [int(n) for n in re.findall(r"^hand (\d+):", good, re.MULTILINE)]
    assert played == list(range(1, len(played) + 1)) and len(played) >= 3  # to its end


class SteppedClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def inprocess() -> Iterator[Sandbox]:
    box = sandbox_registry.create("inprocess")
    yield box
    close = getattr(box, "close", None)
    if callable(close):
        close()


def test_a_series_that_outlasts_the_budget_is_stopped_and_judged_on_its_hands(
        inprocess: Sandbox) -> None:
    random_bot = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
    # 1 s a move against 30 s: the series (two random bots rarely end one early)
    # stops at its 30th move, in its first hand or two.
    result = validate_bot(random_bot, inprocess, budget_s=30, clock=SteppedClock(1.0),
                          seed=11, seat=0)
    assert result.passed, result.log
    assert re.search(r"passed: the vetting budget of 30 s ran out after \d hand\(s\) "
                     r"without a fault", result.log), result.log
    unbounded = validate_bot(random_bot, inprocess, seed=11, seat=0)
    assert unbounded.passed and "budget" not in unbounded.lines[-1], unbounded.log


def test_an_opponent_that_fails_is_the_arenas_and_its_words_are_not_shown(
        inprocess: Sandbox, tmp_path: Path) -> None:
    random_bot = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
    late = BotRef.from_folder(late_bot(tmp_path))
    result = validate_bot(random_bot, inprocess, opponent=late, seat=0, seed=11)
    assert not result.passed and result.fault is not None
    assert result.fault.bot_words  # the opponent did say something...
    assert re.match(rf"the arena's opponent bot failed, not yours: the opponent late faulted "
                    rf"at hand {HAND}, decision \d+: ", result.reason), result.reason
    assert "late-bot" not in result.log  # ...which is its owner's, not this author's
    assert "your bot said" not in result.log
