"""Throughput and time left from stored result times (no clock involved)."""

from __future__ import annotations

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.render_statistics import throughput_text
from arena.season.progress import WINDOW, season_progress


def stamps(*seconds: int) -> list[str]:
    return [f"2026-01-01T00:{s // 60:02d}:{s % 60:02d}Z" for s in seconds]


def test_pace_and_time_left() -> None:
    # 5 results over 120 s: 4 intervals -> 2 series/min; 10 left -> 300 s.
    progress = season_progress(stamps(0, 30, 60, 90, 120), 5, 15)
    assert progress.series_per_minute == pytest.approx(2.0)
    assert progress.seconds_left == pytest.approx(300.0)


def test_unknown_pace_total_and_finished_season() -> None:
    assert season_progress([], 0, 10).seconds_left is None
    assert season_progress(stamps(5, 5, 5), 3, 10).series_per_minute == 0.0
    assert season_progress(stamps(0, 60), 2, None).seconds_left is None
    assert season_progress(stamps(0, 60), 2, 2).seconds_left == 0.0


def test_only_the_latest_results_set_the_pace() -> None:
    """A long pause (a cancel, a resume an hour later) before the window is not
    counted: the window holds the last WINDOW results, one every 2 s."""
    recent = [3600 + 2 * k for k in range(WINDOW)]
    times = [f"2026-01-01T{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}Z"
             for s in [0, 1, 2, *recent]]
    progress = season_progress(times, len(times), None)
    assert progress.series_per_minute == pytest.approx(30.0)


def test_throughput_text() -> None:
    standings = arena_pb2.Standings(series_done=5, series_expected=15, series_per_minute=2.0,
                                    seconds_left=300.0)
    assert throughput_text(standings) == ("2.0 series/min, 5/15 series expected, "
                                          "about 5 min 0 s left")
    standings.seconds_left = -1
    assert throughput_text(standings) == "2.0 series/min, 5/15 series expected"
