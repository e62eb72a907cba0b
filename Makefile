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

test: $(STAMP)
	$(BIN)/python -m pytest -q

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
