"""Greedy strategies: one guess chosen per node by a fixed rule, grown into a whole tree.

Each strategy is a factory ``(game, seed) -> choose(candidates, guesses_mode)`` in
``STRATEGIES``. ``guesses_mode`` is ``"consistent"`` (only candidates may be guessed) or
``"any"`` (every code may be guessed).

- ``first-consistent`` (seed 000): the lowest candidate.
- ``random-consistent`` (seeds 001, 002): the candidate that comes first in one shuffle of all
  codes drawn from ``seed`` -- seed 002's solver, and a repeatable tree for each seed.
- ``minimax``, ``expected-size``, ``entropy``, ``most-parts``: the guess whose partition of the
  candidates scores best (see ``optimizer.kernels.heuristics``). Ties: prefer a candidate, then
  the lowest code.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..games import Game
from ..games.base import tells_nothing
from ..objective import CONSISTENT_ONLY, HEURISTICS  # noqa: F401 (the package's names)
from ..tree import Node, height_and_total

# choose(candidates, guesses_mode) -> guess index; candidates are sorted code indices
Chooser = Callable[[np.ndarray, str], int]


def grow_tree(game: Game, choose: Chooser, guesses: str = "any",
              deadline: float | None = None, depths: dict[int, int] | None = None,
              opening: int | None = None) -> Node:
    """Apply ``choose`` at every node, from all codes down to single candidates; TimeoutError
    past ``deadline`` (a time.monotonic() value: the set-up of a time-limited search).
    ``depths``, when given, counts the secrets solved at each depth as the tree grows: the tree
    follows the rules by construction, so its height and total need no replay (which was a
    tenth of Mastermind's least-total command). ``opening``: the root's guess, when given."""
    root = Node(-1)
    stack = [(root, np.arange(game.n_secrets, dtype=np.int32), 1)]
    while stack:
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError
        node, candidates, depth = stack.pop()
        node.guess = int(choose(candidates, guesses)) if node is not root or opening is None \
            else opening
        parts = game.parts(node.guess, candidates)
        if tells_nothing(parts, len(candidates)):
            raise RuntimeError(
                f"strategy chose {game.format_code(node.guess)}, which tells the "
                f"{len(candidates)} candidates nothing apart"
            )
        if depths is not None and len(candidates) > sum(len(p) for p in parts.values()):
            depths[depth] = depths.get(depth, 0) + 1  # the guess was a candidate: solved here
        for fid, part in parts.items():
            child = Node(-1)
            node.next[fid] = child
            stack.append((child, part, depth + 1))
    return root


def first_consistent(candidates: np.ndarray, guesses: str) -> int:
    """Seed 000: the first code, in lexicographic order, that agrees with all feedback."""
    return int(candidates[0])


def random_consistent(game: Game, seed: int) -> Chooser:
    """Seeds 001/002: shuffle every code once (from ``seed``), guess the first candidate in
    that order. One shuffle for the whole tree is exactly seed 002's solver for one game."""
    rank = np.random.default_rng(seed).permutation(game.n_codes)

    def choose(candidates: np.ndarray, guesses: str) -> int:
        return int(candidates[np.argmin(rank[candidates])])

    return choose


def heuristic(rule_name: str) -> Callable[[Game, int], Chooser]:
    """Factory of a partition-scoring strategy; the numba kernel does the scoring."""

    def factory(game: Game, seed: int) -> Chooser:
        from ..kernels.heuristics import RULES, choose_guess

        rule = RULES[rule_name]
        _, transposed, _, n_answers = game.answer_matrices()
        every_code = np.arange(game.n_codes, dtype=np.int32)

        def choose(candidates: np.ndarray, guesses: str) -> int:
            # hard mode: consistent guesses, which keep every hint (a subset of what it allows)
            allowed = every_code if guesses == "any" else candidates
            return int(choose_guess(transposed, candidates, allowed, rule, n_answers))

        return choose

    return factory


# name -> factory(game, seed) -> chooser
STRATEGIES: dict[str, Callable[[Game, int], Chooser]] = {
    "first-consistent": lambda game, seed: first_consistent,
    "random-consistent": random_consistent,
    **{name: heuristic(name) for name in HEURISTICS},
}


# --- greedy starting points --------------------------------------------------------------------
# Tried in order for the first upper bound of a least-total search: the first that fits the
# depth limit is taken (first-consistent is built first of all, as the tree to write should the
# search be stopped before anything better exists).
TOTAL_INCUMBENTS = ("entropy", "expected-size", "minimax", "most-parts")
HEIGHT_INCUMBENTS = ("minimax", "expected-size")


def greedy(game: Game, name: str, guesses: str, deadline: float | None = None,
           opening: int | None = None) -> tuple[int, int, Node]:
    """(height, total, root) of one greedy strategy's tree (opening with ``opening`` when
    given); TimeoutError past ``deadline``."""
    mode = "consistent" if name == "first-consistent" else guesses
    depths: dict[int, int] = {}
    root = grow_tree(game, STRATEGIES[name](game, 0), mode, deadline, depths, opening)
    return (*height_and_total(depths), root)


def total_incumbent(game: Game, guesses: str, depth: int, deadline: float | None = None,
                    start=(None, None), opening: int | None = None):
    """(total, root) of a quick greedy tree within ``depth``: the better of ``start`` and the
    first of TOTAL_INCUMBENTS whose tree fits the limit (none is built past ``deadline``); a tree
    the exact search must beat or tie, and what it writes if stopped early."""
    best = start
    for name in TOTAL_INCUMBENTS:
        try:
            height, total, root = greedy(game, name, guesses, deadline, opening)
        except TimeoutError:
            break
        if height <= depth:
            if best[0] is None or total < best[0]:
                best = (total, root)
            break  # one good heuristic within the limit is enough
    return best


def height_incumbent(game: Game, guesses: str, deadline: float | None = None,
                     opening: int | None = None):
    """(height, root) of the lowest greedy tree (ties: lower total), the starting point of the
    least-height search."""
    best, best_key = (None, None), None
    for name in HEIGHT_INCUMBENTS:
        try:
            height, total, root = greedy(game, name, guesses, deadline, opening)
        except TimeoutError:
            break
        if best_key is None or (height, total) < best_key:
            best, best_key = (height, root), (height, total)
    return best
