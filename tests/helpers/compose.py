"""The deployment of deploy/compose.yaml for tests and benchmarks: the server's image
(deploy/build-image.sh), the cluster's certificates (`arena cluster certs`, owned by
the services' user), a compose project of its own (its own network and volume), its
containers' health and addresses, and its removal with everything it made."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from arena.cli import main
from tests.helpers.polling import wait_until
from tests.helpers.ports import free_port

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "deploy" / "compose.yaml"
IMAGE = "hollywood/arena:local"
SERVICE_UID = 10002
"""The image's user (deploy/Dockerfile): the mounted keys (0600) must be its own."""
SERVICES = ("scheduler", "worker-1", "worker-2", "server")
COMPOSE_HOSTS = ("server", "scheduler", "worker-1", "worker-2")


def compose_command() -> list[str]:
    """``docker-compose`` (Debian's package, `make compose`) or the ``docker compose``
    plugin, whichever this machine has; AssertionError naming the fix otherwise."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    plugin = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    assert plugin.returncode == 0, "no docker-compose: run `make compose` (Debian's package)"
    return ["docker", "compose"]


def build_image(tag: str = IMAGE) -> str:
    """Build the server's image as `make image` does; returns ``tag``."""
    built = subprocess.run(["bash", str(REPO / "deploy" / "build-image.sh"), tag], cwd=REPO,
                           capture_output=True, text=True, timeout=1200, check=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return tag


def make_certs(directory: Path) -> Path:
    """The cluster's certificates naming every service, owned by the services' user."""
    assert main(["cluster", "certs", str(directory),
                 *[arg for host in COMPOSE_HOSTS for arg in ("--host", host)]]) == 0
    for path in (directory, *directory.iterdir()):
        os.chown(path, SERVICE_UID, SERVICE_UID)
    return directory


@dataclass
class Deployment:
    """One compose project of deploy/compose.yaml, with its published ports."""

    project: str
    certs: Path
    image: str
    port: int
    http_port: int
    metrics_port: int

    def environment(self) -> dict[str, str]:
        return dict(os.environ, ARENA_IMAGE=self.image, ARENA_CERTS=str(self.certs),
                    ARENA_PORT=str(self.port), ARENA_HTTP_PORT=str(self.http_port),
                    ARENA_METRICS_PORT=str(self.metrics_port))

    def compose(self, *arguments: str, timeout: float = 600) -> str:
        done = subprocess.run(
            [*compose_command(), "--project-name", self.project, "--file", str(COMPOSE_FILE),
             *arguments], env=self.environment(), capture_output=True, text=True,
            timeout=timeout, check=False)
        assert done.returncode == 0, f"compose {arguments}: {done.stdout}{done.stderr}"
        return done.stdout

    def container(self, service: str) -> str:
        return self.compose("ps", "--quiet", service).strip()

    def inspect(self, service: str) -> dict[str, object]:
        out = subprocess.run(["docker", "inspect", self.container(service)],
                             capture_output=True, text=True, check=True, timeout=60).stdout
        answer: dict[str, object] = json.loads(out)[0]
        return answer

    def health(self, service: str) -> str:
        state = self.inspect(service)["State"]
        assert isinstance(state, dict)
        return str(state.get("Health", {}).get("Status", state.get("Status")))

    def addresses(self) -> dict[str, str]:
        """Each service's address on the project's network."""
        found = {}
        for service in SERVICES:
            networks = self.inspect(service)["NetworkSettings"]
            assert isinstance(networks, dict)
            [network] = networks["Networks"].values()
            found[service] = network["IPAddress"]
        return found

    def exec(self, service: str, *command: str) -> str:
        return subprocess.run(["docker", "exec", self.container(service), *command],
                              capture_output=True, text=True, check=True, timeout=120).stdout

    def admin_token(self) -> str:
        # The image has no shell tools, only Python.
        return self.exec("server", "python3", "-c",
                         "print(open('/var/lib/arena/admin.token').read().strip())").strip()

    def up(self, bound_s: float = 300) -> float:
        """Start every service; wait until the server is healthy. Returns the seconds
        from `up` to healthy."""
        started = time.monotonic()
        self.compose("up", "--detach")
        wait_until(lambda: self.health("server") == "healthy", what="the server healthy",
                   bound_s=bound_s, interval_s=0.5)
        return time.monotonic() - started

    def down(self) -> None:
        """Remove the containers, the network and the volume."""
        self.compose("down", "--volumes", "--timeout", "20")


def deployment(tmp_path: Path, image: str = IMAGE) -> Deployment:
    # A project name of its own: its network, volume and containers clash with no other.
    return Deployment(f"hgtest{os.getpid()}{time.monotonic_ns() % 100000}",
                      make_certs(tmp_path / "certs"), image, free_port(), free_port(),
                      free_port())
