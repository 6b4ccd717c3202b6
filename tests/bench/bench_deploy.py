"""Deployment benchmark (plain script; `make bench` runs it): the server image's size,
and how long the server takes from start to healthy, alone (`docker run`, no TLS)
and as deploy/compose.yaml (scheduler healthy first, then the server; mutual TLS).

1. Builds the image as `make image` does (not timed) and reports its size, and the
   size of the base image under it.
2. `docker run` of the image with a fresh volume: seconds until the server answers
   gRPC health (`arena health`, polled from here) and until Docker calls the
   container healthy (its own health check, every 10 s), --runs times.
3. `docker-compose up` of deploy/compose.yaml (a project of its own, certificates
   made here): seconds until the server is healthy, --runs times.

Options: --runs N (2), --skip-compose.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402

from arena.cli import main as arena  # noqa: E402
from tests.helpers.compose import IMAGE, build_image, deployment  # noqa: E402
from tests.helpers.polling import wait_until  # noqa: E402
from tests.helpers.ports import free_port  # noqa: E402

BASE_IMAGE = "hollywood/base:local"
MIB = 1024 * 1024


def _size(image: str) -> int:
    return int(subprocess.run(["docker", "image", "inspect", "--format", "{{.Size}}", image],
                              capture_output=True, text=True, check=True).stdout)


def _docker_run_to_healthy() -> tuple[float, float]:
    port = free_port()
    started = time.monotonic()
    container = subprocess.run(
        ["docker", "run", "--detach", "--publish", f"127.0.0.1:{port}:50551", IMAGE],
        capture_output=True, text=True, check=True).stdout.strip()
    try:
        wait_until(lambda: arena(["health", "--server", f"localhost:{port}",
                                  "--timeout", "1"]) == 0,
                   what="gRPC health", bound_s=300, interval_s=0.1)
        answering = time.monotonic() - started
        wait_until(lambda: subprocess.run(
            ["docker", "inspect", "--format", "{{.State.Health.Status}}", container],
            capture_output=True, text=True, check=True).stdout.strip() == "healthy",
            what="Docker's health check", bound_s=300, interval_s=0.2)
        return answering, time.monotonic() - started
    finally:
        subprocess.run(["docker", "rm", "--force", "--volumes", container],
                       capture_output=True, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--skip-compose", action="store_true")
    options = parser.parse_args()
    build_image()
    size, base = _size(IMAGE), _size(BASE_IMAGE)
    print(f"image {IMAGE}: {size / MIB:.0f} MiB ({base / MIB:.0f} MiB of it the base)")
    report("server image size", size / MIB, unit="MiB")
    for run in range(options.runs):
        answering, healthy = _docker_run_to_healthy()
        print(f"docker run #{run + 1}: gRPC health SERVING after {answering:.1f} s, "
              f"Docker healthy after {healthy:.1f} s")
        report("docker run to gRPC SERVING", answering, unit="s")
        report("docker run to healthy", healthy, unit="s")
    if options.skip_compose:
        return
    for run in range(options.runs):
        with tempfile.TemporaryDirectory(prefix="bench-deploy-") as folder:
            deployed = deployment(Path(folder))
            try:
                seconds = deployed.up()
            finally:
                deployed.down()
        print(f"compose up #{run + 1}: server healthy after {seconds:.1f} s")
        report("compose up to healthy server", seconds, unit="s")


if __name__ == "__main__":
    main()
