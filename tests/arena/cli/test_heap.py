"""The collector's thresholds while a command plays series here (arena/cli/heap.py)."""

from __future__ import annotations

import gc

import pytest

from arena.cli.heap import PLAY_THRESHOLDS, thresholds_for_play


def test_the_block_runs_at_the_play_thresholds_and_the_old_ones_come_back() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        with thresholds_for_play():
            assert gc.get_threshold() == (50_000, 20, 10) == PLAY_THRESHOLDS
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_an_error_in_the_block_still_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    gc.set_threshold(123, 4, 5)
    try:
        with pytest.raises(RuntimeError, match="boom"), thresholds_for_play():
            raise RuntimeError("boom")
        assert gc.get_threshold() == (123, 4, 5)
    finally:
        gc.set_threshold(*before)
