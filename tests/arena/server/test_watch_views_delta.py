"""A watch delta (``arena.server.watch_views.standings_delta``) holds every cell that
changed: compared in place when the lists line up, by key when they do not."""

from __future__ import annotations

from hollywood.arena.v1 import arena_pb2

from arena.server.watch_views import standings_delta


def _cell(bot: str, opponent: str, won: int) -> arena_pb2.CrosstableCell:
    return arena_pb2.CrosstableCell(bot_id=bot, opponent_id=opponent, won=won)


def _standings(*cells: arena_pb2.CrosstableCell) -> arena_pb2.Standings:
    return arena_pb2.Standings(sequence=1, crosstable=list(cells))


def _sent(delta: arena_pb2.Standings | None) -> list[tuple[str, str, int]]:
    assert delta is not None
    return [(c.bot_id, c.opponent_id, c.won) for c in delta.crosstable]


def test_one_changed_cell_is_all_a_delta_holds() -> None:
    before = _standings(_cell("a", "b", 1), _cell("b", "a", 0), _cell("a", "c", 0))
    after = _standings(_cell("a", "b", 2), _cell("b", "a", 0), _cell("a", "c", 0))
    assert _sent(standings_delta(before, after)) == [("a", "b", 2)]


def test_cells_in_another_order_are_sent_never_lost() -> None:
    before = _standings(_cell("a", "b", 1), _cell("b", "a", 0))
    after = _standings(_cell("b", "a", 0), _cell("a", "b", 1))
    assert _sent(standings_delta(before, after)) == [("b", "a", 0), ("a", "b", 1)]


def test_a_new_cell_among_old_ones_is_found_by_key() -> None:
    before = _standings(_cell("a", "b", 1), _cell("b", "a", 0))
    after = _standings(_cell("a", "c", 1), _cell("a", "b", 1), _cell("b", "a", 0))
    assert _sent(standings_delta(before, after)) == [("a", "c", 1)]
