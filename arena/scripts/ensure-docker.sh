#!/usr/bin/env bash
# Make sure a Docker engine answers `docker info`; install and start one if we can.
#
# Called by `make docker-engine` (which `make test`, `make run` and `make bench` depend
# on). It never silently succeeds without an engine: the Docker tests must run for
# real, so any failure prints what went wrong and exits non-zero.
#   1. `docker info` works            -> nothing to do.
#   2. root on Debian, no dockerd     -> apt-get install docker.io.
#   3. dockerd installed, not running -> start it in the background, log to
#      $HOLLYWOOD_DOCKERD_LOG (default /var/log/hollywood-dockerd.log), wait for it.
set -euo pipefail

DOCKERD_LOG="${HOLLYWOOD_DOCKERD_LOG:-/var/log/hollywood-dockerd.log}"
WAIT_SECONDS="${HOLLYWOOD_DOCKERD_WAIT:-60}"

say() { echo "ensure-docker: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

engine_answers() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "no Docker engine answers 'docker info' and this user is not root, so it cannot be
installed or started here. Start Docker (e.g. 'sudo systemctl start docker') or add this
user to the 'docker' group, then retry."
fi

if ! command -v dockerd >/dev/null 2>&1; then
    if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
        fail "dockerd is not installed and this is not a Debian-like system with apt-get;
install Docker by hand (https://docs.docker.com/engine/install/) and retry."
    fi
    say "dockerd not found; installing Debian's docker.io (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
    apt-get install -y -qq docker.io >/dev/null \
        || fail "apt-get install docker.io failed; see the apt output above"
    command -v dockerd >/dev/null 2>&1 || fail "docker.io installed but dockerd is still missing"
fi

if ! command -v docker >/dev/null 2>&1; then
    fail "dockerd is installed but the docker client is not; install docker.io or docker-ce-cli"
fi

if pgrep -x dockerd >/dev/null 2>&1; then
    say "dockerd is running but not answering yet; waiting"
else
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    mkdir -p "$(dirname "$DOCKERD_LOG")"
    # setsid: the daemon must outlive this script and the make that called it.
    setsid nohup dockerd >"$DOCKERD_LOG" 2>&1 < /dev/null &
fi

for _ in $(seq 1 "$WAIT_SECONDS"); do
    if engine_answers; then
        say "Docker engine is up ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
        exit 0
    fi
    sleep 1
done

say "last lines of $DOCKERD_LOG:"
tail -n 20 "$DOCKERD_LOG" >&2 2>/dev/null || true
fail "dockerd did not answer 'docker info' within ${WAIT_SECONDS}s (see the log above)"
