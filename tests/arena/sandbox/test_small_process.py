"""The ``small-process`` backend (two files: its module and its registry line) is a
``--sandbox`` choice, declares no capability beyond the process sandbox's, and
plays a series of the sample bots with 128 MiB each."""

from __future__ import annotations

from arena.cli.parser import build_parser
from arena.core.limits import TimeLimits
from arena.core.series import SeriesSpec
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.sandbox.config import MIB
from engine.profiles import get_profile
from tests.helpers.sandboxes import SAMPLE_BOTS, arena_leftovers, bot_ref


def test_small_process_is_a_choice_without_capabilities() -> None:
    args = build_parser().parse_args(["play", "random", "greedy", "--sandbox", "small-process"])
    assert args.sandbox == "small-process"
    assert registry.backend("small-process").capabilities == registry.Capabilities()


def test_small_process_plays_a_series_with_128_mib_each() -> None:
    sandbox = registry.create("small-process")
    assert sandbox.config.memory_bytes == 128 * MIB  # type: ignore[attr-defined]
    spec = SeriesSpec("small-1", 5, get_profile("friendly"), 20, False,
                      (bot_ref(SAMPLE_BOTS / "greedy"), bot_ref(SAMPLE_BOTS / "random")),
                      TimeLimits(startup_s=10.0, decision_s=0.3, reserve_s=0.5))
    outcome = run_series(spec, sandbox)
    assert outcome.fault is None and outcome.hands_played >= 1
    assert arena_leftovers() == []
