"""Live season statistics: each published table gets the statistics of exactly the
results it counts, with the Bradley-Terry fit refitted on a geometric schedule (its
cost per stored series stays flat) and exactly at the end of the season."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from arena.core.status import SeasonStatus
from arena.season.progress import Pace
from arena.season.season_statistics import season_statistics
from arena.season.standings_live import StandingsBoard
from arena.season.statistics.bradley_terry import PairResult, fit
from arena.season.statistics_live import NEWEST_KEPT, LiveStatistics
from arena.storage import SeriesRecord, Storage
from tests.arena.season.test_standings_live import random_outcome, season_with_plan


def store_in_random_order(storage: Storage, season_id: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    order = storage.planned_series(season_id)
    rng.shuffle(order)
    for series in order:
        assert storage.store_result(  # type: ignore[arg-type]
            series, random_outcome(rng, series.series_id), {"name": "friendly"})
        yield series.series_id


def refit_steps(storage: Storage, season_id: int, board: StandingsBoard, live: LiveStatistics,
                after_each: Callable[[int], None] = lambda step: None) -> list[int]:
    """Store the season's results one by one (seed 4), asking for the statistics after
    each; the steps (1, 2, ...) after which the statistics refitted."""
    fitted_at = []
    for step, _ in enumerate(store_in_random_order(storage, season_id, seed=4), start=1):
        before = live.fits
        live.statistics(storage.get_season(season_id), board.update(season_id))
        if live.fits > before:
            fitted_at.append(step)
        after_each(step)
    return fitted_at


def test_refits_follow_the_geometric_schedule_and_the_final_table_is_exact(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)  # 5 bots, 20 series
    board = StandingsBoard(storage)
    # Refit when the results double (no time floor here: see the next test).
    live = LiveStatistics(storage, refit_growth=1.0, refit_interval=0.0)
    fitted_at = refit_steps(storage, season_id, board, live)
    # Worked by hand: a fit at the first result, then whenever the count exceeds
    # twice the last fitted count and by at least 5 (one result per bot):
    # 1 -> 6 (not 3: 2 more only) -> 13 -> (27 is past the season's 20).
    assert fitted_at == [1, 6, 13]
    storage.set_season_status(season_id, SeasonStatus.FINISHED)
    season = storage.get_season(season_id)
    final = live.statistics(season, board.snapshot(season_id))
    assert live.fits == 4  # the finished season's table is refitted once
    results = storage.results_stored_after(season_id)
    seat0_score = {None: 0.5, 0: 1.0, 1: 0.0}  # a forfeit is the loss it was declared
    expected = fit(season.bot_ids, [PairResult(r.seat0_bot, r.seat1_bot,
                                               seat0_score[r.winner]) for r in results])
    assert final.rating.elo == pytest.approx(expected.elo, abs=1e-9)
    again = live.statistics(season, board.snapshot(season_id))
    assert live.fits == 4 and again.rating is final.rating  # no refit without new results
    storage.close()


def test_refits_are_at_least_the_interval_apart_but_the_final_one_is_not(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)  # 5 bots, 20 series
    board = StandingsBoard(storage)
    now = [10.0]
    live = LiveStatistics(storage, refit_growth=0.0, refit_interval=2.0, clock=lambda: now[0])

    def tick(step: int) -> None:
        now[0] += 0.25 + (10.0 if step == 9 else 0.0)  # a quiet spell after the 9th

    fitted_at = refit_steps(storage, season_id, board, live, tick)
    # Worked by hand (result n comes at t = 10 + (n - 1) / 4, plus 10 s after the 9th):
    # a fit at the first (t=10); 5 results more (one per bot) come by the 6th, but 2 s
    # only at the 9th (t=12); then 5 more at the 14th (t=23.25); the 19th and 20th
    # are 5 more but under 2 s later (t=24.5, 24.75). Without the interval: 1, 6, 11, 16.
    assert fitted_at == [1, 9, 14]
    storage.set_season_status(season_id, SeasonStatus.FINISHED)
    live.statistics(storage.get_season(season_id), board.snapshot(season_id))
    assert live.fits == 4  # the end refits at once, however soon after the last fit
    storage.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_between_refits_everything_but_the_rating_is_the_tables_own(
        tmp_path: Path, seed: int) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    live = LiveStatistics(storage)
    for step, _ in enumerate(store_in_random_order(storage, season_id, seed), start=1):
        season = storage.get_season(season_id)
        snapshot = board.update(season_id)
        shown = live.statistics(season, snapshot)
        results = storage.results_stored_after(season_id)
        assert len(results) == step
        full = season_statistics(season, results, snapshot.standings, rating=shown.rating)
        assert shown.order == full.order == [row.bot_id for row in snapshot.standings.rows]
        assert shown.tied_with_next == full.tied_with_next
        assert shown.progress == full.progress
    storage.close()


def test_a_cut_of_the_table_keeps_the_whole_tables_ranks_and_statistics(
        tmp_path: Path) -> None:
    from arena.server import pages
    from arena.server.watch import StandingsMessages

    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    for _ in store_in_random_order(storage, season_id, seed=5):
        pass
    snapshot = board.update(season_id)
    built = StandingsMessages(storage)
    whole = built.whole(snapshot, los=True)
    last = snapshot.standings.rows[-1].bot_id
    part = built.part(snapshot, pages.with_rows(
        snapshot.standings, pages.live_rows(snapshot.standings, 1, (last,)), crosstable=False),
        los=True)
    by_bot = {row.bot_id: row for row in whole.rows}
    assert [row.rank for row in part.rows] == [1, 5]
    for row in part.rows:
        assert row == by_bot[row.bot_id]
    assert not part.crosstable
    assert sorted((c.bot_id, c.opponent_id, c.los) for c in part.los) == sorted(
        (c.bot_id, c.opponent_id, c.los) for c in whole.los
        if c.bot_id in {whole.rows[0].bot_id, last})
    assert len(part.los) == 2 * 4
    storage.close()


class UnwalkedResults(Sequence[SeriesRecord]):
    """A season's results of which only the count may be read: walking them fails."""

    def __init__(self, count: int) -> None:
        self.length = count

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: object) -> SeriesRecord:  # type: ignore[override]
        raise AssertionError("an update walked every stored result")

    def __iter__(self) -> Iterator[SeriesRecord]:
        raise AssertionError("an update walked every stored result")


