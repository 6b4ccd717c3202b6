# Two commands for a newcomer: `make run` and `make test`. Everything else is set up on demand.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LOCK := requirements/dev.lock
RUNTIME_LOCK := requirements/runtime.lock
PROTO_FILES := $(shell find proto/hollywood -name '*.proto' 2>/dev/null)
STUBS_STAMP := proto/gen/.generated
JS_BOT := sample_bots/js-greedy
NODE_STAMP := $(JS_BOT)/node_modules/.installed

.PHONY: setup lock lock-tool lock-upgrade stubs wheel sdk image compose node-modules browser docker-engine cpp-bot go-bot run test test-fast fuzz bench bench-anchors bench-venv mutation lint clean screenshots

setup: $(STAMP) $(STUBS_STAMP) $(NODE_STAMP) browser

# Installs come from the lock alone (requirements/dev.lock, hashes checked), into a venv
# made anew whenever the lock or pyproject changes, so it holds exactly what is locked:
# --no-deps lets nothing unlocked in, --no-build-isolation builds the project with the
# locked setuptools, and pip check fails the setup on a lock that misses a dependency.
$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m pip check
	touch $@

# Refreshing the lock is done on purpose, never by `make setup`: `make lock` after editing
# pyproject.toml keeps every pin that still fits and adds what is new; `make lock-upgrade`
# moves every pin to the newest release the registry serves. Both use uv's resolver
# (pinned here), universal across platforms, with every file's hash.
UV_VERSION := 0.13.9
LOCK_VENV := .lock-venv
LOCK_COMPILE = $(LOCK_VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 \
	--generate-hashes --annotation-style line
lock-tool: $(LOCK_VENV)/.uv-$(UV_VERSION)
$(LOCK_VENV)/.uv-$(UV_VERSION):
	$(PYTHON) -m venv --clear $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet uv==$(UV_VERSION)
	touch $@

lock: lock-tool
	$(LOCK_COMPILE) pyproject.toml requirements/tools.in --extra dev -o $(LOCK)
	$(LOCK_COMPILE) pyproject.toml --constraints $(LOCK) -o $(RUNTIME_LOCK)

lock-upgrade: lock-tool
	$(LOCK_COMPILE) --upgrade pyproject.toml requirements/tools.in --extra dev -o $(LOCK)
	$(LOCK_COMPILE) pyproject.toml --constraints $(LOCK) -o $(RUNTIME_LOCK)

# Python stubs are generated from proto/, never edited by hand (see proto/README.md);
# --link-venv puts them and the bot SDK on the venv's path (hollywood.pth).
stubs $(STUBS_STAMP): $(STAMP) $(PROTO_FILES)
	$(PY) -m arena.codegen --link-venv
	touch $(STUBS_STAMP)

# Wheels to install elsewhere (docs/deploy.md), built from this checkout with the locked
# setuptools, nothing fetched: the arena's (its generated stubs included) and the bot
# SDK's, hollywood-sdk. The SDK's pyproject sits beside its modules; its wheel is built
# from a staged copy that adds the generated stubs, which stay out of git.
DIST := dist
SDK_BUILD := build/sdk
wheel: $(STUBS_STAMP)
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w $(DIST) .

sdk: $(STUBS_STAMP)
	rm -rf $(SDK_BUILD)
	mkdir -p $(SDK_BUILD) $(DIST)
	cp sample_bots/sdk/python/pyproject.toml $(SDK_BUILD)/
	cp -r sample_bots/sdk/python/hollywood_sdk proto/gen/python/hollywood $(SDK_BUILD)/
	find $(SDK_BUILD) -name __pycache__ -prune -exec rm -rf {} +
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w $(DIST) $(SDK_BUILD)

# The arena server's image (deploy/Dockerfile, docs/deploy.md): built on the local base
# image from wheels prepared here, for this machine's Python; no registry is needed.
image: setup docker-engine
	bash deploy/build-image.sh

# The JavaScript sample bot runs as a host process in the tests: it needs node and its
# node modules (git-ignored; reinstalled when package.json or package-lock.json change).
node-modules $(NODE_STAMP): $(JS_BOT)/package.json $(JS_BOT)/package-lock.json
	bash arena/scripts/ensure-node.sh
	cd $(JS_BOT) && npm ci --prefer-offline --no-audit --no-fund --silent
	touch $(NODE_STAMP)

# The browser tests drive Debian's headless chromium through chromedriver (root: apt-get).
browser:
	bash arena/scripts/ensure-chromium.sh

# Installs and starts a Docker engine when the machine has none (needs root on Debian).
docker-engine:
	bash arena/scripts/ensure-docker.sh

# docker-compose for deploy/compose.yaml and its test (Debian's package; root: apt-get).
compose:
	bash arena/scripts/ensure-compose.sh

# The compiled sample bot (sample_bots/cpp-greedy): Debian's C++ gRPC toolchain (root:
# apt-get), then its build (bin/ + lib/, git-ignored; nothing is rebuilt while the binary
# is newer than its sources). Not part of `setup`: `make test` builds it before pytest
# starts, so the build's time (minutes on a loaded machine) never counts against a test's
# timeout; its own tests still run both steps, which are then no-ops.
cpp-bot:
	bash arena/scripts/ensure-cpp-toolchain.sh
	sample_bots/cpp-greedy/build.sh

# The Go sample bot (sample_bots/go-greedy): Debian's Go toolchain and grpc-go (root:
# installed if missing), then build.sh (a static binary in bin/).
go-bot:
	bash arena/scripts/ensure-go-toolchain.sh
	sample_bots/go-greedy/build.sh

# Options for `arena demo`, e.g. make run ARGS="--http 127.0.0.1:8090" (a second demo on
# the same machine on another port) or ARGS="--no-http --series-per-pair 1".
ARGS ?=

run: setup docker-engine
	$(VENV)/bin/arena demo $(ARGS)

test: setup docker-engine compose cpp-bot go-bot
	$(PY) -m pytest -q

test-fast: setup go-bot
	$(PY) -m pytest -q -m "not docker and not slow and not browser and not cluster"

# Mutation testing (docs/testing.md): too slow for `make test` or CI. Scope and tests
# are in pyproject.toml [tool.mutmut]; narrow a run with MUTANTS, e.g.
# `make mutation MUTANTS='engine.settle*'`. Results are kept in mutants/ (git-ignored),
# so a rerun retests only what changed; the survivors are listed at the end. The
# mutation Hypothesis profile (tests/conftest.py) caps the property tests at a few
# fixed examples per mutant; the run is niced so it leaves the machine usable.
MUTANTS ?=
MUTATION_CHILDREN ?= 2
mutation: setup
	HOLLYWOOD_HYPOTHESIS_PROFILE=mutation nice -n 10 $(VENV)/bin/mutmut run --max-children $(MUTATION_CHILDREN) $(MUTANTS)
	@echo "== surviving mutants (inspect one with: $(VENV)/bin/mutmut show NAME)"
	@$(VENV)/bin/mutmut results

# The README's screenshots of Arena TV, the front page and a human game, taken in
# Chromium by their browser tests into docs/images/ (generated: not committed).
screenshots: setup
	HOLLYWOOD_DOCS_SCREENSHOTS=1 $(PY) -m pytest -q tests/arena/web/test_web_tv_browser.py tests/arena/web/test_web_play_browser.py

# The fuzz suites of both protocols with many more examples than `make test` runs.
fuzz: setup
	HOLLYWOOD_FUZZ_EXAMPLES=$${HOLLYWOOD_FUZZ_EXAMPLES:-1000} $(PY) -m pytest -q tests/arena/server/test_fuzz_arena_api.py tests/arena/match/test_fuzz_bot_replies.py

# Every benchmark, then one table of the figures with anchors or targets (measured,
# target, met?) and the load and steal while each ran (tests/bench/summary.py).
# `make bench-anchors` runs only the benchmarks behind that table.
bench: setup docker-engine bench-venv
	$(PY) tests/bench/summary.py --all

bench-anchors: setup docker-engine bench-venv
	$(PY) tests/bench/summary.py

# The benchmarks' anchors in their own environments, never the project's .venv:
# OpenSpiel's C++ gin rummy (open-spiel from PyPI) for bench_deadwood.py and
# bench_env.py, and PettingZoo's gin_rummy_v4 (pettingzoo[classic] 1.24, the last
# release with it, and RLCard) for bench_env.py. A machine where one cannot install
# still runs `make bench`: those benchmarks then name the missing anchor and print
# the project's rows alone.
BENCH_VENV := .bench-venv
PETTINGZOO_VENV := .bench-venv-pettingzoo
bench-venv: $(BENCH_VENV)/.installed $(PETTINGZOO_VENV)/.installed

$(BENCH_VENV)/.installed:
	$(PYTHON) -m venv $(BENCH_VENV)
	if $(BENCH_VENV)/bin/python -m pip install --quiet 'open-spiel>=2.0.2,<2.1'; then touch $@; \
	else echo "open-spiel did not install: bench_deadwood.py and bench_env.py run without it"; fi

$(PETTINGZOO_VENV)/.installed:
	$(PYTHON) -m venv $(PETTINGZOO_VENV)
	if $(PETTINGZOO_VENV)/bin/python -m pip install --quiet 'pettingzoo[classic]>=1.24,<1.25'; \
	then touch $@; else echo "pettingzoo[classic] did not install: bench_env.py runs without it"; fi

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict engine arena hollywood_env examples sample_bots/sdk/python/hollywood_sdk
	$(VENV)/bin/lint-imports
	$(VENV)/bin/vulture
	$(PY) -m arena.codegen --check

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(PETTINGZOO_VENV) $(LOCK_VENV) proto/gen .mypy_cache .ruff_cache .pytest_cache mutants $(JS_BOT)/node_modules
