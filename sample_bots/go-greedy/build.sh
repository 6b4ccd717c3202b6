#!/usr/bin/env bash
# Build go-greedy on this machine into bin/go-greedy: one static binary (CGO_ENABLED=0),
# which the arena's base image runs as it is (see README.md).
#
# Everything comes from Debian's packages, never from the Go module proxy (no registry is
# reachable on the arena's machines): golang-go, protoc with protoc-gen-go and
# protoc-gen-go-grpc, and the libraries golang-google-grpc-dev, golang-google-protobuf-dev
# and golang-github-golang-protobuf-1-5-dev, which Debian installs as a GOPATH under /usr/share/gocode
# (arena/scripts/ensure-go-toolchain.sh installs them). So the build runs in GOPATH mode
# (GO111MODULE=off): the generated code goes to a temporary GOPATH under its go_package
# path, the sources beside it, and /usr/share/gocode supplies grpc and protobuf.
# Nothing is rebuilt while bin/go-greedy is newer than every source.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_DIR="${HOLLYWOOD_PROTO_DIR:-$HERE/../../proto}"
PROTO_FILE=hollywood/bot/v1/bot.proto
BINARY="$HERE/bin/go-greedy"
DEBIAN_GOPATH=/usr/share/gocode

say() { echo "build.sh: $*" >&2; }

[ -f "$PROTO_DIR/$PROTO_FILE" ] || { say "ERROR: $PROTO_DIR/$PROTO_FILE not found (set HOLLYWOOD_PROTO_DIR)"; exit 1; }

if [ -x "$BINARY" ] \
    && [ -z "$(find "$HERE/src" "$PROTO_DIR/$PROTO_FILE" "$HERE/build.sh" -newer "$BINARY" -print -quit)" ]; then
    say "bin/go-greedy is up to date"
    exit 0
fi

for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
    command -v "$tool" >/dev/null || { say "ERROR: $tool not found; run arena/scripts/ensure-go-toolchain.sh (Debian: apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev)"; exit 1; }
done
[ -d "$DEBIAN_GOPATH/src/google.golang.org/grpc" ] \
    || { say "ERROR: $DEBIAN_GOPATH has no google.golang.org/grpc; run arena/scripts/ensure-go-toolchain.sh"; exit 1; }
# grpc's codec needs github.com/golang/protobuf 1.5 (which wraps the generated APIv2
# messages); Debian's 1.3 panics on them at the first call.
[ -f "$DEBIAN_GOPATH/src/github.com/golang/protobuf/proto/registry.go" ] \
    || { say "ERROR: $DEBIAN_GOPATH has github.com/golang/protobuf 1.3, not 1.5; run arena/scripts/ensure-go-toolchain.sh (apt-get install golang-github-golang-protobuf-1-5-dev)"; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src"
# The generated package lands at its go_package import path under $WORK/src.
protoc -I "$PROTO_DIR" --go_out="$WORK/src" --go-grpc_out="$WORK/src" "$PROTO_DIR/$PROTO_FILE"
mkdir -p "$WORK/src/go-greedy"
cp "$HERE"/src/*.go "$WORK/src/go-greedy/"

rm -rf "$HERE/bin"
mkdir -p "$HERE/bin"
(
    cd "$WORK/src/go-greedy"
    GO111MODULE=off GOPATH="$WORK:$DEBIAN_GOPATH" GOFLAGS= GOPROXY=off CGO_ENABLED=0 \
        GOCACHE="${GOCACHE:-${XDG_CACHE_HOME:-${HOME:-$WORK}/.cache}/go-build}" go build -trimpath -ldflags="-s -w" -o "$BINARY" .
)
say "built bin/go-greedy ($(du -h "$BINARY" | cut -f1), static)"
