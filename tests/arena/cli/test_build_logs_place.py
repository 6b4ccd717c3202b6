"""Build logs land beside the server's database, not in the working directory's
`.arena/` (issue 28, point 6)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli.client import ArenaClient
from arena.cli.lifecycle import wait_all_active
from arena.cli.submit import upload
from arena.sandbox.build_logs import build_log_dir
from arena.server.app import RunningServer, start_server
from tests.helpers.sandboxes import SAMPLE_BOTS


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server is started from a folder that is not its data folder."""
    folder = tmp_path / "started-here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_a_server_points_the_builds_at_its_data_folder(tmp_path: Path, elsewhere: Path) -> None:
    running = start_server(tmp_path / "data" / "arena.db", port=0)
    try:
        assert build_log_dir() == (tmp_path / "data" / "build-logs").resolve()
    finally:
        running.stop(grace=None)


@pytest.fixture
def docker_vetting_server(tmp_path: Path, elsewhere: Path, base_image: str
                          ) -> Iterator[RunningServer]:
    running = start_server(tmp_path / "data" / "arena.db", port=0, vetting_sandbox="docker")
    yield running
    running.stop(grace=None)


@pytest.mark.docker
def test_an_uploads_build_log_is_written_beside_the_database(
        tmp_path: Path, elsewhere: Path, docker_vetting_server: RunningServer) -> None:
    server = docker_vetting_server
    folder = tmp_path / "my-bot"
    shutil.copytree(SAMPLE_BOTS / "greedy", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    # New content, so the image is built now (not reused from an earlier test); greedy
    # ends its vetting series in a few hands (two random bots may play to the budget).
    (folder / "marker.txt").write_text(f"{tmp_path}\n")
    with ArenaClient(server.address, server.token) as client:
        bot_id = upload(client, folder).bot.id
        wait_all_active(client, [bot_id])
    logs = sorted((tmp_path / "data" / "build-logs").glob("greedy-*.log"))
    assert logs and all(log.read_text().strip() for log in logs)
    assert not (elsewhere / ".arena").exists()
