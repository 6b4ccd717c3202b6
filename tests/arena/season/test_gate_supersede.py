"""One gate match per bot name (issue 43 point 6): versions uploaded in a row used
to leave every earlier version's gate match playing. Here a real season manager
plays the matches (the older one's series held in flight); when a newer version's
gate opens, the older version's unfinished match is cancelled: it starts no other
series, is never resumed, and its gate is decided ``superseded``, while the newer
version's match plays to its verdict."""

from __future__ import annotations

import threading
from pathlib import Path

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.status import SeasonStatus
from arena.execution import local_executor_factory
from arena.season.events import EventHub
from arena.season.formats import LADDER_FORMAT, OpenEnded, format_for
from arena.season.ladder_gating import GateMatches, held_off
from arena.season.manager import SeasonManager
from arena.storage import GateRecord, Storage, add_ladder_round, gates_of_ladder
from tests.helpers.arena_helpers import register_folder
from tests.helpers.gate_helpers import in_process_runner, make_gated_ladder, sample_as
from tests.helpers.polling import DEFAULT_BOUND_S, wait_until

HELD = "player@2.0.0"


class HoldsOneVersion:
    """Plays series in process, but holds those of ``HELD`` until released."""

    def __init__(self) -> None:
        self.run = in_process_runner()
        self.release = threading.Event()
        self.held: list[str] = []

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        if HELD in {f"{bot.name}@{bot.version}" for bot in spec.bots}:
            self.held.append(spec.series_id)
            assert self.release.wait(DEFAULT_BOUND_S), "the test never released the series"
        return self.run(spec)


def unfinished(storage: Storage, gates: list[GateRecord]) -> list[str]:
    """The versions whose gate match is yet to play or playing."""
    return [g.bot_id for g in gates if storage.get_season(g.match_id).status in
            (SeasonStatus.CREATED, SeasonStatus.RUNNING)]


def test_a_newer_version_cancels_the_older_versions_unfinished_gate_match(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    bots = tmp_path / "bots"
    ids = [register_folder(storage, sample_as(bots, "random", "player", "1.0.0")),
           register_folder(storage, sample_as(bots, "random", "rival", "1.0.0"))]
    ladder_id = make_gated_ladder(storage, ids, ladder_rounds=4)
    add_ladder_round(storage, ladder_id, 1, ids, [(7, False, ids[0], ids[1]),
                                                  (7, False, ids[1], ids[0])])
    config = storage.get_season(ladder_id).config
    ladder = format_for(LADDER_FORMAT, config)
    assert isinstance(ladder, OpenEnded) and ladder.gate is not None
    runner = HoldsOneVersion()
    manager = SeasonManager(storage, local_executor_factory(lambda c: runner), EventHub())
    matches = GateMatches(manager.start, manager.cancel)
    try:
        second = register_folder(storage, sample_as(bots, "greedy", "player", "2.0.0"))
        assert held_off(storage, ladder_id, config, ladder.gate, [*ids, second], [ids],
                        matches) == {second}
        [older] = gates_of_ladder(storage, ladder_id)
        wait_until(lambda: runner.held, what="a series of the older gate match in flight")

        third = register_folder(storage, sample_as(bots, "greedy", "player", "3.0.0"))
        assert held_off(storage, ladder_id, config, ladder.gate, [*ids, second, third],
                        [ids], matches) == {second, third}
        gates = gates_of_ladder(storage, ladder_id)
        assert [(g.bot_id, g.verdict.status) for g in gates] == [
            (second, "superseded"), (third, "pending")]
        assert unfinished(storage, gates) == [third]  # one match for the name
        newer = gates[1]
        assert newer.predecessor == ids[0]
    finally:
        runner.release.set()
    assert manager.wait(older.match_id, 240) and manager.wait(newer.match_id, 240)
    assert storage.get_season(older.match_id).status == SeasonStatus.CANCELLED
    # Only the series in flight when it was cancelled were played and stored.
    assert sorted(r.series_id for r in storage.results(older.match_id)) == sorted(runner.held)
    # The ladder's next round resumes no superseded match and decides the newer one.
    assert held_off(storage, ladder_id, config, ladder.gate, [*ids, second, third], [ids],
                    matches) >= {second}
    assert manager.wait(older.match_id, 240)
    [older_now, newer_now] = gates_of_ladder(storage, ladder_id)
    assert older_now.verdict.status == "superseded"
    assert storage.get_season(older.match_id).status == SeasonStatus.CANCELLED
    assert newer_now.verdict.status in ("accepted", "rejected", "inconclusive")
    assert older_now.verdict.pairs == 0  # no duplicate pair completed before the stop
