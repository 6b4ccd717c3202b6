"""A bot version's status: one enum, and the changes it may make in one table
(``arena.core.status.VERSION_TRANSITIONS``), which storage checks every change
against. The table is pinned here case by case, written by hand from the
lifecycle (docs/arena.md): vetting's stages, its verdict, `revet`, deactivation
and the admin's `reactivate`."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.manifest import BotManifest, content_hash
from arena.core.status import VERSION_TRANSITIONS, IllegalTransitionError, VersionStatus
from arena.storage import Storage
from arena.storage.lifecycle import LifecycleError, reactivate, version_life
from arena.storage.submissions import Submission, store_submission
from arena.storage.vetting_records import (
    VettingVerdict,
    code_to_vet,
    mark_for_revetting,
    record_verdict,
    set_stage,
)
from tests.helpers.arena_helpers import make_bot_folder

RECEIVED, BUILDING, VALIDATING = "received", "building", "validating"
ACTIVE, REJECTED, DEACTIVATED = "active", "rejected", "deactivated"

ALLOWED = {
    (RECEIVED, BUILDING), (RECEIVED, VALIDATING), (RECEIVED, ACTIVE), (RECEIVED, REJECTED),
    (BUILDING, BUILDING), (BUILDING, VALIDATING), (BUILDING, ACTIVE), (BUILDING, REJECTED),
    (VALIDATING, BUILDING), (VALIDATING, VALIDATING), (VALIDATING, ACTIVE),
    (VALIDATING, REJECTED),
    (ACTIVE, RECEIVED), (ACTIVE, DEACTIVATED),
    (REJECTED, RECEIVED),
    (DEACTIVATED, ACTIVE),
}
"""Every allowed change; every other pair of statuses is refused."""
STATUSES = (RECEIVED, BUILDING, VALIDATING, ACTIVE, REJECTED, DEACTIVATED)


def test_the_statuses_are_the_stored_values() -> None:
    assert [status.value for status in VersionStatus] == list(STATUSES)
    assert [s for s in VersionStatus if s.is_vetting] == [RECEIVED, BUILDING, VALIDATING]
    assert [s for s in VersionStatus if s.is_settled] == [ACTIVE, REJECTED, DEACTIVATED]


@pytest.mark.parametrize("current", STATUSES)
@pytest.mark.parametrize("target", STATUSES)
def test_the_transition_table(current: str, target: str) -> None:
    allowed = (current, target) in ALLOWED
    assert VersionStatus(current).can_become(VersionStatus(target)) is allowed
    if allowed:
        VersionStatus(current).checked_move(VersionStatus(target), "bot a@1")
    else:
        with pytest.raises(IllegalTransitionError) as refused:
            VersionStatus(current).checked_move(VersionStatus(target), "bot a@1")
        assert str(refused.value).startswith(f"bot a@1 is {current}: it cannot become {target}")
        assert (refused.value.current, refused.value.target) == (current, target)


def test_the_table_names_every_status() -> None:
    assert set(VERSION_TRANSITIONS) == set(VersionStatus)


def test_a_refusal_says_what_the_status_can_become() -> None:
    with pytest.raises(IllegalTransitionError, match=r"bot x@1 is rejected: it cannot become "
                       r"active \(a rejected version can become: received\)"):
        VersionStatus.REJECTED.checked_move(VersionStatus.ACTIVE, "bot x@1")


@pytest.fixture
def uploaded(tmp_path: Path) -> tuple[Storage, str]:
    """A database with one version stored as received (as an upload to a vetting server)."""

    folder = make_bot_folder(tmp_path, "shaky")
    archive = tmp_path / "shaky.tar.gz"
    archive.write_bytes(b"not read here")
    storage = Storage(tmp_path / "a.db")
    store_submission(storage, Submission(BotManifest.load(folder), content_hash(folder), folder,
                                         archive, ".tar.gz"),
                     submitter="ann", replace=False, status=VersionStatus.RECEIVED)
    return storage, "shaky@1.0.0"


def test_storage_walks_the_lifecycle_and_refuses_what_the_table_refuses(
        uploaded: tuple[Storage, str]) -> None:
    storage, bot_id = uploaded
    code = code_to_vet(storage, bot_id)
    assert version_life(storage, bot_id).status is VersionStatus.RECEIVED
    assert set_stage(storage, code, VersionStatus.BUILDING)
    assert set_stage(storage, code, VersionStatus.VALIDATING)
    record_verdict(storage, code, VettingVerdict(VersionStatus.ACTIVE, "vetted"))
    assert version_life(storage, bot_id).status is VersionStatus.ACTIVE
    with pytest.raises(IllegalTransitionError, match="is active: it cannot become building"):
        set_stage(storage, code, VersionStatus.BUILDING)  # a stage without `revet`
    with pytest.raises(LifecycleError, match="is active, not deactivated"):
        reactivate(storage, bot_id)
    with storage.transaction() as db:
        db.execute("UPDATE bot_versions SET status='deactivated' WHERE bot_id=?", (bot_id,))
    with pytest.raises(IllegalTransitionError, match="is deactivated: the admin reactivates"):
        mark_for_revetting(storage, bot_id, "author ann")
    reactivate(storage, bot_id)
    mark_for_revetting(storage, bot_id, "author ann")
    assert version_life(storage, bot_id).status is VersionStatus.RECEIVED
    with pytest.raises(IllegalTransitionError, match="is received: it is being vetted already"):
        mark_for_revetting(storage, bot_id, "author ann")
    assert version_life(storage, bot_id).status is VersionStatus.RECEIVED


def test_a_verdict_is_active_or_rejected(uploaded: tuple[Storage, str]) -> None:
    storage, bot_id = uploaded
    with pytest.raises(ValueError, match="a verdict is one of"):
        record_verdict(storage, code_to_vet(storage, bot_id),
                       VettingVerdict(VersionStatus.DEACTIVATED, "no"))
    assert version_life(storage, bot_id).status is VersionStatus.RECEIVED
