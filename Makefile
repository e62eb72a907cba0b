# The README's two commands: `make run` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test trees pages bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plot]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python scripts/main_job.py

# The whole suite, then the kernels' tests again with numba's bounds checking: an index past an
# array's end then raises IndexError instead of corrupting memory (checked kernels are cached in
# a folder of their own, optimizer/kernels/__init__.py).
test: $(STAMP)
	$(BIN)/python -m pytest -q
	NUMBA_BOUNDSCHECK=1 $(BIN)/python -m pytest -q -m kernels

trees: $(STAMP)
	$(BIN)/python scripts/make_trees.py

pages: $(STAMP)
	$(BIN)/python scripts/make_trees.py --pages-only

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

lint: $(STAMP)
	$(BIN)/ruff check optimizer scripts tests

clean:
	rm -rf $(VENV) build *.egg-info
