"""StandingsState's bookkeeping pinned by hand-made fixtures (kills the mutants that
tests/arena/season/test_standings.py's tables cannot see): the bot ids and sequence it reports, and
the copy-on-write of published tables."""

from __future__ import annotations

from dataclasses import replace

from arena.season.standings import HeadToHead, StandingRow, StandingsState
from tests.helpers.arena_helpers import result

A, B, C = "alpha@1", "beta@1", "gamma@1"


def test_a_new_state_names_its_bots_in_order_and_has_applied_nothing() -> None:
    state = StandingsState([B, A, C])
    assert state.bot_ids == (B, A, C)
    assert state.sequence == 0


def test_sequence_is_the_highest_stored_seq_applied() -> None:
    state = StandingsState([A, B])
    state.apply(replace(result("1-0", A, B, 0), stored_seq=7))
    assert state.sequence == 7
    state.apply(replace(result("1-1", B, A, 0), stored_seq=3))
    assert state.sequence == 7
    state.apply(replace(result("1-2", A, B, None), stored_seq=9))
    assert state.sequence == 9


def test_a_published_table_keeps_its_crosstable_when_later_results_arrive() -> None:
    state = StandingsState([A, B, C])
    state.apply(result("1-0", A, B, 0))
    first = state.table()
    state.apply(result("1-1", B, A, 0))
    state.apply(result("1-2", A, C, None))
    second = state.table()
    state.apply(result("1-3", C, A, 1))
    third = state.table()
    # Each table shows exactly the results applied before it was published.
    assert first.crosstable == {A: {B: HeadToHead(won=1)}, B: {A: HeadToHead(lost=1)}, C: {}}
    assert second.crosstable == {
        A: {B: HeadToHead(won=1, lost=1), C: HeadToHead(drawn=1)},
        B: {A: HeadToHead(won=1, lost=1)},
        C: {A: HeadToHead(drawn=1)},
    }
    assert third.crosstable[A] == {B: HeadToHead(won=1, lost=1), C: HeadToHead(won=1, drawn=1)}
    assert third.crosstable[C] == {A: HeadToHead(lost=1, drawn=1)}
    assert [first.row(bot).series_played for bot in (A, B, C)] == [1, 1, 0]


def test_a_row_shows_its_rating_to_four_decimals() -> None:
    row = StandingRow(A, rating_mu=27.123456, rating_sigma=6.987654)
    shown = row.to_dict()
    # mu - 3 sigma = 27.123456 - 20.962962 = 6.160494
    assert (shown["rating_mu"], shown["rating_sigma"], shown["rating_ordinal"]) == (
        27.1235, 6.9877, 6.1605)


def test_a_published_table_keeps_its_rows_and_ranks_when_later_results_reorder_them() -> None:
    state = StandingsState([A, B, C])
    state.apply(result("1-0", A, B, 0))
    first = state.table()

    def lines(table: object) -> list[tuple[str, int, int, int]]:
        return [(row.bot_id, row.rank, row.series_played, row.series_won)
                for row in table.rows]  # type: ignore[attr-defined]

    # C has no result: its ordinal (0) is above B's after a loss.
    expected_first = [(A, 1, 1, 1), (C, 2, 0, 0), (B, 3, 1, 0)]
    assert lines(first) == expected_first
    state.apply(result("1-1", C, B, 0))
    state.apply(result("1-2", C, A, 0))
    state.apply(result("1-3", A, C, 1))
    second = state.table()
    assert lines(second) == [(C, 1, 3, 3), (A, 2, 3, 1), (B, 3, 2, 0)]
    assert lines(first) == expected_first
    state.apply(result("1-4", B, A, 0))
    state.apply(result("1-5", B, C, 0))
    assert lines(state.table()) == [(C, 1, 4, 3), (B, 2, 4, 2), (A, 3, 4, 1)]
    assert lines(second) == [(C, 1, 3, 3), (A, 2, 3, 1), (B, 3, 2, 0)]


def test_a_published_rank_stays_when_a_bot_that_did_not_play_moves() -> None:
    d = "delta@1"
    state = StandingsState([A, B, C, d])
    empty = [(A, 1), (B, 2), (d, 3), (C, 4)]  # no results: by id
    first = state.table()
    assert [(row.bot_id, row.rank) for row in first.rows] == empty
    state.apply(result("1-0", d, A, 0))
    # delta leads on points; beta and gamma (no result, ordinal 0) pass alpha (a loss).
    assert [(row.bot_id, row.rank) for row in state.table().rows] == [
        (d, 1), (B, 2), (C, 3), (A, 4)]
    assert [(row.bot_id, row.rank) for row in first.rows] == empty
