#!/usr/bin/env bash
# Make sure `docker-compose` (or the `docker compose` plugin) runs, for deploy/compose.yaml
# and its test (tests/deploy/test_compose.py). Debian 12 packages no compose plugin, only
# docker-compose 1.29 (Python), which reads deploy/compose.yaml as it is; installed
# with apt-get when this is root on Debian. Never succeeds silently without one.
set -euo pipefail

say() { echo "ensure-compose: $*" >&2; }

if command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "ERROR: neither docker-compose nor the docker compose plugin is installed, and this
is not root on Debian: install one of them by hand, then retry."
    exit 1
fi
say "installing Debian's docker-compose (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { say "ERROR: apt-get update failed"; exit 1; }
apt-get install -y -qq docker-compose >/dev/null \
    || { say "ERROR: apt-get install docker-compose failed; see the apt output above"; exit 1; }
command -v docker-compose >/dev/null 2>&1 || { say "ERROR: docker-compose still missing"; exit 1; }
