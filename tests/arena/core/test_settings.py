"""Season settings declared once: the docs table, the stored form, the proto
conversion and the command line all follow the declarations."""

from __future__ import annotations

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.parser import build_parser
from arena.cli.season_options import season_config_message, settings_table
from arena.core.limits import TimeLimits
from arena.core.settings import SETTINGS, ConfigError, SeasonConfig, all_settings
from arena.server.convert import config_from_message, config_message
from tests.helpers.arena_helpers import REPO_ROOT


def test_docs_settings_table_matches_the_declarations() -> None:
    docs = (REPO_ROOT / "docs" / "arena.md").read_text()
    section = docs.split("### Season settings\n\n", 1)[1]
    table = section.split("\n\n", 1)[0] + "\n"
    assert table == settings_table()


def test_every_setting_is_an_option_and_a_proto_field() -> None:
    fields = set(arena_pb2.SeasonConfig.DESCRIPTOR.fields_by_name)
    # A format setting without a field of its own travels in the generic map.
    assert {setting.proto_field for setting in all_settings() if setting.proto_field} | {
        "format_settings"} == fields
    args = build_parser().parse_args(["season", "create", "--bots", "a", "b"])
    assert all(hasattr(args, setting.option_dest) for setting in all_settings())
    assert {setting.name for setting in SETTINGS} < {setting.name for setting in all_settings()}


CONFIG = SeasonConfig(
    profile_name="classic", profile_overrides={"undercut_bonus": 20}, series_per_pair=4,
    limits=TimeLimits(startup_s=5.0, decision_s=0.5, reserve_s=10.0), sandbox="process",
    concurrency=3, max_hands=50, seed=77)
STORED = {
    "profile_name": "classic", "profile_overrides": {"undercut_bonus": 20},
    "series_per_pair": 4, "limits": {"startup_s": 5.0, "decision_s": 0.5, "reserve_s": 10.0},
    "sandbox": "process", "concurrency": 3, "max_hands": 50, "seed": 77,
    "format": "round-robin", "series_per_container": 25, "deactivate_after": 5,
}
# What this arena stored before the formats declared their settings: every format's
# settings, at their defaults, beside the common ones.
STORED_BEFORE = {
    **STORED, "challenger": "", "rounds": 0, "tiebreak_pairs": 3,
    "sprt": "elo0=0,elo1=10,alpha=0.05,beta=0.05", "max_pairs": 1000,
    "ladder_rounds": 0, "ladder_meetings": 0, "ladder_window": 1000,
    "ladder_gate": "none", "ladder_gate_sprt": "elo0=0,elo1=20,alpha=0.05,beta=0.05",
    "ladder_gate_max_pairs": 200, "ladder_gate_rule": "accepted-replaces",
}


def test_stored_form_round_trips_and_the_earlier_form_still_opens() -> None:
    assert CONFIG.to_dict() == STORED
    assert SeasonConfig.from_stored(STORED) == CONFIG
    assert SeasonConfig.from_stored(STORED_BEFORE) == CONFIG
    assert SeasonConfig.from_stored({"sandbox": "docker", "concurrency": 2}) == SeasonConfig(
        sandbox="docker", concurrency=2)


def test_stored_form_has_its_formats_settings_and_others_set() -> None:
    # Its own format's settings always; another's only when set (a league's divisions).
    ladder = SeasonConfig.build(format="ladder", ladder_window=500, rounds=4)
    stored = ladder.to_dict()
    assert {key: stored[key] for key in stored if key not in STORED} == {
        "ladder_rounds": 0, "ladder_meetings": 0, "ladder_window": 500, "ladder_gate": "none",
        "ladder_gate_sprt": "elo0=0,elo1=20,alpha=0.05,beta=0.05",
        "ladder_gate_max_pairs": 200, "ladder_gate_rule": "accepted-replaces", "rounds": 4}
    assert SeasonConfig.from_stored(stored) == ladder


