"""What each format adds beyond its pairings (issue 27): the settings it owns,
its season line, its seeds, the series it expects, and its standings extras
(columns, order, note, sections), checked against values written out by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats import (
    Knockout,
    Pairing,
    RoundRobin,
    SeasonView,
    Section,
    SprtMatch,
    Swiss,
    check_owned_settings,
    format_summary,
)
from arena.season.formats.knockout import Bracket, Tie, bracket_section
from arena.season.statistics.pentanomial import MatchEstimate, SprtSpec, SprtState
from arena.storage import PlannedSeries, SeriesRecord
from tests.helpers.arena_helpers import result

A, B, C = "a@1", "b@1", "c@1"


def record(pairing: Pairing, winner: int | None, series_id: str) -> SeriesRecord:
    return result(series_id, pairing.seat0, pairing.seat1, winner, seed=pairing.seed)


def test_a_setting_of_another_format_is_refused_unless_at_its_default() -> None:
    with pytest.raises(ConfigError, match="challenger is a setting of the gauntlet format, "
                                          "not of swiss"):
        check_owned_settings(SeasonConfig.build(format="swiss", challenger="x"))
    with pytest.raises(ConfigError, match="max_pairs is a setting of the sprt format, "
                                          "not of round-robin"):
        check_owned_settings(SeasonConfig.build(max_pairs=7))
    check_owned_settings(SeasonConfig.build(format="knockout", tiebreak_pairs=5))
    check_owned_settings(SeasonConfig.build(tiebreak_pairs=3))  # knockout's default


def test_the_season_line_names_the_formats_own_settings() -> None:
    assert format_summary(SeasonConfig.build(format="gauntlet", challenger=A)) == (
        f"gauntlet (challenger {A})")
    assert format_summary(SeasonConfig.build(format="sprt", sprt="elo0=0,elo1=5", max_pairs=9)) == (
        "sprt (elo0=0,elo1=5, at most 9 pairs)")
    assert format_summary(SeasonConfig()) == "round-robin"
    assert format_summary(SeasonConfig(format="from-a-newer-arena")) == "from-a-newer-arena"


def test_knockout_seeds_by_rating_and_expects_a_pair_per_tie() -> None:
    knockout = Knockout(1)
    assert knockout.seeded([A, B, C], lambda bots: {C: 5.0, B: 7.0}) == [B, C, A]
    assert knockout.expected_count(5, 3) == 2 * 4  # five bots: four ties
    assert knockout.expected_count(5, 12) == 12  # tie-break pairs planned beyond that
    assert RoundRobin(2).seeded([C, A], lambda bots: {A: 1.0}) == [C, A]
    assert RoundRobin(2).expected_count(4, 0) == 12


def test_swiss_adds_byes_score_and_buchholz_and_orders_the_table() -> None:
    # Round 1 of three bots: a beats b, c has the bye (worth one won series).
    pairing = Pairing(11, False, A, B)
    planned = [PlannedSeries("1-0", 1, 0, 11, False, A, B, 1)]
    results = [record(pairing, 0, "1-0")]
    extras = Swiss(1, 1).standings(SeasonView(
        [A, B, C], 1, planned, results, [results], {A: 0.0, B: 0.0, C: 5.0}))
    assert extras.order == [C, A, B]  # a and c level on score and Buchholz: rating
    assert [(column.label, dict(column.cells)) for column in extras.columns] == [
        ("Byes", {A: "0", B: "0", C: "1"}),
        ("Score", {A: "1", B: "0", C: "1"}),
        ("Buchholz", {A: "0", B: "1", C: "0"}),
    ]
    assert extras.note == "Swiss: ordered by score (series points + byes), Buchholz, rating."
    assert extras.row_api[C] == {"byes": 1, "swiss_score": 1.0, "buchholz": 0.0}
    assert extras.row_api[B] == {"byes": 0, "swiss_score": 0.0, "buchholz": 1.0}


def test_the_bracket_section() -> None:
    bracket = Bracket([[Tie(1, A, None, 1, 0, winner=A, decided_by="bye"),
                        Tie(1, B, C, 2, 3, 2.0, 2.0, 2, B, "seed")],
                       [Tie(2, A, B, 1, 2)]], [], None)
    section = bracket_section(bracket)
    assert replace(section, legend=()) == Section(
        "Bracket", ("Round", "Higher seed", "Lower seed", "Score", "Pairs", "Through"),
        (("1", "(1) a@1", "bye", "", "0", "a@1 (bye)"),
         ("1", "(2) b@1", "(3) c@1", "2-2", "2", "b@1 (seed)"),
         ("2", "(1) a@1", "(2) b@1", "0-0", "0", "…")))
    # What each header means, for the website's legend: one line per header.
    assert len(section.legend) == len(section.headers)
    assert section.legend[5].startswith("who goes through and why")
    bracket.champion = B
    assert bracket_section(bracket).title == "Bracket — champion b@1"


def test_the_sprt_lines() -> None:
    match = SprtMatch(SprtSpec.parse("elo0=0,elo1=10"), 100)
    state = SprtState(match.spec, (1, 2, 3, 4, 5), 1.25, "",
                      MatchEstimate(35.2, -3.0, 74.1, 0.96))
    assert match.lines(state, A, B) == (
        "SPRT a@1 (A) vs b@1 (B), elo0=0,elo1=10,alpha=0.05,beta=0.05: undecided",
        "pairs 15/100  pentanomial [0 ¼ ½ ¾ 1] = [1 2 3 4 5]",
        "LLR 1.250  bounds [-2.944, 2.944]",  # ln(0.05/0.95), ln(0.95/0.05)
        "Elo of A over B +35.2 [-3.0, +74.1] (95 %)  LOS 96.0 %")
    decided = SprtState(match.spec, (0, 0, 0, 0, 9), 3.1, "H1", None)
    assert match.lines(decided, A, B)[0].endswith("accepted H1 (A is stronger by elo1 or more)")
    assert match.lines(decided, A, B)[3] == (
        "Elo of A over B +0.0 [+0.0, +0.0] (95 %)  LOS 0.0 %")
