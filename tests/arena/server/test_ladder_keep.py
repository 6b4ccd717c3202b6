"""``arena ladder keep``: a version's owner (or the admin) keeps it on the ladder
beside its newer versions; anyone else is refused, saying who owns it; after
``--release`` a newer active version replaces it again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.server.app import RunningServer
from arena.storage import members_by_round
from tests.arena.server.test_submit import add_author, run
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.format_server import stub_with_bots


@pytest.fixture
def stub(server: RunningServer, tmp_path: Path) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with stub_with_bots(server, tmp_path) as stub:
        yield stub



def one_round_ladder(running: RunningServer, api, capsys: pytest.CaptureFixture[str],
                     *extra: str) -> list[str]:
    """The members of a new one-round ladder, once it has finished."""
    code, out, err = run(capsys, "--server", running.address, "--token", running.token,
                         "ladder", "start", "--json", "--ladder-rounds", "1", "--seed", "2",
                         *extra)
    assert code == 0, err
    season_id = int(json.loads(out)["id"])
    for _ in api.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season_id)):
        pass
    [members] = members_by_round(running.storage, season_id)
    return members


def test_the_owner_keeps_a_version_on_the_ladder(
        server: RunningServer, stub, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    alice, bob = add_author(server, capsys, "alice"), add_author(server, capsys, "bob")
    for version in ("1.0.0", "1.1.0"):
        folder = make_bot_folder(tmp_path / version, "mine", version)
        code, _, err = run(capsys, "submit", str(folder), "--server", server.address,
                           "--token", alice)
        assert code == 0, err
    code, _, err = run(capsys, "ladder", "keep", "mine@1.0.0", "--server", server.address,
                       "--token", bob)
    assert code == 2 and "bot name mine belongs to author alice" in err
    assert "mine@1.0.0" not in one_round_ladder(server, stub, capsys)

    code, out, _ = run(capsys, "ladder", "keep", "mine@1.0.0", "--server", server.address,
                       "--token", alice)
    assert code == 0 and "mine@1.0.0 stays on the ladder beside newer versions" in out
    members = one_round_ladder(server, stub, capsys, "--new")
    assert {"mine@1.0.0", "mine@1.1.0"} <= set(members)

    code, out, _ = run(capsys, "ladder", "keep", "mine@1.0.0", "--release", "--server",
                       server.address, "--token", server.token)  # the admin may too
    assert code == 0 and "leaves the ladder once a newer version is active" in out
    members = one_round_ladder(server, stub, capsys, "--new")
    assert "mine@1.0.0" not in members and "mine@1.1.0" in members
