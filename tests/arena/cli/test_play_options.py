"""`arena play`'s season options come from the settings' declarations
(arena/core/settings.py SETTINGS), as `season run` and `season create` do: the same
flags, argument names and bounds, with play's own defaults where it has them."""

from __future__ import annotations

import argparse

import pytest

from arena.cli.parser import build_parser
from arena.cli.play import PLAY_SETTINGS
from arena.core.settings import SETTINGS_BY_NAME


def play_parser() -> argparse.ArgumentParser:
    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = commands.choices["play"]
    return parser


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: action for action in parser._actions for flag in action.option_strings}


def test_play_lists_the_options_of_its_settings_declarations() -> None:
    options = options_of(play_parser())
    declared = {SETTINGS_BY_NAME[name].flag for name in PLAY_SETTINGS}
    assert declared == {"--sandbox", "--seed", "--profile", "--max-hands",
                        "--startup-seconds", "--decision-seconds", "--reserve-seconds",
                        "--series-per-container"}
    assert set(options) == declared | {"-h", "--help", "--series", "--show", "--db",
                                       "--fresh-container-per-series"}
    for name in PLAY_SETTINGS:
        setting = SETTINGS_BY_NAME[name]
        action = options[setting.flag]
        assert action.dest == setting.option_dest
        # The sandbox option lists its choices (the registered backends) instead.
        assert action.metavar == (None if name == "sandbox" else setting.metavar)
    assert {"docker", "process", "inprocess"} <= set(options["--sandbox"].choices or ())


def test_the_help_shows_each_option() -> None:
    shown = play_parser().format_help()
    for flag in ("--sandbox", "--seed N", "--profile NAME", "--max-hands N",
                 "--startup-seconds S", "--decision-seconds S", "--reserve-seconds S"):
        assert flag in shown


def test_defaults_are_plays_own() -> None:
    args = play_parser().parse_args(["a", "b"])
    assert (args.sandbox, args.seed, args.profile, args.max_hands) == (
        "docker", 1, "friendly", 200)
    assert (args.startup_s, args.decision_s, args.reserve_s) == (
        20.0, 1.0, 30.0)


def test_given_values_are_parsed() -> None:
    args = play_parser().parse_args(
        ["a", "b", "--sandbox", "process", "--seed", "9", "--profile", "classic",
         "--max-hands", "7", "--startup-seconds", "60", "--decision-seconds", "2.5",
         "--reserve-seconds", "0"])
    assert (args.sandbox, args.seed, args.profile, args.max_hands) == (
        "process", 9, "classic", 7)
    assert (args.startup_s, args.decision_s, args.reserve_s) == (
        60.0, 2.5, 0.0)


@pytest.mark.parametrize(("words", "message"), [
    (["--max-hands", "0"], "must be at least 1, got 0"),
    (["--max-hands", "10001"], "must be at most 10000, got 10001"),
    (["--decision-seconds", "0"], "must be more than 0, got 0"),
    (["--seed", "-1"], "must be at least 0, got -1"),
    (["--sandbox", "vm"], "invalid choice: 'vm'"),
])
def test_bad_values_are_refused_as_declared(
    words: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        play_parser().parse_args(["a", "b", *words])
    assert message in capsys.readouterr().err