def test_an_update_of_a_round_robin_does_not_walk_the_stored_results(tmp_path: Path) -> None:
    # Issue 42: a 100-bot league's update cost grew with the results stored (a
    # copy of them, their rounds counted again). With the fit and the pace kept
    # live (as ``LiveStatistics`` hands them), the statistics only count them.
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)  # a round robin: 5 bots, 20 series
    board = StandingsBoard(storage)
    live = LiveStatistics(storage)
    for _ in store_in_random_order(storage, season_id, seed=6):
        pass
    season = storage.get_season(season_id)
    snapshot = board.update(season_id)
    kept = live.statistics(season, snapshot)
    pace = Pace()
    pace.extend(storage.results_stored_after(season_id))
    shown = season_statistics(season, UnwalkedResults(20), snapshot.standings,
                              rating=kept.rating, pace=pace)
    assert shown.order == [row.bot_id for row in snapshot.standings.rows]
    assert shown.progress.done == 20
    storage.close()


def test_the_results_a_table_counts_are_a_view_of_those_read_once(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    live = LiveStatistics(storage)
    stored = store_in_random_order(storage, season_id, seed=7)
    for _ in range(3):
        next(stored)
    live.statistics(storage.get_season(season_id), board.update(season_id))
    first = live.results(season_id, 3)
    for _ in range(4):
        next(stored)
    live.statistics(storage.get_season(season_id), board.update(season_id))
    later = live.results(season_id, 7)
    in_storage = storage.results_stored_after(season_id)
    assert [r.stored_seq for r in first] == [1, 2, 3]  # results stored later leave it as it was
    assert [r.stored_seq for r in later] == [1, 2, 3, 4, 5, 6, 7]
    assert [r.series_id for r in later] == [r.series_id for r in in_storage]
    assert later[-1].stored_seq == 7 and next(reversed(later)).stored_seq == 7
    assert [r.stored_seq for r in later[2:4]] == [3, 4]
    with pytest.raises(IndexError):
        first[3]  # the view ends where its table does
    storage.close()


def test_the_newest_results_and_the_forfeits_are_kept_as_results_are_read(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage, per_pair=8)  # 80 series: more than NEWEST_KEPT
    board = StandingsBoard(storage)
    live = LiveStatistics(storage)
    season = storage.get_season(season_id)
    for step, _ in enumerate(store_in_random_order(storage, season_id, seed=8), start=1):
        if step % 9 and step != 80:
            continue  # read now and then: several results come between two reads
        live.statistics(season, board.update(season_id))
        stored = storage.results_stored_after(season_id)
        # Independently: every result sorted, newest first, stored later first
        # within a finishing time.
        by_time = [r.stored_seq for _, _, r in sorted(
            ((r.finished_at, r.stored_seq, r) for r in stored), key=lambda item: item[:2],
            reverse=True)]
        assert [r.stored_seq for r in live.newest(season_id, step)] == by_time[:NEWEST_KEPT]
        assert [r.stored_seq for r in live.newest(season_id, step, 12)] == by_time[:12]
        assert [r.stored_seq for r in live.faulted(season_id, step)] == [
            r.stored_seq for r in stored if r.forfeiting_seats]
    # An older table's, found among its own results.
    first_ten = storage.results_stored_after(season_id, 0, until=10)
    assert [r.stored_seq for r in live.newest(season_id, 10, 3)] == sorted(
        (r.stored_seq for r in first_ten), key=lambda seq: (first_ten[seq - 1].finished_at, seq),
        reverse=True)[:3]
    assert [r.stored_seq for r in live.faulted(season_id, 10)] == [
        r.stored_seq for r in first_ten if r.forfeiting_seats]
    assert any(r.forfeiting_seats for r in first_ten)  # the check above saw some
    storage.close()
