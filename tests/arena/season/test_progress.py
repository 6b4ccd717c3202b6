"""The one progress computation (``arena.season.progress``): the pace over the
season's active time and the time left, from stored result times and durations
(expected values worked out by hand); and the one way both screens write it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.render_statistics import throughput_text
from arena.core.progress_text import duration_text, progress_line
from arena.season.progress import PAUSE_S, Pace, season_progress, stamp_seconds


@dataclass(frozen=True)
class Result:
    finished_at: str
    wall_seconds: float


def at(second: int, wall: float) -> Result:
    """A result finished ``second`` s after 10:00:00 that played ``wall`` s."""
    return Result(f"2026-01-01T10:{second // 60:02d}:{second % 60:02d}Z", wall)


def test_one_at_a_time() -> None:
    # Three 10 s series back to back: 30 s in play, 3 done -> 6/min; 6 left -> 60 s.
    progress = season_progress([at(10, 10), at(20, 10), at(30, 10)], 9, 9, running=True)
    assert progress.series_per_minute == pytest.approx(6.0)
    assert progress.seconds_left == pytest.approx(60.0)
    assert (progress.done, progress.planned, progress.expected) == (3, 9, 9)


def test_series_in_parallel_count_their_time_once() -> None:
    # Two at a time, 10 s each: 4 done in 20 s -> 12/min; 4 left -> 20 s.
    results = [at(10, 10), at(10, 10), at(20, 10), at(20, 10)]
    progress = season_progress(results, 8, 8, running=True)
    assert progress.series_per_minute == pytest.approx(12.0)
    assert progress.seconds_left == pytest.approx(20.0)


def test_the_series_still_expected_not_the_planned_ones_set_the_time_left() -> None:
    """A Swiss season has planned its first round only: the time left is to the
    format's count (the web once said 18 s for a season that took 2 min 25 s)."""
    progress = season_progress([at(10, 10), at(20, 10)], 2, 12, running=True)
    assert progress.seconds_left == pytest.approx(100.0)  # 10 left at 6/min
    assert (progress.total, progress.percent) == (12, 16.7)


def test_a_short_gap_is_play_a_pause_is_not() -> None:
    # 10:00:00-10:00:10 in play, 25 s between series (bots starting): counted.
    short = season_progress([at(10, 10), at(40, 5)], 4, 4, running=True)
    assert short.series_per_minute == pytest.approx(3.0)  # 2 in 40 s
    # The same, but a pause (a cancel, a restart) of PAUSE_S before the next series.
    late = 20 + int(PAUSE_S) + 10
    paused = season_progress([at(10, 10), at(20, 10), at(late, 10), at(late + 10, 10)], 8, 8,
                             running=True)
    assert paused.series_per_minute == pytest.approx(6.0)  # 4 in 40 s
    assert paused.seconds_left == pytest.approx(40.0)


def test_now_counts_the_time_since_the_latest_result_while_running() -> None:
    results = [at(10, 10), at(20, 10)]
    last = Pace()
    last.extend(results)
    now = last.progress(2, 6, 6, running=True, now=stamp_seconds("2026-01-01T10:00:40Z"))
    assert now.series_per_minute == pytest.approx(3.0)  # 2 in 40 s
    assert now.seconds_left == pytest.approx(80.0)


def test_unknown_and_finished() -> None:
    assert season_progress([], 0, 10, running=True).seconds_left is None
    assert season_progress([], 0, 10, running=True).series_per_minute == 0.0
    # Same second, no duration: no time in play yet.
    assert season_progress([at(5, 0), at(5, 0)], 2, 10, running=True).series_per_minute == 0.0
    assert season_progress([at(10, 10)], 1, None, running=True).seconds_left is None
    assert season_progress([at(10, 10)], 2, 2, running=False).seconds_left is None
    assert season_progress([at(10, 10), at(20, 10)], 2, 2, running=False).seconds_left == 0.0


def test_an_earlier_table_reads_the_pace_after_its_own_results() -> None:
    results = [at(10, 10), at(20, 10), at(60, 10), at(65, 5)]
    pace = Pace()
    pace.extend(results)
    assert pace.progress(2, 8, 8, running=True) == season_progress(results[:2], 8, 8,
                                                                    running=True)


def test_both_screens_write_progress_the_same_way() -> None:
    assert duration_text(45.4) == "45 s"
    assert duration_text(200) == "3 min 20 s"
    assert duration_text(7500) == "2 h 5 min"
    assert progress_line(2.0, 5, 15, 300.0) == ("2.0 series/min, 5/15 series expected, "
                                                "about 5 min 0 s left")
    assert progress_line(2.0, 5, None, None) == "2.0 series/min"
    standings = arena_pb2.Standings(sequence=5, series_expected=15, series_per_minute=2.0,
                                    seconds_left=300.0)
    assert throughput_text(standings) == ("2.0 series/min, 5/15 series expected, "
                                          "about 5 min 0 s left")
    standings.seconds_left = -1
    assert throughput_text(standings) == "2.0 series/min, 5/15 series expected"
