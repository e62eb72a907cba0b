"""Shared fixtures: trees built once per test session (the feedback matrix needs numba once)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from optimizer.formats.tree_file import write_tree
from optimizer.games import parse_game
from optimizer.tree import Node, Tree


def pytest_configure(config: pytest.Config) -> None:
    # Registered here rather than in pyproject.toml, whose change would reinstall the venv.
    config.addinivalue_line(
        "markers", "kernels: exercises the numba kernels heavily; make test runs these again "
        "with numba's bounds checking (NUMBA_BOUNDSCHECK=1)")
    # `make check`, the edit-test loop, leaves these three out; `make test` runs everything.
    config.addinivalue_line(
        "markers", "slow: takes seconds (large or many searches); left out of make check")
    config.addinivalue_line(
        "markers", "cluster: starts Dask worker processes or subprocess searches with them")
    config.addinivalue_line("markers", "browser: drives a real Chromium (test_page_browser.py)")


@pytest.fixture
def unraisable_hook():
    """For tests that call the command's signal handler, which installs its own
    ``sys.unraisablehook`` (app._redeliver) over the one before: both put back afterwards, so
    pytest's hook sees the rest of the session's swallowed exceptions."""
    import sys

    from optimizer.cli import app

    kept = sys.unraisablehook, app._redeliver.before
    yield
    sys.unraisablehook, app._redeliver.before = kept


def _first_consistent(spec: str) -> Tree:
    from optimizer.search.build import build
    from optimizer.search.request import Request

    return build(Request(parse_game(spec), strategy="first-consistent"))


@pytest.fixture(scope="session")
def bc_tree() -> Tree:
    """Seed 000's strategy for Bulls and Cows 4 of 10 (total 28024, height 9)."""
    return _first_consistent("bulls-cows:4x10")


@pytest.fixture(scope="session")
def bc_tree_file(bc_tree: Tree, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("trees") / "bulls-cows-4x10.first-consistent.json"
    write_tree(bc_tree, path)
    return path


@pytest.fixture(scope="session")
def small_tree_file(tmp_path_factory) -> Path:
    """A quick tree of a small game (60 codes), for tests that rewrite files."""
    path = tmp_path_factory.mktemp("trees") / "bulls-cows-3x5.json"
    write_tree(_first_consistent("bulls-cows:3x5"), path)
    return path


def build_minimax(game) -> Node:
    """A tree that may guess codes the feedback has already ruled out (the lowest code whose
    largest part is smallest, among all codes), built in plain Python for small games."""

    def build(candidates: list[int]) -> Node:
        if len(candidates) == 1:
            return Node(candidates[0])
        guess = min(
            range(game.n_codes),
            key=lambda g: max(Counter(game.feedback(g, s) for s in candidates).values()),
        )
        parts: dict[int, list[int]] = {}
        for s in candidates:
            if s != guess:
                parts.setdefault(game.feedback(guess, s), []).append(s)
        return Node(guess, {fid: build(part) for fid, part in parts.items()})

    return build(list(range(game.n_codes)))


@pytest.fixture(scope="session")
def minimax():
    return build_minimax


@pytest.fixture(scope="session")
def any_tree_file(tmp_path_factory) -> Path:
    """bulls-cows:3x5 with guesses 'any': some guesses are codes already ruled out."""
    game = parse_game("bulls-cows:3x5")
    path = tmp_path_factory.mktemp("trees") / "bulls-cows-3x5.minimax.any.json"
    write_tree(Tree(game, build_minimax(game), objective="minimax", guesses="any"), path)
    return path
