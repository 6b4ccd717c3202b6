"""Series admitted by measured load (arena/sandbox/admission.py, ``Admission.series``):
the first series plays at once whatever the load (a busy machine still makes
progress); each further one waits until the machine has an idle core by the same
rule as spares and builds, or until a series ends. The load is a fake source whose
readings the test changes; waits are bounded polls."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest

from arena.sandbox.admission import PRESSURE_LIMIT_PCT, Admission, LoadSample
from tests.arena.sandbox.test_admission_load import FakeLoad
from tests.helpers.polling import wait_until

POLL_S = 0.001


class WaitingSeries:
    """A series on its own thread: asks for admission, then plays until ``finish``."""

    def __init__(self, admission: Admission) -> None:
        self.admitted = threading.Event()
        self._finish = threading.Event()
        self._thread = threading.Thread(target=self._play, args=(admission,), daemon=True)
        self._thread.start()

    def _play(self, admission: Admission) -> None:
        with admission.series():
            self.admitted.set()
            self._finish.wait(30)

    def finish(self) -> None:
        self._finish.set()
        self._thread.join(30)


def test_the_first_series_plays_at_once_on_a_machine_busy_for_good() -> None:
    load = FakeLoad(40.0, 100.0)
    admission = Admission(2, cores=2, load=load, poll_s=POLL_S)
    with admission.series():
        assert admission.series_playing == 1
    assert admission.series_playing == 0
    assert load.reads == 0  # the load is not even asked


@pytest.mark.parametrize(("runnable", "pressure", "starts", "admitted"), [
    (0.0, None, 0, True),     # the playing series' bots are between decisions
    (1.0, None, 0, True),     # one of two cores busy
    (2.0, None, 0, False),    # both busy
    (1.0, None, 1, False),    # a bot starting (a start slot held) counts as busy
    (8.0, 0.0, 0, False),     # eight hogs
    (0.0, PRESSURE_LIMIT_PCT, 0, False),  # tasks waited for a core a quarter of the time
    (None, None, 0, True),    # nothing measurable: the count alone decides
])
def test_a_second_series_needs_an_idle_core(runnable: float | None, pressure: float | None,
                                            starts: int, admitted: bool) -> None:
    load = FakeLoad(runnable, pressure)
    admission = Admission(2, cores=2, load=load, poll_s=POLL_S)
    for _ in range(starts):
        admission.acquire()
    with admission.series():
        second = WaitingSeries(admission)
        if admitted:
            wait_until(second.admitted.is_set, what="the second series admitted")
            assert admission.series_playing == 2
        else:
            wait_until(lambda: load.reads >= 3, what="the second series asking again")
            assert not second.admitted.is_set() and admission.series_playing == 1
    # Once the first series ends, the second plays, whatever the load.
    wait_until(second.admitted.is_set, what="the second series admitted")
    assert admission.series_playing == 1
    second.finish()
    assert admission.series_playing == 0


def test_a_waiting_series_starts_while_the_first_plays_once_a_core_is_idle() -> None:
    load = FakeLoad(2.0)
    admission = Admission(2, cores=2, load=load, poll_s=POLL_S)
    with admission.series():
        second = WaitingSeries(admission)
        wait_until(lambda: load.reads >= 2, what="the second series asking")
        assert not second.admitted.is_set()
        load.sample = LoadSample(1.0)  # a core came free
        wait_until(second.admitted.is_set, what="the second series admitted")
        assert admission.series_playing == 2
        second.finish()
    assert admission.series_playing == 0


def test_without_a_load_source_series_are_not_held() -> None:
    admission = Admission(2, cores=2)
    with ExitStack() as playing:
        for count in range(1, 5):
            playing.enter_context(admission.series())
            assert admission.series_playing == count


def test_waiting_series_are_admitted_one_at_a_time() -> None:
    load = FakeLoad(9.0)
    admission = Admission(2, cores=2, load=load, poll_s=POLL_S)
    with admission.series():
        waiting = [WaitingSeries(admission), WaitingSeries(admission)]
        wait_until(lambda: load.reads >= 3, what="a waiting series asking")
    # The first series ended: one waiting series takes its place, the other waits on.
    wait_until(lambda: any(s.admitted.is_set() for s in waiting), what="one series admitted")
    reads = load.reads
    wait_until(lambda: load.reads >= reads + 3, what="the other series asking again")
    assert admission.series_playing == 1
    assert sum(s.admitted.is_set() for s in waiting) == 1
    first = next(s for s in waiting if s.admitted.is_set())
    other = next(s for s in waiting if not s.admitted.is_set())
    first.finish()
    wait_until(other.admitted.is_set, what="the other series admitted")
    other.finish()
    assert admission.series_playing == 0
