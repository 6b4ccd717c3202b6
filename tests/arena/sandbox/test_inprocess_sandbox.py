"""The in-process sandbox: SDK bot classes named in bot.toml, called inside the arena,
playing over the real match loop with the same faults; the runner prepares every
bot before its start-up clock; sdk_class is validated with clear errors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import BotManifest, ManifestError
from arena.core.series import BotRef
from arena.match.runner import run_series
from arena.sandbox.config import SandboxConfig
from arena.sandbox.inprocess import (
    InProcessBot,
    InProcessSandbox,
    load_bot_class,
    remove_leftovers_of_dead_arenas,
)
from engine.series import Series
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.series_specs import spec

SAMPLES = REPO_ROOT / "sample_bots"


def sdk_bot(tmp_path: Path, name: str, code: str, sdk_class: str = "") -> BotRef:
    """A bot folder whose module holds ``code`` and whose bot.toml names ``sdk_class``."""
    folder = make_bot_folder(tmp_path, name, code=code)
    module = name.replace("-", "_")
    manifest = (folder / "bot.toml").read_text()
    if sdk_class:
        manifest = manifest.replace("[run]\n", f'[run]\nsdk_class = "{sdk_class}"\n')
    (folder / "bot.toml").write_text(manifest)
    assert (folder / f"{module}.py").is_file()
    return BotRef.from_folder(folder)


def test_sample_bots_play_a_series_in_process_that_the_engine_replays() -> None:
    greedy, rand = BotRef.from_folder(SAMPLES / "greedy"), BotRef.from_folder(SAMPLES / "random")
    events: list[dict[str, Any]] = []
    outcome = run_series(spec(greedy, rand, swap_seats=True), InProcessSandbox(),
                         on_event=events.append)
    assert outcome.fault is None
    result = Series.replay(outcome.log).result
    assert result is not None
    assert (outcome.winner, outcome.games_won, outcome.points, outcome.hands_played) == (
        result.winner, result.games_won, result.points, result.hands_played)
    assert events[-1]["type"] == "series_end"


def test_a_bot_whose_decide_raises_forfeits_with_a_crash(tmp_path: Path) -> None:
    broken = sdk_bot(tmp_path, "broken", (
        "import hollywood_sdk as hs\n"
        "class Broken(hs.Bot):\n"
        "    def decide(self, observation):\n"
        "        raise ValueError('no idea')\n"), "broken:Broken")
    outcome = run_series(spec(broken, BotRef.from_folder(SAMPLES / "greedy")),
                         InProcessSandbox())
    assert outcome.fault is not None
    assert outcome.fault.kind is FaultKind.CRASH and outcome.fault.seat == 0
    # The arena's words in public; what the bot said, in its owner's seat log only.
    assert outcome.fault.message == "the bot failed Decide with status UNKNOWN"
    assert "ValueError: no idea" in outcome.fault.bot_words
    assert "ValueError: no idea" in outcome.seat_logs[0].fault_words
    assert outcome.seat_logs[1].fault_words == ""
    assert outcome.winner == 1


def test_two_versions_of_one_bot_load_their_own_code(tmp_path: Path) -> None:
    code = ("import hollywood_sdk as hs\n"
            "class Versioned(hs.Bot):\n"
            "    answer = {answer}\n"
            "    def decide(self, observation):\n"
            "        return observation.legal_actions[0]\n")
    first = sdk_bot(tmp_path / "one", "versioned", code.format(answer=1), "versioned:Versioned")
    second = sdk_bot(tmp_path / "two", "versioned", code.format(answer=2), "versioned:Versioned")
    assert load_bot_class(first).answer == 1  # type: ignore[attr-defined]
    assert load_bot_class(second).answer == 2  # type: ignore[attr-defined]
    assert load_bot_class(first).__module__ != load_bot_class(second).__module__


@pytest.mark.parametrize(
    ("code", "sdk_class", "message"),
    [
        ("x = 1\n", "", "bot.toml names no SDK bot class ([run] sdk_class)"),
        ("x = 1\n", "nameless:Missing", "has no class Missing deriving from hollywood_sdk.Bot"),
        ("class NotABot:\n    pass\n", "nameless:NotABot",
         "has no class NotABot deriving from hollywood_sdk.Bot"),
        ("raise RuntimeError('boom')\n", "nameless:Bot",
         "importing nameless.py failed: RuntimeError: boom"),
    ],
)
def test_a_class_that_cannot_be_loaded_is_a_clear_error(
    tmp_path: Path, code: str, sdk_class: str, message: str
) -> None:
    bot = sdk_bot(tmp_path, "nameless", code, sdk_class)
    with pytest.raises(ManifestError) as caught:
        load_bot_class(bot)
    assert message in str(caught.value)
    with pytest.raises(BotFault) as fault:
        InProcessSandbox().prepare(bot)
    assert fault.value.kind is FaultKind.STARTUP and message in fault.value.message


@pytest.mark.parametrize(
    ("sdk_class", "message"),
    [
        ("greedy_bot", 'run.sdk_class must be "module:Class"'),
        ("greedy_bot:Greedy Bot", 'run.sdk_class must be "module:Class"'),
        ("pkg.mod:Bot", 'run.sdk_class must be "module:Class"'),
        ("missing_module:Bot", "names module 'missing_module', but"),
    ],
)
def test_manifest_checks_sdk_class(tmp_path: Path, sdk_class: str, message: str) -> None:
    folder = make_bot_folder(tmp_path, "checked")
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(
        manifest.replace("[run]\n", f'[run]\nsdk_class = "{sdk_class}"\n'))
    with pytest.raises(ManifestError) as caught:
        BotManifest.load(folder)
    assert message in str(caught.value)


def test_sample_python_bots_name_their_classes() -> None:
    assert {name: BotManifest.load(SAMPLES / name).sdk_class
            for name in ("random", "greedy", "shark")} == {
        "random": "random_bot:RandomBot", "greedy": "greedy_bot:GreedyBot",
        "shark": "shark_bot:SharkBot"}


def test_a_started_bot_is_its_object_handed_to_the_match_with_nothing_served(
        tmp_path: Path) -> None:
    sandbox = InProcessSandbox(SandboxConfig(socket_dir_root=str(tmp_path)))
    running = sandbox.start(BotRef.from_folder(SAMPLES / "greedy"))
    assert isinstance(running, InProcessBot)
    target = running.in_process_target
    assert target is not None
    assert type(target.bot).__name__ == "GreedyBot"
    assert (target.name, target.version, target.author) == (
        "greedy", "1.0.0", "Hollywood Gin Arena")
    running.wait_ready(0.0)  # ready at once: nothing to wait for
    assert running.fault_if_dead() is None
    running.stop()
    assert list(tmp_path.iterdir()) == []  # no socket, no work directory
    assert running.fault_if_dead() is None


def test_socket_directories_of_a_dead_arena_are_removed(tmp_path: Path) -> None:
    dead = tmp_path / "hwi-999999999-abc"  # no such pid
    alive = tmp_path / f"hwi-{os.getpid()}-def"
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "bot.sock").touch()
    assert remove_leftovers_of_dead_arenas(str(tmp_path)) == 1
    assert not dead.exists() and alive.exists()


class RecordingSandbox(InProcessSandbox):
    """An in-process sandbox that records the calls and fails to prepare one bot."""

    def __init__(self, refuse: str = "") -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []
        self.refuse = refuse

    def prepare(self, bot: BotRef) -> None:
        self.calls.append(("prepare", bot.name))
        if bot.name == self.refuse:
            raise BotFault(FaultKind.STARTUP, "the image did not build")
        super().prepare(bot)

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None, deal: str = ""
              ) -> InProcessBot:
        self.calls.append(("start", bot.name))
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)


def test_runner_prepares_both_bots_before_starting_either() -> None:
    sandbox = RecordingSandbox()
    greedy, rand = BotRef.from_folder(SAMPLES / "greedy"), BotRef.from_folder(SAMPLES / "random")
    outcome = run_series(spec(greedy, rand, max_hands=2), sandbox)
    assert outcome.fault is None
    assert sandbox.calls == [("prepare", "greedy"), ("prepare", "random"),
                             ("start", "greedy"), ("start", "random")]


def test_a_prepare_failure_is_that_bots_start_up_forfeit() -> None:
    sandbox = RecordingSandbox(refuse="random")
    greedy, rand = BotRef.from_folder(SAMPLES / "greedy"), BotRef.from_folder(SAMPLES / "random")
    outcome = run_series(spec(greedy, rand), sandbox)
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat) == (FaultKind.STARTUP, 1)
    assert outcome.fault.message == "the image did not build"
    assert outcome.winner == 0 and outcome.hands_played == 0
    assert ("start", "random") not in sandbox.calls
