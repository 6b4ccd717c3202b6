#!/usr/bin/env bash
# Make sure the Go toolchain of the Go sample bot (sample_bots/go-greedy) is installed;
# install Debian's packages if we can. Nothing comes from the Go module proxy: grpc-go
# and protobuf-go are Debian's, installed as a GOPATH under /usr/share/gocode.
#
# Called by `make go-bot` and by the tests that build sample_bots/go-greedy (not by
# `make setup`: only those tests need it). Like ensure-cpp-toolchain.sh it never
# silently succeeds without the tools: any failure prints what went wrong and exits
# non-zero.
#   1. go, protoc, protoc-gen-go, protoc-gen-go-grpc and Debian's grpc and protobuf
#      Go sources are there -> nothing to do.
#   2. root on Debian -> apt-get install golang-go protobuf-compiler protoc-gen-go
#                        protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev
#                        golang-github-golang-protobuf-1-5-dev.
set -euo pipefail

# golang-github-golang-protobuf-1-5-dev, not the 1-3 that golang-google-grpc-dev pulls in by
# default: grpc's codec goes through github.com/golang/protobuf, and only 1.5 wraps the
# APIv2 messages protoc-gen-go writes (1.3 panics on them: "protobuf tag not enough
# fields"). The two conflict, so installing 1-5 replaces 1-3.
PACKAGES=(golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev
          golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev)
GOCODE=/usr/share/gocode/src

say() { echo "ensure-go-toolchain: $*" >&2; }
fail() { say "ERROR: $*"; exit 1; }

toolchain_ok() {
    command -v go >/dev/null 2>&1 && command -v protoc >/dev/null 2>&1 \
        && command -v protoc-gen-go >/dev/null 2>&1 && command -v protoc-gen-go-grpc >/dev/null 2>&1 \
        && [ -d "$GOCODE/google.golang.org/grpc" ] && [ -d "$GOCODE/google.golang.org/protobuf" ] \
        && [ -f "$GOCODE/github.com/golang/protobuf/proto/registry.go" ]  # 1.5, not 1.3
}

if toolchain_ok; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "the Go sample bot needs go, protoc with protoc-gen-go and protoc-gen-go-grpc, and
Debian's grpc and protobuf Go sources, and this user is not root, so they cannot be installed
here. Install them (e.g. 'sudo apt-get install ${PACKAGES[*]}'), then retry."
fi

if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "the Go toolchain is missing and this is not a Debian-like system with apt-get;
install go, protoc, protoc-gen-go and protoc-gen-go-grpc, and put grpc-go and protobuf-go
in a GOPATH by hand (sample_bots/go-greedy/build.sh looks in $GOCODE)."
fi

say "Go toolchain incomplete; installing Debian's ${PACKAGES[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || fail "apt-get update failed (no route to the Debian mirror?)"
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null \
    || fail "apt-get install ${PACKAGES[*]} failed; see the apt output above"
toolchain_ok || fail "the packages installed, but go, protoc, a protoc plugin or $GOCODE's grpc/protobuf is still missing"
say "installed $(go version), protoc $(protoc --version)"
