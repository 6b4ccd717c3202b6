#!/usr/bin/env bash
# Build cpp-greedy on this machine and bundle it for the arena's image (see README.md).
#
#   bin/cpp-greedy   the bot, with rpath $ORIGIN/../lib
#   lib/*.so*        every shared library `ldd` lists for it except the C library and
#                    its loader (libc, libm, libpthread, libdl, librt, libresolv,
#                    ld-linux), which hollywood/base:local has - copied from this same
#                    machine, so their versions match
#
# No container registry is reachable on the arena's machines, so the Dockerfile cannot
# apt-get a toolchain or a runtime: it copies bin/ and lib/ as they are. Libraries are
# copied as regular files under their soname (cp -L), never as symbolic links: bot
# uploads refuse links of any kind (a link could point outside the bot's folder).
# The toolchain comes from Debian (arena/scripts/ensure-cpp-toolchain.sh installs it).
# Intermediate files go to a temporary folder, so the bot folder holds sources and the
# bundle only. Nothing is rebuilt while bin/cpp-greedy is newer than every source.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_DIR="${HOLLYWOOD_PROTO_DIR:-$HERE/../../proto}"
PROTO_FILE=hollywood/bot/v1/bot.proto
BINARY="$HERE/bin/cpp-greedy"
# The glibc family: the base image has the host's own copies (arena/sandbox/base_image.py).
BASE_PROVIDES='^(linux-vdso\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libresolv\.so|ld-linux)'

say() { echo "build.sh: $*" >&2; }

[ -f "$PROTO_DIR/$PROTO_FILE" ] || { say "ERROR: $PROTO_DIR/$PROTO_FILE not found (set HOLLYWOOD_PROTO_DIR)"; exit 1; }

if [ -x "$BINARY" ] && [ -d "$HERE/lib" ] \
    && [ -z "$(find "$HERE/src" "$PROTO_DIR/$PROTO_FILE" "$HERE/build.sh" -newer "$BINARY" -print -quit)" ]; then
    say "bin/cpp-greedy is up to date"
    exit 0
fi

for tool in g++ protoc grpc_cpp_plugin pkg-config; do
    command -v "$tool" >/dev/null || { say "ERROR: $tool not found; run arena/scripts/ensure-cpp-toolchain.sh (Debian: apt-get install g++ pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev)"; exit 1; }
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/gen"
protoc -I "$PROTO_DIR" --cpp_out="$WORK/gen" --grpc_out="$WORK/gen" \
    --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" "$PROTO_DIR/$PROTO_FILE"

rm -rf "$HERE/bin" "$HERE/lib"
mkdir -p "$HERE/bin" "$HERE/lib"
# --disable-new-dtags: DT_RPATH, not DT_RUNPATH, so that the libraries' own
# dependencies (libgrpc++ -> libgrpc -> libabsl_*) are found in lib/ too.
# shellcheck disable=SC2046
g++ -std=c++17 -O2 -s -I "$WORK/gen" -I "$HERE/src" \
    "$HERE/src/main.cc" "$HERE/src/gin.cc" "$WORK/gen/hollywood/bot/v1/bot.pb.cc" \
    "$WORK/gen/hollywood/bot/v1/bot.grpc.pb.cc" \
    -o "$BINARY" -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' \
    $(pkg-config --cflags --libs grpc++ protobuf)

# ldd lines: "libfoo.so.1 => /usr/lib/x86_64-linux-gnu/libfoo.so.1 (0x...)".
count=0
while read -r soname _ path _; do
    [[ "$soname" =~ $BASE_PROVIDES ]] && continue
    [ -f "$path" ] || { say "ERROR: ldd found no file for $soname"; exit 1; }
    cp -L "$path" "$HERE/lib/$soname"
    count=$((count + 1))
done < <(ldd "$BINARY" | grep '=>')
chmod 0644 "$HERE/lib/"*

size="$(du -sh "$HERE/bin" "$HERE/lib" | awk '{print $1}' | paste -sd+ -)"
say "built bin/cpp-greedy and bundled $count shared libraries in lib/ ($size)"
