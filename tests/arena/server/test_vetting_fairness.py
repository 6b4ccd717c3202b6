"""Vetting is fair between authors (issue 25, point 3): 2 versions at once, round
robin by author, at most one version of an author at once, so one author's endless
builds delay another author's version by at most one build slot. Driven by a
vetter that blocks until the test releases it (no sleeps)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.vetting import DEFAULT_VETTING_SLOTS, VettingWorker
from arena.server.vetting_queue import FairQueue
from arena.storage import Storage, version_life
from tests.helpers.polling import wait_until
from tests.helpers.vetting_helpers import BlockingVetter, store_version


def test_the_queue_serves_authors_in_turn_one_version_of_each_at_once() -> None:
    queue = FairQueue(slots=1)
    for bot_id in ("a1", "a2", "a3"):
        assert queue.add("ann", bot_id)
    assert not queue.add("ann", "a2")  # waits already
    queue.add("bob", "b1")
    queue.add("cid", "c1")
    order = []
    while (job := queue.take()) is not None:
        order.append(job[1])
        queue.done(job[0])
    assert order == ["a1", "b1", "c1", "a2", "a3"]


def test_an_author_arriving_while_another_is_served_goes_next() -> None:
    queue = FairQueue(slots=1)
    for bot_id in ("a1", "a2", "a3"):
        queue.add("ann", bot_id)
    assert queue.take() == ("ann", "a1")
    queue.add("bob", "b1")  # while a1 builds: bob waits for a1 only
    queue.done("ann")
    assert queue.take() == ("bob", "b1")
    queue.done("bob")
    assert queue.take() == ("ann", "a2")


def test_two_slots_never_hold_two_versions_of_one_author() -> None:
    queue = FairQueue(slots=2)
    for n in range(5):
        queue.add("ann", f"a{n}")
    assert queue.take() == ("ann", "a0")
    assert queue.take() is None  # a slot is free, but ann has one running
    queue.add("bob", "b0")
    assert queue.take() == ("bob", "b0")
    assert queue.take() is None  # both slots busy
    queue.done("ann")
    assert queue.take() == ("ann", "a1")


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    return Storage(tmp_path / "arena.db")


@pytest.fixture
def vetter(storage: Storage) -> BlockingVetter:
    return BlockingVetter(lambda bot_id: version_life(storage, bot_id).owner)


@pytest.fixture
def worker(storage: Storage, vetter: BlockingVetter) -> Iterator[VettingWorker]:
    running = VettingWorker(storage, "process", vetter=vetter)
    yield running
    running.stop()
    vetter.release_all()


def test_an_authors_endless_builds_do_not_hold_up_another_authors_version(
        storage: Storage, vetter: BlockingVetter, worker: VettingWorker,
        tmp_path: Path) -> None:
    assert DEFAULT_VETTING_SLOTS == 2
    endless = [store_version(storage, tmp_path, "ann", "endless", f"1.0.{n}")
               for n in range(5)]
    for bot_id in endless:
        worker.submit(bot_id)
    wait_until(lambda: vetter.has_started(endless[0]), what="ann's first build starts",
               bound_s=30)
    honest = store_version(storage, tmp_path, "bob", "honest", "1.0.0")
    ann_started_before = len(vetter.started)
    worker.submit(honest)
    wait_until(lambda: vetter.has_started(honest), what="bob's version starts", bound_s=30)
    # The test's own accounting: how many of ann's builds bob's version waited for.
    waited_for = [bot_id for bot_id in vetter.started[ann_started_before:]
                  if bot_id != honest]
    assert waited_for == []
    assert worker.busy() == {"ann": endless[0], "bob": honest}
    vetter.release(honest)
    wait_until(lambda: version_life(storage, honest).status == "active",
               what="bob's version is active", bound_s=30)
    # ann's builds never ended: still one at a time, the rest waiting.
    assert vetter.started.count(endless[0]) == 1
    assert [version_life(storage, bot_id).status for bot_id in endless] == [
        "building", "received", "received", "received", "received"]
    vetter.release(endless[0])
    wait_until(lambda: vetter.has_started(endless[1]), what="ann's next build", bound_s=30)
    assert vetter.most_at_once == {"ann": 1, "bob": 1}


def test_a_restart_vets_again_what_the_arena_rejected_not_what_the_author_did(
        storage: Storage, vetter: BlockingVetter, tmp_path: Path) -> None:
    from arena.storage import (
        ARENA_FAILED,
        AUTHOR_FAILED,
        VettingVerdict,
        code_to_vet,
        record_verdict,
    )

    arena_rejected = store_version(storage, tmp_path, "ann", "unlucky", "1.0.0")
    author_rejected = store_version(storage, tmp_path, "bob", "broken", "1.0.0")
    unvetted = store_version(storage, tmp_path, "bob", "fresh", "1.0.0")
    record_verdict(storage, code_to_vet(storage, arena_rejected),
                   VettingVerdict("rejected", "the arena could not vet it (DockerException)",
                                  ARENA_FAILED))
    record_verdict(storage, code_to_vet(storage, author_rejected),
                   VettingVerdict("rejected", "broken faulted: crash", AUTHOR_FAILED))
    worker = VettingWorker(storage, "process", vetter=vetter)
    try:
        assert worker.resume() == [arena_rejected, unvetted]
        for bot_id in (arena_rejected, unvetted):
            vetter.release(bot_id)
            wait_until(lambda bot_id=bot_id: version_life(storage, bot_id).status == "active",
                       what=f"{bot_id} vetted", bound_s=30)
        assert version_life(storage, author_rejected).status == "rejected"
        assert author_rejected not in vetter.started
    finally:
        worker.stop()
        vetter.release_all()


def test_revetting_refuses_a_deactivated_version_it_is_the_admins_reactivate(
        storage: Storage, tmp_path: Path) -> None:
    from arena.core.status import IllegalTransitionError
    from arena.storage import VettingVerdict, code_to_vet, record_verdict

    bot_id = store_version(storage, tmp_path, "ann", "shaky", "1.0.0")
    record_verdict(storage, code_to_vet(storage, bot_id), VettingVerdict("active", "vetted"))
    with storage.transaction() as db:
        db.execute("UPDATE bot_versions SET status='deactivated' WHERE bot_id=?", (bot_id,))
    worker = VettingWorker(storage, "process", vetter=BlockingVetter(lambda _: "ann"))
    try:
        with pytest.raises(IllegalTransitionError,
                           match="is deactivated: the admin reactivates it"):
            worker.revet(bot_id, "author ann")
    finally:
        worker.stop()
    assert version_life(storage, bot_id).status == "deactivated"
