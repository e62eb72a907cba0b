"""An anytime upper bound for the least total: the pilot method (a rollout, Bertsekas' name) over
the entropy rule, with exact subtrees for small sets.

At each of the top ``levels`` levels of the tree, the ``width`` guesses the greedy rule likes
best are each tried: the guess, then the greedy tree below each of its parts (counted by a numba
kernel without building it). The guess whose greedy completion costs least is kept, and the same
is done in each of its parts. Below those levels the greedy rule alone chooses, and a set of at
most ``exact_below`` candidates gets its optimal subtree from the exact search. Each choice is at
least as good as the greedy one it replaces (the greedy guess is among those tried), so the tree
never costs more than the greedy tree with the same exact leaves.

Rounds look wider and deeper until the time given runs out; every round's tree is complete, so
a round cut by the time limit still ends with a whole tree (the rest chosen greedily).
"""

from __future__ import annotations

import time

import numpy as np
from tqdm import tqdm

from ..kernels.heuristics import ENTROPY, best_guesses, choose_guess, greedy_total
from ..tree import Node, Tree, replay
from .solver import Solver

# (levels, width) of successive rounds
ROUNDS = ((1, 4), (2, 8), (3, 12), (4, 16), (5, 24), (6, 32), (8, 48))
EXACT_BELOW = 12


class Rollout:
    """Rollout trees of one solver's game and guess mode."""

    def __init__(self, solver: Solver, exact_below: int = EXACT_BELOW, rule: int = ENTROPY):
        self.solver, self.game = solver, solver.game
        self.matrix = self.game.feedback_matrix()
        self.every = solver.all_codes
        self.consistent = solver.guesses == "consistent"
        self.exact_below, self.rule = exact_below, rule
        self.deadline: float | None = None

    def tree(self, levels: int, width: int, deadline: float | None = None) -> Node:
        """One round's tree; past ``deadline`` the greedy rule decides alone."""
        self.deadline = deadline
        return self._node(self.solver.root(), [], levels, width)

    def _late(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _node(self, cands: np.ndarray, path: list[int], levels: int, width: int) -> Node:
        n = len(cands)
        if n <= self.exact_below and not self._late():
            return self.solver.total_tree(n, cands, path)
        pool = self.solver.representatives(cands if self.consistent else self.every, path)
        if levels > 0 and n > 2 and not self._late():
            tries = best_guesses(self.matrix, cands, pool, self.rule, width)
            guess = min(tries, key=lambda g: (self._completion(int(g), cands), int(g)))
        else:
            guess = choose_guess(self.matrix, cands, pool, self.rule)
        node = Node(int(guess))
        for fid, part in self.game.parts(int(guess), cands).items():
            node.next[fid] = self._node(part, path + [int(guess)], levels - 1, width)
        return node

    def _completion(self, guess: int, cands: np.ndarray) -> int:
        """The total of ``guess`` followed by the greedy tree in each part."""
        total = len(cands)
        for part in self.game.parts(guess, cands).values():
            total += int(greedy_total(self.matrix, part, self.every, self.consistent, self.rule,
                                      self.game.win, self.game.n_feedback))
        return total


def improve(solver: Solver, upper: int | None, incumbent: Node | None, depth: int,
            seconds: float, bound: int, progress: bool = True) -> tuple[int | None, Node | None]:
    """(total, root) of the best of ``incumbent`` and the rollout trees of successive rounds
    within ``depth``, for about ``seconds``: the upper bound the exact search starts from.
    ``bound``: the lower bound known, shown beside the best for the gap."""
    stop = time.monotonic() + seconds
    rollout = Rollout(solver)
    bar = tqdm(ROUNDS, desc="total: rollout", unit="round", disable=not progress)
    for levels, width in bar:
        if time.monotonic() >= stop:
            break
        root = rollout.tree(levels, width, stop)
        result = replay(Tree(solver.game, root, "total", solver.guesses))
        if result.defects:
            raise RuntimeError("rollout built a defective tree: " + result.defects[0])
        if result.height <= depth and (upper is None or result.total < upper):
            upper, incumbent = result.total, root
        if upper is not None:
            gap = 100 * (upper - bound) / bound if bound else float("inf")
            bar.set_postfix_str(f"levels {levels}, width {width}: {result.total}; best {upper},"
                                f" bound {bound}, gap {gap:.2f}%")
    bar.close()
    return upper, incumbent
