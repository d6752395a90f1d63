# MeSQ — the README's two commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DATA_DIR ?= .mesq
PORT ?= 8787

.PHONY: run test test-fast date-check lint typecheck unit bench install clean messages prerequisites-run prerequisites-test deploy-check
# Prerequisites, then the venv, then the work: in that order even under -j.
.NOTPARALLEL:

# Python, Java, npm, Chromium...: installed with apt-get when root on Debian (as CI runs), else one
# line naming what is missing and the command that installs it.
prerequisites-run:
	@PYTHON=$(PYTHON) bash infra/prerequisites.sh run

prerequisites-test:
	@PYTHON=$(PYTHON) bash infra/prerequisites.sh test

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("Python >= 3.11 is required") if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# `make run` installs the runtime only (no test, lint, browser or moto packages); `make test` the dev extras.
RUN_STAMP := $(VENV)/.runtime-stamp
$(RUN_STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("Python >= 3.11 is required") if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

# `make run PORT=8080 DATA_DIR=~/mesq-data`: another port and data directory (README "First steps").
# The server's own banner says how to create the first account and a token (shorter once one exists).
run: prerequisites-run $(RUN_STAMP)
	@echo "Starting MeSQ on SQLite + local files under $(DATA_DIR)/ (another port or directory: make run PORT=8080 DATA_DIR=~/mesq-data)"
	$(BIN)/mesq serve --data-dir $(DATA_DIR) --port $(PORT)

lint: install
	$(BIN)/ruff check layers/core functions tests infra bench

typecheck: install
	$(BIN)/mypy

test: prerequisites-test install
	# Beside the tools the tests start and the checks, one collection of the suite writes each test module's
	# assertion-rewritten bytecode once: the three workers then read it instead of each rewriting the same
	# ~700 modules (~20 CPU-seconds a worker on a fresh clone). Its errors, if any, the parallel pass reports.
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 & collecting=$$!; \
	$(BIN)/python infra/dynamodb_local.py --install-only && \
	$(BIN)/python infra/dav_clients.py --install-only && \
	$(BIN)/python infra/conformance_suite.py --install-only && \
	$(MAKE) --no-print-directory lint typecheck; checked=$$?; wait $$collecting; exit $$checked
	# Three xdist workers on the 2 cores, as the fast lane: a third keeps the cores busy while a test waits on a
	# browser, a server or DynamoDB Local (docs/testing.md). Each module goes whole to one worker, in the order
	# tests/conftest.py gives (the modules with heavy tests first): its server, browser and tables start once.
	# `--durations` prints the 25 slowest: the run's bound is 30 minutes.
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -m "not timing" -n 3 --dist loadscope --no-loadscope-reorder -p no:cacheprovider --hypothesis-profile=ci --durations=25
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -m timing -p no:cacheprovider --hypothesis-profile=ci

# The fast lane (docs/testing.md): no Chromium, no server subprocess or Node, no DynamoDB Local,
# not the relevance set; three xdist workers (on 2 cores: a third keeps them busy while a test waits on I/O; measured 2 workers 130 s, 3 workers 117 s); a fifth of the hypothesis examples (tests/hypothesis_lanes.py).
# `make test` above runs the whole suite with the full counts, derandomized (the `ci` profile): every test but the `timing` ones
# (wall-clock bounds) on three xdist workers, then those alone.
FAST_MARKS := not slow and not browser and not e2e and not dynamodb_local
# Bytecode on (`env -u PYTHONDONTWRITEBYTECODE`): pytest keeps its rewritten test modules in
# __pycache__, so a second run collects in 6 s of CPU per process instead of 16 (docs/testing.md).
test-fast: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -m "$(FAST_MARKS)" -n 3 -p no:cacheprovider --hypothesis-profile=fast

# The suite with every clock 30 days ahead (libfaketime), then what failed again at +0 days: lists the
# tests that fail on a later date, not those libfaketime breaks (infra/date_check.py, docs/testing.md).
# Not part of `test`: ~30 minutes here, longer than `test` itself. `make date-check DATE_CHECK_ARGS="--days 3 --days 60"`.
date-check: prerequisites-test install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python infra/date_check.py $(DATE_CHECK_ARGS)

# sam validate --lint, sam build (arm64, python3.12) and the transformed-template cfn-lint; the SAM
# CLI lives in its own venv (.cache/sam-venv). Not part of `test`: the first run downloads the CLI
# and every arm64 wheel (minutes); see docs/deploy.md.
deploy-check: install
	$(BIN)/python infra/deploy_check.py

# The web pages' message catalogs (docs/i18n.md): extract every marked string, update the zh and en
# .po files (new strings untranslated, gone ones dropped), compile the committed .mo files.
messages: install
	$(BIN)/python infra/messages.py

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .mypy_cache .ruff_cache
