#!/usr/bin/env bash
# Make sure the C++ toolchain of the compiled sample bot (sample_bots/cpp-greedy) is
# installed; install Debian's packages if we can.
#
# Called by `make cpp-bot` and by the tests that build sample_bots/cpp-greedy (not by
# `make setup`: only those tests need it, and it is a few hundred MB of packages). Like
# ensure-chromium.sh it never silently succeeds without the tools: any failure prints what
# went wrong and exits non-zero.
#   1. g++, protoc, grpc_cpp_plugin and the grpc++/protobuf pkg-config files are there -> nothing to do.
#   2. root on Debian -> apt-get install g++ make pkg-config protobuf-compiler
#                        protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev.
set -euo pipefail

PACKAGES=(g++ make pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev)

say() { echo "ensure-cpp-toolchain: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

toolchain_ok() {
    command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 \
        && command -v protoc >/dev/null 2>&1 && command -v grpc_cpp_plugin >/dev/null 2>&1 \
        && pkg-config --exists grpc++ protobuf 2>/dev/null
}

if toolchain_ok; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "the C++ sample bot needs g++, protoc, grpc_cpp_plugin and the grpc++ and protobuf
development files, and this user is not root, so they cannot be installed here. Install them
(e.g. 'sudo apt-get install ${PACKAGES[*]}'), then retry."
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "the C++ toolchain is missing and this is not a Debian-like system with apt-get;
install a C++ compiler, protoc with the gRPC C++ plugin, and the grpc++ and protobuf
development files (with their pkg-config files) by hand."
fi

say "C++ toolchain incomplete; installing Debian's ${PACKAGES[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null \
    || fail "apt-get install ${PACKAGES[*]} failed; see the apt output above"
toolchain_ok || fail "the packages installed, but g++, protoc, grpc_cpp_plugin or pkg-config's grpc++/protobuf is still missing"
say "installed $(g++ --version | head -n1), protoc $(protoc --version), grpc++ $(pkg-config --modversion grpc++)"
