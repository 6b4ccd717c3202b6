"""``arena.season.open_rounds``: a ladder's runner reads each round's results from
storage once (``RoundsRead``) and still sees exactly what storage holds, a round
stored only in part included."""

from __future__ import annotations

from pathlib import Path

from arena.season.formats import OpenEnded, format_for
from arena.season.ladder_gating import GateMatches
from arena.season.open_rounds import RoundsRead, plan_open_round
from arena.storage import Storage
from tests.arena.season.test_ladder import make_ladder
from tests.helpers.arena_helpers import made_up_outcome


def test_rounds_read_once_are_what_storage_holds_round_after_round(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    config = storage.get_season(season_id).config
    ladder = format_for("ladder", config)
    assert isinstance(ladder, OpenEnded)
    gates = GateMatches(lambda _: None, lambda _: None)
    read = RoundsRead()
    profile = config.profile().to_dict()
    for _ in range(4):
        assert plan_open_round(storage, season_id, ladder, config, gates, read)
        pending = storage.pending_series(season_id)
        assert len(pending) >= 2
        # Half the round stored: read as it is, then again once it is complete.
        for planned in pending[:1]:
            storage.store_result(planned, made_up_outcome(planned.series_id, winner=0), profile)
        assert read.results(storage, season_id) == storage.results_by_round(season_id)
        for planned in pending[1:]:
            storage.store_result(planned, made_up_outcome(planned.series_id, winner=1), profile)
        assert read.results(storage, season_id) == storage.results_by_round(season_id)
    rounds = read.results(storage, season_id)
    assert [len(results) for results in rounds] == [
        len(results) for results in storage.results_by_round(season_id)]
    assert len(rounds) == 4 and all(rounds)
    # Another season through the same reader: read from its start, not mixed in.
    other = make_ladder(storage, tmp_path / "more-bots")
    assert read.results(storage, other) == storage.results_by_round(other) == []
    storage.close()
