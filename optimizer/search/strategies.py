"""Greedy strategies: one guess chosen per node by a fixed rule, grown into a whole tree."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..games import Game
from ..tree import Node

# choose(candidates, guesses_mode) -> guess index; candidates are sorted code indices
Chooser = Callable[[np.ndarray, str], int]


def split(matrix: np.ndarray, guess: int, candidates: np.ndarray) -> dict[int, np.ndarray]:
    """The candidates grouped by the feedback ``guess`` gets from them."""
    feedback = matrix[guess, candidates]
    order = np.argsort(feedback, kind="stable")
    values, starts = np.unique(feedback[order], return_index=True)
    bounds = list(starts[1:]) + [len(order)]
    return {int(v): candidates[order[a:b]] for v, a, b in zip(values, starts, bounds, strict=True)}


def grow_tree(game: Game, choose: Chooser, guesses: str = "any") -> Node:
    """Apply ``choose`` at every node, from all codes down to single candidates."""
    matrix = game.feedback_matrix()
    root = Node(-1)
    stack = [(root, np.arange(game.n_codes, dtype=np.int32))]
    while stack:
        node, candidates = stack.pop()
        node.guess = int(choose(candidates, guesses))
        parts = split(matrix, node.guess, candidates)
        parts.pop(game.win, None)
        if len(parts) == 1 and len(next(iter(parts.values()))) == len(candidates):
            raise RuntimeError(
                f"strategy chose {game.format_code(node.guess)}, which tells the "
                f"{len(candidates)} candidates nothing apart"
            )
        for fid, part in parts.items():
            child = Node(-1)
            node.next[fid] = child
            stack.append((child, part))
    return root


def first_consistent(candidates: np.ndarray, guesses: str) -> int:
    """Seed 000: the first code, in lexicographic order, that agrees with all feedback."""
    return int(candidates[0])


# name -> factory(game, seed) -> chooser; heuristics register here.
STRATEGIES: dict[str, Callable[[Game, int], Chooser]] = {
    "first-consistent": lambda game, seed: first_consistent,
}
