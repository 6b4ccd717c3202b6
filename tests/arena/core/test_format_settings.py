"""A format's own settings, declared once as a ``FormatSettings`` dataclass in its
module (issue 37): typed values from a season's configuration, the stored form of
release 1 read back, the API's generic carrier for a setting without a proto
field, the options per format, and one default per common setting."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.parser import build_parser
from arena.cli.season_options import format_settings_table, season_config_message
from arena.core import settings
from arena.core.setting import ConfigError, FormatSettings, declared_settings, format_setting
from arena.core.settings import SeasonConfig, all_settings, register_format_settings
from arena.season.formats.ladder_settings import LadderSettings
from arena.season.formats.swiss import SwissSettings
from arena.server.convert import config_from_message, config_message
from arena.storage import season_config


def test_a_format_reads_its_settings_typed() -> None:
    config = SeasonConfig.build(format="ladder", ladder_window=500, ladder_gate="sprt")
    ladder = config.settings_for(LadderSettings)
    assert (ladder.ladder_window, ladder.ladder_gate, ladder.ladder_rounds) == (500, "sprt", 0)
    assert config.settings_for(SwissSettings) == SwissSettings(rounds=0)


def test_an_old_stored_form_opens_with_its_format_settings() -> None:
    # Release 1's flat form, a ladder's keys at the top level beside the others'.
    stored = ('{"format": "ladder", "ladder_window": 300, "rounds": 0, "challenger": "", '
              '"limits": {"decision_s": 0.5}, "concurrency": 2, "from_a_newer_arena": 1}')
    config = season_config(stored)
    assert config.settings_for(LadderSettings).ladder_window == 300
    assert (config.concurrency, config.limits.decision_s) == (2, 0.5)
    assert config.to_dict()["ladder_window"] == 300  # written back in the same form


def test_bounds_of_a_format_setting_are_checked_by_name() -> None:
    with pytest.raises(ConfigError, match="ladder_window must be between 2 and 1000000, got 1"):
        SeasonConfig.build(format="ladder", ladder_window=1)


def test_concurrency_has_one_default_the_cpu_count() -> None:
    cores = len(os.sched_getaffinity(0))
    assert SeasonConfig().concurrency == SeasonConfig.build().concurrency == cores


@dataclass(frozen=True)
class _PlantedSettings(FormatSettings):
    # A setting declared after the proto's generic map: it has no field of its own.
    planted_depth: int = format_setting(4, "planted: how deep", "--planted-depth", kind=int,
                                        low=1, high=9)


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_PlantedSettings`` registered for one test: the registry is put back after."""
    monkeypatch.setattr(settings, "_FORMAT_SETTINGS", dict(settings.format_settings_classes()))
    monkeypatch.setattr(settings, "_ALL_SETTINGS", [settings.all_settings()])
    register_format_settings("planted-format", _PlantedSettings)


def test_a_setting_without_a_proto_field_travels_in_the_generic_map(planted: None) -> None:
    assert [setting.name for setting in declared_settings(_PlantedSettings)] == [
        "planted_depth"]
    assert "planted_depth" in {setting.name for setting in all_settings()}
    config = SeasonConfig.build(planted_depth=7, sandbox="process")
    assert config.settings_for(_PlantedSettings).planted_depth == 7
    message = config_message(config)
    assert message.format_settings["planted_depth"] == "7"
    assert config_from_message(message) == config
    with pytest.raises(ConfigError, match="planted_depth must be between 1 and 9, got 10"):
        config_from_message(arena_pb2.SeasonConfig(format_settings={"planted_depth": "10"}))
    with pytest.raises(ConfigError, match="rounds is sent in its own field"):
        config_from_message(arena_pb2.SeasonConfig(format_settings={"rounds": "3"}))
    args = build_parser().parse_args(["season", "create", "--bots", "a", "b",
                                      "--planted-depth", "5"])
    assert season_config_message(args).format_settings == {"planted_depth": "5"}
    assert "| `--planted-depth N` | 4 | planted: how deep |" in format_settings_table()


def test_a_setting_name_is_owned_once() -> None:
    @dataclass(frozen=True)
    class Clash(FormatSettings):
        rounds: int = format_setting(1, "clash", "--clash", kind=int, low=0, high=3)

    with pytest.raises(ValueError, match="'rounds' of clash-format is declared twice"):
        register_format_settings("clash-format", Clash)


def test_the_planted_format_is_gone_after_its_test() -> None:
    # Runs after the planted test (file order): the registry was put back.
    assert "planted_depth" not in {setting.name for setting in all_settings()}
    assert "planted_depth" not in config_message(SeasonConfig.build()).format_settings
