"""The circle format (a demonstration of a format with a setting of its own, issue
37): its plan, and its setting in the options, the API and the settings table."""

from __future__ import annotations

from hollywood.arena.v1 import arena_pb2

from arena.cli.parser import build_parser
from arena.cli.season_options import format_settings_table, season_config_message
from arena.core.settings import SeasonConfig
from arena.season.formats import format_for
from arena.server.convert import config_from_message, config_message

BOTS = ("a@1", "b@1", "c@1", "d@1", "e@1")


def test_each_bot_meets_the_next_ones_on_the_circle() -> None:
    circle = format_for("circle", SeasonConfig.build(format="circle", circle_reach=2,
                                                     series_per_pair=2))
    plan = circle.first_round(BOTS, 7)
    meetings = {frozenset((p.seat0, p.seat1)) for p in plan}
    assert meetings == {frozenset(pair) for pair in (
        ("a@1", "b@1"), ("b@1", "c@1"), ("c@1", "d@1"), ("d@1", "e@1"), ("e@1", "a@1"),
        ("a@1", "c@1"), ("b@1", "d@1"), ("c@1", "e@1"), ("d@1", "a@1"), ("e@1", "b@1"))}
    assert len(plan) == circle.planned_count(5) == 20
    # Reach 1 on 2 bots is one meeting, not the same one twice.
    assert len(format_for("circle", SeasonConfig.build(format="circle")).first_round(
        BOTS[:2], 7)) == 2


def test_its_setting_is_an_option_an_api_field_and_a_table_row() -> None:
    args = build_parser().parse_args(["season", "create", "--bots", "a", "b",
                                      "--format", "circle", "--circle-reach", "3"])
    message = season_config_message(args)
    assert message.format_settings == {"circle_reach": "3"}
    config = config_from_message(message)
    assert config_message(config).format_settings["circle_reach"] == "3"
    assert config_from_message(config_message(config)) == config
    assert "| `--circle-reach N` | 1 | circle: how many of the next bots" in (
        format_settings_table())
    assert arena_pb2.SeasonConfig.DESCRIPTOR.fields_by_name.get("circle_reach") is None
