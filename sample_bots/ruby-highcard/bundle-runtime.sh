#!/usr/bin/env bash
# Bundle this machine's Debian ruby for the Docker image into rt/usr/: the interpreter,
# its standard library and extensions, Debian's grpc and google-protobuf gems
# (vendor_ruby), and every shared library they load that the base image lacks (ldd).
# Everything goes under rt/usr/ (the Dockerfile copies rt/usr/ onto /usr), never
# rt/lib or rt/bin: those are links in the base image. Called by `./build.sh --runtime`.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RT="$HERE/rt"
ARCH_LIB=/usr/lib/x86_64-linux-gnu
RUBY_BIN="$(readlink -f "$(command -v ruby)")"
VERSION="$(ruby -e 'print RbConfig::CONFIG["ruby_version"]')"

say() { echo "bundle-runtime.sh: $*" >&2; }

rm -rf "$RT"
mkdir -p "$RT/usr/bin"
# No symbolic links anywhere: an upload refuses them (files are copied, links followed).
cp "$RUBY_BIN" "$RT/usr/bin/ruby"
# Debian installs the grpc and google-protobuf gems (and grpc's dependencies) for
# rubygems under rubygems-integration: `require "grpc"` activates them from there.
for dir in "/usr/lib/ruby/$VERSION" /usr/lib/ruby/vendor_ruby "$ARCH_LIB/ruby/$VERSION" \
           "$ARCH_LIB/ruby/vendor_ruby" "$ARCH_LIB/rubygems-integration" \
           /usr/share/rubygems-integration; do
    [ -d "$dir" ] || continue
    mkdir -p "$RT$(dirname "$dir")"
    cp -a "$dir" "$RT$(dirname "$dir")/"
done
# Not needed to run: grpc's C sources (18 MiB), headers, the interactive tools, bundler.
rm -rf "$RT$ARCH_LIB"/rubygems-integration/*/gems/grpc-*/src/core \
    "$RT/usr/lib/ruby/$VERSION"/{bundler,irb,rdoc} "$RT/usr/lib/ruby/vendor_ruby/rspec"
find "$RT" -name '*.h' -delete
# No symbolic links: an upload refuses them. Each becomes a copy of what it points to
# (a link to nothing, e.g. rdoc's fonts, is dropped).
find "$RT" -type l | while read -r link; do
    target="$(readlink -f "$link" || true)"
    rm "$link"
    if [ -f "$target" ]; then
        cp "$target" "$link"
    elif [ -d "$target" ]; then
        cp -r "$target" "$link"
    fi
done

# The libraries: what ldd names for the interpreter and every extension, kept under
# usr/lib/... (their /lib/... names resolved to the merged /usr paths), except glibc's,
# which the base image has.
{
    ldd "$RUBY_BIN"
    find "$RT" -name '*.so' -print0 | xargs -0 -r -n1 ldd 2>/dev/null
} | awk '/=> \// {print $3}' | sort -u | while read -r library; do
    case "$(basename "$library")" in
        libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;;
    esac
    real="$(readlink -f "$library")"
    target="$RT/usr/lib/x86_64-linux-gnu"
    mkdir -p "$target"
    cp -L "$real" "$target/$(basename "$library")"
done
[ ! -e "$RT/lib" ] && [ ! -e "$RT/bin" ] || { say "ERROR: rt/lib or rt/bin exists"; exit 1; }
[ -z "$(find "$RT" -type l -print -quit)" ] || { say "ERROR: a symbolic link in rt/"; exit 1; }
say "bundled ruby $VERSION into rt/usr ($(du -sh "$RT" | cut -f1))"
