#!/usr/bin/env bash
# Make sure Node.js and npm are installed; install Debian's packages if we can.
#
# Called by `make setup` before `npm ci` in sample_bots/js-greedy: the JavaScript
# sample bot runs as a local process in the tests, so the host needs node and the
# bot's node modules. Like ensure-docker.sh it never silently succeeds without them:
# any failure prints what went wrong and exits non-zero.
#   1. node (>= MIN_MAJOR) and npm answer -> nothing to do.
#   2. root on Debian                     -> apt-get install nodejs npm.
set -euo pipefail

MIN_MAJOR="${HOLLYWOOD_NODE_MIN_MAJOR:-18}"

say() { echo "ensure-node: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

node_major() { node --version 2>/dev/null | sed -n 's/^v\([0-9][0-9]*\)\..*/\1/p'; }

node_ok() {
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || return 1
    local major
    major="$(node_major)"
    [ -n "$major" ] && [ "$major" -ge "$MIN_MAJOR" ]
}

if node_ok; then
    exit 0
fi

if command -v node >/dev/null 2>&1 && [ -n "$(node_major)" ] && [ "$(node_major)" -lt "$MIN_MAJOR" ]; then
    fail "node $(node --version) is older than v$MIN_MAJOR (needed by @grpc/grpc-js);
install a newer Node.js (https://nodejs.org) and retry."
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "node and npm are needed (sample_bots/js-greedy) and this user is not root, so they
cannot be installed here. Install them (e.g. 'sudo apt-get install nodejs npm'), then retry."
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "node/npm are missing and this is not a Debian-like system with apt-get;
install Node.js by hand (https://nodejs.org) and retry."
fi

say "node or npm not found; installing Debian's nodejs and npm (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
apt-get install -y -qq nodejs npm >/dev/null \
    || fail "apt-get install nodejs npm failed; see the apt output above"
node_ok || fail "nodejs and npm installed, but 'node --version' is not v$MIN_MAJOR or newer ($(node --version 2>&1))"
say "installed node $(node --version), npm $(npm --version)"
