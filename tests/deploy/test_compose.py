"""deploy/compose.yaml for real: the server's image (deploy/Dockerfile), a Dask
scheduler and two workers, each container with its own address on a Docker network of
the test's own, speaking mutual TLS with `arena cluster certs` certificates. The
command line on this machine registers the sample bots over the server's TLS (vetted
in the server's container) and plays a season on the workers; one worker is killed
(SIGKILL) while its bots play, and the season still ends with exactly its plan, each
series stored once. Waits poll with bounds; nothing sleeps."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.storage import Storage
from tests.helpers.compose import Deployment, build_image, deployment
from tests.helpers.polling import wait_until

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
BOTS = ("random", "greedy", "shark")
SERIES_PER_PAIR = 6
PLANNED = 3 * SERIES_PER_PAIR


@pytest.fixture(scope="module")
def image() -> str:
    return build_image()


@pytest.fixture
def deployed(image: str, tmp_path: Path) -> Iterator[Deployment]:
    started = deployment(tmp_path, image)
    try:
        started.up()
        yield started
    finally:
        started.down()


@pytest.fixture
def cli(deployed: Deployment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The command line points at the deployed server, over TLS, with its admin token."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("ARENA_SERVER", f"localhost:{deployed.port}")
    monkeypatch.setenv("ARENA_TLS_CA", str(deployed.certs / "ca.pem"))
    monkeypatch.setenv("ARENA_TOKEN", deployed.admin_token())


def _season(season_id: int, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["season", "show", str(season_id), "--json"]) == 0
    season: dict[str, object] = json.loads(capsys.readouterr().out)["season"]
    return season


def _bots_playing_on(deployed: Deployment, service: str) -> bool:
    listing = subprocess.run(["docker", "top", deployed.container(service)],
                             capture_output=True, text=True, timeout=60, check=False).stdout
    return any(f"-m {bot}_bot" in listing for bot in BOTS)


def test_each_service_has_its_own_address_and_none_runs_as_root_or_holds_the_ca_key(
        deployed: Deployment) -> None:
    addresses = deployed.addresses()
    assert len(set(addresses.values())) == len(addresses) == 4, addresses
    assert all(address and not address.startswith("127.") for address in addresses.values())
    for service in addresses:
        uid = deployed.exec(service, "python3", "-c", "import os; print(os.getuid())")
        assert uid.strip() == "10002", service
    # The database lives on the project's named volume; the certificates are mounted
    # read-only, the CA's key nowhere.
    listed = deployed.inspect("server")["Mounts"]
    assert isinstance(listed, list)
    mounts = {mount["Destination"]: mount for mount in listed}
    assert mounts["/var/lib/arena"]["Type"] == "volume"
    assert mounts["/var/lib/arena"]["Name"] == f"{deployed.project}_arena-data"
    tls = sorted(path for path in mounts if path.startswith("/run/arena-cluster/"))
    assert tls == sorted(f"/run/arena-cluster/{name}.pem" for name in (
        "ca", "client", "client-key", "server", "server-key"))
    assert not any(mounts[path]["RW"] for path in tls)


@pytest.mark.usefixtures("cli")
def test_a_season_across_the_containers_survives_a_killed_worker(
        deployed: Deployment, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "register", *(str(REPO / "sample_bots" / bot) for bot in BOTS)]) == 0
    capsys.readouterr()
    assert main(["season", "create", "--bots", *BOTS, "--sandbox", "process",
                 "--series-per-pair", str(SERIES_PER_PAIR), "--max-hands", "40",
                 "--seed", "7", "--json"]) == 0
    season_id = int(json.loads(capsys.readouterr().out)["id"])

    wait_until(lambda: _bots_playing_on(deployed, "worker-1"),
               what="bots playing on worker-1", bound_s=300, interval_s=0.1)
    subprocess.run(["docker", "kill", deployed.container("worker-1")], check=True, timeout=60)
    season = wait_until(
        lambda: (s := _season(season_id, capsys))["status"] != "SEASON_STATUS_RUNNING" and s,
        what="the season to end", bound_s=900, interval_s=1.0)
    assert season["status"] == "SEASON_STATUS_FINISHED", season.get("error")
    assert season["series_done"] == season["series_total"] == PLANNED

    # The database, read after the server stopped: every planned series stored once.
    deployed.compose("stop", "server")
    copied = tmp_path / "data"
    subprocess.run(["docker", "cp", f"{deployed.container('server')}:/var/lib/arena",
                    str(copied)], check=True, timeout=120)
    storage = Storage(copied / "arena.db")
    try:
        planned = sorted(p.series_id for p in storage.planned_series(season_id))
        stored = [r.series_id for r in storage.results(season_id)]
        assert len(planned) == PLANNED
        assert sorted(stored) == planned  # nothing lost, nothing doubled
    finally:
        storage.close()
