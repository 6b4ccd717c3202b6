#!/usr/bin/env bash
# Make sure the Ruby sample bot's tools (sample_bots/ruby-highcard) are installed; install
# Debian's packages if we can. Nothing comes from RubyGems: ruby-grpc and
# ruby-google-protobuf are Debian's, and the stubs are generated from proto/ by protoc
# with Debian's grpc_ruby_plugin (protobuf-compiler-grpc).
#
# Called by the tests that build sample_bots/ruby-highcard (not by `make setup`: only
# those tests need it). Like ensure-go-toolchain.sh it never silently succeeds
# without the tools: any failure prints what went wrong and exits non-zero.
#   1. ruby with the grpc gem, protoc and grpc_ruby_plugin are there -> nothing to do.
#   2. root on Debian -> apt-get install ruby ruby-grpc protobuf-compiler
#                        protobuf-compiler-grpc.
set -euo pipefail

PACKAGES=(ruby ruby-grpc ruby-google-protobuf protobuf-compiler protobuf-compiler-grpc)

say() { echo "ensure-ruby: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

tools_ok() {
    command -v ruby >/dev/null 2>&1 && command -v protoc >/dev/null 2>&1 \
        && command -v grpc_ruby_plugin >/dev/null 2>&1 \
        && ruby -e 'require "grpc"; require "google/protobuf"' >/dev/null 2>&1
}

if tools_ok; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "the Ruby sample bot needs ruby with Debian's ruby-grpc, protoc and grpc_ruby_plugin,
and this user is not root, so they cannot be installed here. Install them (e.g. 'sudo
apt-get install ${PACKAGES[*]}'), then retry."
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "ruby or its grpc gem is missing and this is not a Debian-like system with apt-get;
install ruby, the grpc and google-protobuf gems, protoc and grpc_ruby_plugin by hand."
fi

say "Ruby tools incomplete; installing Debian's ${PACKAGES[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null \
    || fail "apt-get install ${PACKAGES[*]} failed; see the apt output above"
tools_ok || fail "the packages installed, but ruby's grpc gem, protoc or grpc_ruby_plugin is still missing"
say "installed $(ruby --version)"
