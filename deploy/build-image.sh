#!/usr/bin/env bash
# Builds the arena server's image (deploy/Dockerfile; docs/deploy.md) with no registry
# and no network: the local base image (`arena images prepare-base`), then a build
# context holding the runtime installed on the host from requirements/runtime.lock
# (--require-hashes) and this checkout's wheels (`make wheel sdk`).
#
#   deploy/build-image.sh [TAG]      (default hollywood/arena:local; `make image`)
#
# Needs `make setup` done and a Docker engine (`make docker-engine`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
TAG=${1:-hollywood/arena:local}
CONTEXT=build/deploy

"$PY" -m arena.sandbox.images prepare-base
rm -rf "$CONTEXT"
mkdir -p "$CONTEXT/site" "$CONTEXT/data" "$CONTEXT/wheels"
# -o: the venv and the stubs are taken as they are (`make image` refreshed them first);
# never remade from under a test run that calls this script.
make --no-print-directory -o .venv/.installed -o proto/gen/.generated wheel sdk \
    DIST="$CONTEXT/wheels"
"$PY" -m pip install --quiet --no-deps --require-hashes --only-binary=:all: \
    --target "$CONTEXT/site" -r requirements/runtime.lock
"$PY" -m pip install --quiet --no-deps --target "$CONTEXT/site" "$CONTEXT"/wheels/*.whl
# Console scripts point at this machine's interpreter; the image runs `python3 -m arena.cli`.
rm -rf "$CONTEXT/site/bin"
# Compiled here (the same Python as the base's), so the server does not compile at
# every start: the base sets PYTHONDONTWRITEBYTECODE.
"$PY" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$CONTEXT/site" >/dev/null
cp deploy/Dockerfile "$CONTEXT/Dockerfile"
docker build --network none --pull=false -t "$TAG" "$CONTEXT"
docker image inspect --format 'built {{index .RepoTags 0}}: {{.Size}} bytes' "$TAG"
