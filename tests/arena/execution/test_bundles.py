"""Bot code through the cluster: a bundle unpacks to a folder with the same files
(same content hash, executable bits kept), once per hash; a bundle whose files do
not match its name, or that holds a path escaping its folder, is refused; a series
task's key is the series id plus a fingerprint that changes with the bots' code."""

from __future__ import annotations

import io
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.manifest import content_hash
from arena.core.series import BotRef, SeriesSpec
from arena.execution.bundles import BotBundle, BundleError, bundle_of, unpack
from arena.execution.tasks import SeriesTask
from engine.profiles import get_profile
from tests.helpers.arena_helpers import make_bot_folder


def test_a_bundle_unpacks_to_the_same_files_once_per_hash(tmp_path: Path) -> None:
    folder = make_bot_folder(tmp_path / "src", "solo", code="print('hi')\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "pkg").mkdir()
    (folder / "pkg" / "data.txt").write_text("x" * 1000)
    bundle = bundle_of(folder)
    assert bundle.content_hash == content_hash(folder)
    unpacked = unpack(bundle, tmp_path / "cache")
    assert unpacked == tmp_path / "cache" / content_hash(folder)
    assert content_hash(unpacked) == content_hash(folder)
    assert (unpacked / "pkg" / "data.txt").read_text() == "x" * 1000
    assert (unpacked / "run.sh").stat().st_mode & 0o111
    (unpacked / "marker").write_text("kept")  # a second unpack reuses the folder
    assert unpack(bundle, tmp_path / "cache") == unpacked
    assert (unpacked / "marker").read_text() == "kept"


def test_a_bundle_whose_files_do_not_match_its_name_is_refused(tmp_path: Path) -> None:
    good = bundle_of(make_bot_folder(tmp_path / "a", "one"))
    other = bundle_of(make_bot_folder(tmp_path / "b", "two"))
    forged = BotBundle(good.content_hash, other.archive)
    with pytest.raises(BundleError, match=f"bundle {good.content_hash[:12]} holds files "
                                          f"hashing to {other.content_hash[:12]}"):
        unpack(forged, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []  # nothing left half-way


def test_a_bundle_reaching_outside_its_folder_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises(BundleError, match="cannot be unpacked"):
        unpack(BotBundle("0" * 64, buffer.getvalue()), tmp_path / "cache")
    assert not (tmp_path / "escaped.txt").exists()
    with pytest.raises(BundleError, match="is not a SHA-256 digest"):
        unpack(BotBundle("../../etc", buffer.getvalue()), tmp_path / "cache")


def _archive(*entries: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in entries:
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"hi"))
    return buffer.getvalue()


@pytest.mark.parametrize(("entries", "why"), [
    (("/tmp/absolute.txt",), "entry '/tmp/absolute.txt' leaves its folder"),
    (("sub/../../up.txt",), "entry 'sub/../../up.txt' leaves its folder"),
    (("twice.txt", "twice.txt"), "File exists"),
])
def test_an_entry_outside_its_folder_or_written_twice_is_refused(
        tmp_path: Path, entries: tuple[str, ...], why: str) -> None:
    with pytest.raises(BundleError, match=f"cannot be unpacked: .*{why}"):
        unpack(BotBundle("1" * 64, _archive(*entries)), tmp_path / "cache")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []  # nothing kept
    assert not (tmp_path / "up.txt").exists()


def test_a_series_task_key_is_its_id_and_a_fingerprint_of_the_play(tmp_path: Path) -> None:
    first = make_bot_folder(tmp_path / "v1", "solo", code="a = 1\n")
    second = make_bot_folder(tmp_path / "v2", "solo", code="a = 2\n")
    bot = BotRef.from_folder(first)
    spec = SeriesSpec(series_id="3-17", seed=5, profile=get_profile("friendly"), max_hands=9,
                      swap_seats=False, bots=(bot, bot))
    task = SeriesTask(spec, (bundle_of(first), bundle_of(first)), "docker")
    again = SeriesTask(spec, (bundle_of(first), bundle_of(first)), "docker")
    assert task.key == again.key and task.key.startswith("series-3-17-")
    changed_code = SeriesTask(spec, (bundle_of(first), bundle_of(second)), "docker")
    changed_seed = SeriesTask(replace(spec, seed=6), task.bundles, "docker")
    changed_sandbox = SeriesTask(spec, task.bundles, "process")
    assert len({task.key, changed_code.key, changed_seed.key, changed_sandbox.key}) == 4


def test_what_travels_through_the_cluster_pickles(tmp_path: Path) -> None:
    import pickle

    from arena.core.faults import BotFault, FaultKind
    from arena.core.series import SeriesOutcome
    from engine.series import SeriesResult

    folder = make_bot_folder(tmp_path, "solo")
    bot = BotRef.from_folder(folder)
    spec = SeriesSpec(series_id="3-17", seed=5, profile=get_profile("classic"), max_hands=9,
                      swap_seats=True, bots=(bot, bot))
    task = SeriesTask(spec, (bundle_of(folder), bundle_of(folder)), "process")
    assert pickle.loads(pickle.dumps(task)) == task
    outcome = SeriesOutcome(
        series_id="3-17", result=SeriesResult(
            winner=None, games_won=(0, 1), game_winners=(None, 1, None),
            game_scores=((10, 0, 0), (0, 120, 0)), hands_won=(1, 3), points=(10, 120),
            hands_played=4, capped=False),
        fault=BotFault(
            FaultKind.STARTUP, "no socket", seat=0, stderr_tail="boom",
            other_seat_fault=BotFault(FaultKind.CRASH, "exited", seat=1)),
        think_seconds=(0.25, 0.5), wall_seconds=1.5, log=[{"type": "series_start"}])
    back = pickle.loads(pickle.dumps(outcome))
    assert (back.winner, back.points, back.log) == (None, (10, 120), [{"type": "series_start"}])
    assert back.fault is not None and back.fault.to_dict() == {
        "kind": "startup", "message": "no socket", "seat": 0, "hand_number": None,
        "decision_number": None, "stderr_tail": "boom", "other_seat_fault": {
            "kind": "crash", "message": "exited", "seat": 1, "hand_number": None,
            "decision_number": None, "stderr_tail": "", "other_seat_fault": None}}
    assert str(back.fault) == "startup: no socket"
    assert back == outcome  # the whole outcome, its typed faults included
