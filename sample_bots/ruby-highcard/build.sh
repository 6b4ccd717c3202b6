#!/usr/bin/env bash
# Generate ruby-highcard's gRPC stubs from proto/ into gen/ (protoc's Ruby output and
# Debian's grpc_ruby_plugin; arena/scripts/ensure-ruby.sh installs them). For Docker,
# `./build.sh --runtime` also bundles Debian's ruby, its grpc gem and their libraries
# into rt/ (see Dockerfile and docs/bot-guide.md, "An interpreter the base image lacks").
# Nothing is regenerated while gen/ is newer than bot.proto.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_DIR="${HOLLYWOOD_PROTO_DIR:-$HERE/../../proto}"
PROTO_FILE=hollywood/bot/v1/bot.proto
STUB="$HERE/gen/hollywood/bot/v1/bot_services_pb.rb"

say() { echo "build.sh: $*" >&2; }

[ -f "$PROTO_DIR/$PROTO_FILE" ] || { say "ERROR: $PROTO_DIR/$PROTO_FILE not found (set HOLLYWOOD_PROTO_DIR)"; exit 1; }
for tool in protoc grpc_ruby_plugin ruby; do
    command -v "$tool" >/dev/null || { say "ERROR: $tool not found; run arena/scripts/ensure-ruby.sh (Debian: apt-get install ruby ruby-grpc protobuf-compiler protobuf-compiler-grpc)"; exit 1; }
done

if [ -f "$STUB" ] && [ -z "$(find "$PROTO_DIR/$PROTO_FILE" "$HERE/build.sh" -newer "$STUB" -print -quit)" ]; then
    say "gen/ is up to date"
else
    rm -rf "$HERE/gen"
    mkdir -p "$HERE/gen"
    protoc -I "$PROTO_DIR" --ruby_out="$HERE/gen" --grpc_out="$HERE/gen" \
        --plugin=protoc-gen-grpc="$(command -v grpc_ruby_plugin)" "$PROTO_DIR/$PROTO_FILE"
    say "generated gen/ from $PROTO_FILE"
fi

# The run command (bot.toml): a launcher, so that `arena bots register` skips the bot
# until it is built, as it skips an unbuilt compiled bot.
mkdir -p "$HERE/bin"
cat > "$HERE/bin/ruby-highcard" <<'LAUNCHER'
#!/bin/sh
exec ruby "${0%/*}/../bot.rb" "$@"
LAUNCHER
chmod 755 "$HERE/bin/ruby-highcard"

if [ "${1:-}" = "--runtime" ]; then
    bash "$HERE/bundle-runtime.sh"
fi
