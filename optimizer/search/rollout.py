"""An anytime upper bound for the least total: the pilot method (a rollout, Bertsekas' name) over
the entropy rule, with exact subtrees for small sets.

At each of the top ``levels`` levels of the tree, the ``width`` guesses the greedy rule likes
best (one per symmetry class) are each tried: the guess, then the greedy tree below each of its
parts (counted by a numba kernel without building it). The guess whose greedy completion costs
least is kept, and the same is done in each of its parts. Below those levels the greedy rule
alone chooses, and a set of at most ``exact_below`` candidates gets its optimal subtree from the
exact search. The greedy guess's class is among those tried, so a choice is rarely worse than
the greedy one it replaces; `improve` keeps the best tree whatever a round gives.

Within a height limit (least total at most d guesses), a completion counts only if it fits: the
rule's greedy tree if it does, else Knuth's minimax tree, which is flatter; a guess with a part
neither fits is not tried. Where neither fits at all, the height search's guess is taken: its
parts are solvable within the guesses left, so a rollout never fails where a tree exists.

Rounds look wider and deeper until the time given runs out; every round's tree is complete, so
a round cut by the time limit still ends with a whole tree (the rest chosen greedily).
"""

from __future__ import annotations

import time

import numpy as np

from ..kernels.bundles import INF
from ..kernels.heuristics import ENTROPY, MINIMAX, best_guesses, choose_guess
from ..tree import Node, Tree, replay
from .observer import QUIET, Observer
from .solver import NodeSolver

# (levels, width) of successive rounds
ROUNDS = ((1, 4), (2, 8), (3, 12), (4, 16), (5, 24), (6, 32), (8, 48))
EXACT_BELOW = 12


class Rollout:
    """Rollout trees of one solver's game and guess mode."""

    def __init__(self, solver: NodeSolver, exact_below: int = EXACT_BELOW, rule: int = ENTROPY):
        self.solver, self.game = solver, solver.game
        _, self.transposed, _, self.n_answers = self.game.answer_matrices()
        self.every = solver.all_codes
        self.consistent = solver.guesses != "any"  # hard mode: consistent guesses keep hints
        self.exact_below, self.rule = exact_below, rule
        self.deadline: float | None = None

    def tree(self, levels: int, width: int, depth: int,
             deadline: float | None = None) -> Node | None:
        """One round's tree within ``depth`` guesses (None: there is none); past ``deadline``
        the greedy rule decides alone."""
        self.deadline = deadline
        cands = self.solver.root()
        if self._fitting_guess(cands, [], depth) < 0:
            return None
        return self._node(cands, [], levels, width, depth)

    def _late(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _greedy(self, cands: np.ndarray, depth: int) -> tuple[int, int] | None:
        """(total, rule) of the first greedy tree on ``cands`` that fits ``depth``: the rule's
        own, else Knuth's minimax (flatter: what a height limit needs); None if neither fits."""
        for rule in (self.rule, MINIMAX):
            total, height = self.solver.greedy_total(cands, rule)
            if height <= depth:
                return total, rule
        return None

    def _node(self, cands: np.ndarray, path: list[int], levels: int, width: int,
              depth: int) -> Node:
        n = len(cands)
        if n <= self.exact_below and not self._late():
            return self.solver.total_tree(min(n, depth), cands, path)
        pool = self.solver.representatives(cands if self.consistent else self.every, path)
        guess = -1
        if levels > 0 and n > 2 and not self._late():
            tries = best_guesses(self.transposed, cands, pool, self.rule, width, self.n_answers)
            scored = [(self._completion(int(g), cands, depth), int(g)) for g in tries]
            total, guess = min(scored, default=(int(INF), -1))
            if total >= INF:
                guess = -1
        if guess < 0:
            guess = self._fitting_guess(cands, path, depth)
        node = Node(int(guess))
        for fid, part in self.game.parts(int(guess), cands).items():
            node.next[fid] = self._node(part, path + [int(guess)], levels - 1, width, depth - 1)
        return node

    def _fitting_guess(self, cands: np.ndarray, path: list[int], depth: int) -> int:
        """The guess of the first greedy rule whose tree fits ``depth`` (over the same guesses
        as greedy_total, so that its parts fit again); else one the height search shows solves
        every part within ``depth`` - 1; -1 if there is none."""
        fit = self._greedy(cands, depth)
        if fit is None:
            return self.solver.feasible(cands, depth, path)
        return int(choose_guess(self.transposed, cands, cands if self.consistent else self.every,
                                fit[1], self.n_answers))

    def _completion(self, guess: int, cands: np.ndarray, depth: int) -> int:
        """The total of ``guess`` followed by a greedy tree (_greedy) in each part; INF if some
        part has none within ``depth`` - 1."""
        total = len(cands)
        for part in self.game.parts(guess, cands).values():
            fit = self._greedy(part, depth - 1)
            if fit is None:
                return int(INF)
            total += fit[0]
        return total


def improve(solver: NodeSolver, upper: int | None, incumbent: Node | None, depth: int,
            seconds: float, bound: int,
            observer: Observer = QUIET) -> tuple[int | None, Node | None]:
    """(total, root) of the best of ``incumbent`` and the rollout trees of successive rounds
    within ``depth``, for about ``seconds``: the upper bound the exact search starts from.
    ``bound``: the lower bound known, shown beside the best for the gap."""
    stop = time.monotonic() + seconds
    rollout = Rollout(solver)
    with observer.bar(ROUNDS, desc="total: rollout", unit="round") as bar:
        for levels, width in bar:
            if time.monotonic() >= stop:
                break
            root = rollout.tree(levels, width, depth, stop)
            if root is None:
                break  # no tree fits within depth at all
            result = replay(Tree(solver.game, root, "total", solver.guesses))
            if result.defects:
                raise RuntimeError("rollout built a defective tree: " + result.defects[0])
            if result.height <= depth and (upper is None or result.total < upper):
                upper, incumbent = result.total, root
            if upper is not None:
                gap = 100 * (upper - bound) / bound if bound else float("inf")
                bar.set_postfix_str(f"levels {levels}, width {width}: {result.total}; best "
                                    f"{upper}, bound {bound}, gap {gap:.2f}%")
    return upper, incumbent