def test_proto_conversion_both_ways() -> None:
    message = config_message(CONFIG)
    assert message == arena_pb2.SeasonConfig(
        profile="classic", profile_overrides={"undercut_bonus": "20"}, series_per_pair=4,
        startup_seconds=5.0, decision_seconds=0.5, reserve_seconds=10.0,
        sandbox_backend="process", concurrency=3, max_hands=50, seed=77,
        format="round-robin", tiebreak_pairs=3, sprt="elo0=0,elo1=10,alpha=0.05,beta=0.05",
        max_pairs=1000, ladder_window=1000, series_per_container=25, deactivate_after=5,
        ladder_gate="none", ladder_gate_sprt="elo0=0,elo1=20,alpha=0.05,beta=0.05",
        ladder_gate_max_pairs=200, ladder_gate_rule="accepted-replaces")
    assert config_from_message(message) == CONFIG


def test_command_line_options_become_the_request() -> None:
    args = build_parser().parse_args([
        "season", "create", "--bots", "a", "b", "--profile", "classic", "--set",
        "undercut_bonus=20", "--series-per-pair", "4", "--startup-seconds", "5",
        "--decision-seconds", "0.5", "--reserve-seconds", "0", "--sandbox", "process",
        "--concurrency", "3", "--max-hands", "50", "--seed", "77"])
    assert season_config_message(args) == arena_pb2.SeasonConfig(
        profile="classic", profile_overrides={"undercut_bonus": "20"}, series_per_pair=4,
        startup_seconds=5.0, decision_seconds=0.5, reserve_seconds=1e-9,
        sandbox_backend="process", concurrency=3, max_hands=50, seed=77)
    defaults = build_parser().parse_args(["season", "create", "--bots", "a", "b"])
    assert season_config_message(defaults) == arena_pb2.SeasonConfig()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"series_per_pair": 0}, "series_per_pair must be between 1 and 1000, got 0"),
        ({"max_hands": True}, "max_hands must be an integer, got True"),
        ({"decision_s": 0.0}, "time limits: decision_s must be more than 0 s, got 0"),
        ({"reserve_s": -1.0}, "time limits: reserve_s must be at least 0 s, got -1"),
        ({"startup_s": 4000.0}, "time limits: startup_s must be at most 3600 s, got 4000"),
        ({"sandbox": "Not A Name"}, "sandbox 'Not A Name' is not a sandbox name"),
        ({"speed": 3}, "unknown season setting(s): speed"),
    ],
)
def test_bad_values_name_the_setting(values: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        SeasonConfig.build(**values)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--series-per-pair", "0", "must be at least 1, got 0"),
        ("--seed", "-1", "must be at least 0, got -1"),
        ("--max-hands", "x", "'x' is not a whole number"),
        ("--startup-seconds", "0", "must be more than 0, got 0"),
        ("--reserve-seconds", "-1", "must be at least 0, got -1"),
        ("--decision-seconds", "nan", "must be a finite number, got nan"),
    ],
)
def test_bad_options_exit_2(capsys, option: str, value: str, message: str) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["season", "create", "--bots", "a", "b", option, value])
    assert exited.value.code == 2
    assert f"argument {option}: {message}" in capsys.readouterr().err


def test_fresh_container_per_series_is_one_series_per_container() -> None:
    def parsed(*extra: str) -> arena_pb2.SeasonConfig:
        return season_config_message(build_parser().parse_args(
            ["season", "create", "--bots", "a", "b", *extra]))

    assert parsed("--fresh-container-per-series").series_per_container == 1
    assert parsed("--series-per-container", "7").series_per_container == 7
    assert parsed().series_per_container == 0  # the server's default
    assert SeasonConfig.build().series_per_container == 25
    with pytest.raises(ConfigError, match="series_per_container"):
        SeasonConfig.build(series_per_container=0)
