# Two commands for a newcomer: `make run` and `make test`. Everything else is set up on demand.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROTO_FILES := $(shell find proto/hollywood -name '*.proto' 2>/dev/null)
STUBS_STAMP := proto/gen/.generated
JS_BOT := sample_bots/js-greedy
NODE_STAMP := $(JS_BOT)/node_modules/.installed

.PHONY: setup stubs node-modules browser docker-engine run test test-fast bench lint clean

setup: $(STAMP) $(STUBS_STAMP) $(NODE_STAMP) browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# Python stubs are generated from proto/, never edited by hand (see proto/README.md);
# --link-venv puts them and the bot SDK on the venv's path (hollywood.pth).
stubs $(STUBS_STAMP): $(STAMP) $(PROTO_FILES)
	$(PY) -m arena.codegen --link-venv
	touch $(STUBS_STAMP)

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

run: setup docker-engine
	$(VENV)/bin/arena demo

test: setup docker-engine
	$(PY) -m pytest -q

test-fast: setup
	$(PY) -m pytest -q -m "not docker and not slow"

bench: setup docker-engine
	@set -e; for b in tests/bench/bench_*.py; do echo "== $$b"; $(PY) $$b; done

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict engine arena sample_bots/sdk/python/hollywood_sdk
	$(VENV)/bin/lint-imports
	$(PY) -m arena.codegen --check

clean:
	rm -rf $(VENV) proto/gen .mypy_cache .ruff_cache .pytest_cache $(JS_BOT)/node_modules
