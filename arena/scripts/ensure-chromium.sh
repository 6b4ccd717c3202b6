#!/usr/bin/env bash
# Make sure Debian's chromium and chromium-driver are installed; install them if we can.
#
# Called by `make setup`: the browser tests (pytest marker `browser`) drive a headless
# /usr/bin/chromium through /usr/bin/chromedriver with selenium, and they never skip
# (CI runs them). Like ensure-docker.sh and ensure-node.sh it never silently succeeds
# without them: any failure prints what went wrong and exits non-zero.
#   1. both binaries answer --version -> nothing to do.
#   2. root on Debian                 -> apt-get install chromium chromium-driver.
# HOLLYWOOD_CHROMIUM / HOLLYWOOD_CHROMEDRIVER name other binaries (default /usr/bin/...).
set -euo pipefail

CHROMIUM="${HOLLYWOOD_CHROMIUM:-/usr/bin/chromium}"
CHROMEDRIVER="${HOLLYWOOD_CHROMEDRIVER:-/usr/bin/chromedriver}"

say() { echo "ensure-chromium: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

browser_ok() {
    [ -x "$CHROMIUM" ] && [ -x "$CHROMEDRIVER" ] \
        && "$CHROMIUM" --version >/dev/null 2>&1 && "$CHROMEDRIVER" --version >/dev/null 2>&1
}

if browser_ok; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "$CHROMIUM and $CHROMEDRIVER are needed (the browser tests) and this user is not
root, so they cannot be installed here. Install them (e.g. 'sudo apt-get install chromium
chromium-driver'), then retry."
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "chromium/chromedriver are missing and this is not a Debian-like system with apt-get;
install Chromium and its matching ChromeDriver by hand and point HOLLYWOOD_CHROMIUM and
HOLLYWOOD_CHROMEDRIVER at them."
fi

say "chromium or chromedriver not found; installing Debian's chromium and chromium-driver (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
apt-get install -y -qq chromium chromium-driver >/dev/null \
    || fail "apt-get install chromium chromium-driver failed; see the apt output above"
browser_ok || fail "chromium and chromium-driver installed, but $CHROMIUM or $CHROMEDRIVER does not answer --version"
say "installed $("$CHROMIUM" --version 2>/dev/null), $("$CHROMEDRIVER" --version 2>/dev/null | head -n1)"
