# The README's two commands: `make run` and `make test`. Both create .venv when it is missing.
# The environment comes in two steps, each with its stamp: what running needs (`make run`: the
# project and its dependencies), then the extras of every other target (dev: tests, browser
# tests, lint; plot: the figures), so that a first `make run` installs no test tools, and `make
# test` after it installs only the extras. Either target works on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS := $(VENV)/.installed-extras
# a new venv gets a current pip (editable installs of a pyproject.toml need pip 21.3)
NEW_VENV := test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && \
	$(BIN)/python -m pip install --quiet --upgrade pip; }

.PHONY: run test check trees pages bench lint clean

$(STAMP): pyproject.toml
	$(NEW_VENV)
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(EXTRAS): pyproject.toml
	$(NEW_VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev,plot]'
	touch $(STAMP) $(EXTRAS)

run: $(STAMP)
	$(BIN)/python scripts/main_job.py

# The whole suite, then the kernels' tests again with numba's bounds checking: an index past an
# array's end then raises IndexError instead of corrupting memory (checked kernels are cached in
# a folder of their own, optimizer/kernels/__init__.py).
test: $(EXTRAS)
	$(BIN)/python -m pytest -q
	NUMBA_BOUNDSCHECK=1 $(BIN)/python -m pytest -q -m kernels

# The edit-test loop: everything but the slow, cluster and browser tests (about two minutes).
check: $(EXTRAS)
	$(BIN)/python -m pytest -q -x -m "not slow and not cluster and not browser"

trees: $(EXTRAS)
	$(BIN)/python scripts/make_trees.py

pages: $(EXTRAS)
	$(BIN)/python scripts/make_trees.py --pages-only

bench: $(EXTRAS)
	$(BIN)/python scripts/bench.py

lint: $(EXTRAS)
	$(BIN)/ruff check optimizer scripts tests

clean:
	rm -rf $(VENV) build *.egg-info
