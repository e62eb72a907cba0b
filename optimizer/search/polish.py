"""A better tree to beat: exact subtrees for the nodes of the tree in hand, smallest first.

Rollouts (rollout.py) choose well near the root and greedily below; the exact search only wins
where it has a good tree to beat, and each class it refutes costs less the lower that tree is.
So every node of the tree in hand below the root is searched exactly, with its own subtree's
total as the cut-off, from the smallest up: a node whose search finds better gets that optimal
subtree, and the nodes above it are then searched against their lowered totals. A node's answer
holds for its candidates within the guesses left there, whatever tree holds them: an optimal
subtree's own nodes are optimal already (the total is a sum over parts), so a node below one put
in its place is not searched again. The root is the search itself, and is left to it.

The nodes are engine jobs (jobs.total_part), as many at once as there are workers; the time
given ends the step, and the tree is whole after every answer. ``better_tree`` is what
``--improve`` runs: rollouts, then this.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np

from ..games import Game
from ..objective import cost_text, cost_value
from ..tree import Node, Tree, replay
from .jobs import total_part
from .observer import QUIET, Observer
from .rollout import improve
from .solver import NodeSolver


@dataclass
class Spot:
    """A node of the tree: ``key`` the (guess, feedback, guess, feedback, ...) pairs from the
    root that lead to it, ``cands`` its candidates, ``left`` the guesses left within the
    depth limit."""

    key: tuple[int, ...]
    cands: np.ndarray
    left: int


def subtree_cost(game: Game, node: Node, cands: np.ndarray, left: int, cost: str) -> int:
    """What ``node``'s subtree costs on ``cands`` (objective.COSTS) with ``left`` guesses left,
    counted from the node: its replay over them (its guess is each one's first)."""
    return cost_value(cost, left, replay(Tree(game, node, "", "any"), secrets=cands))


def spots(game: Game, root: Node, cands: np.ndarray, depth: int) -> list[Spot]:
    """Every node below the root with more than two candidates, smallest first (a node of one
    or two is exact by itself when the tree guesses a candidate, and a node of two that does not
    is rare), ties by key."""
    found: list[Spot] = []
    stack = [(root, cands, (), depth)]
    while stack:
        node, here, key, left = stack.pop()
        if key and len(here) > 2:
            found.append(Spot(key, here, left))
        for fid, part in game.parts(node.guess, here).items():
            stack.append((node.next[fid], part, key + (node.guess, fid), left - 1))
    found.sort(key=lambda s: (len(s.cands), s.key))
    return found


def _node_at(root: Node, key: tuple[int, ...]) -> tuple[Node | None, Node | None]:
    """(the parent of the node ``key`` leads to, that node), or (None, None) when the tree no
    longer has it (a node above was replaced by a subtree that guesses otherwise)."""
    parent, node = None, root
    for i in range(0, len(key), 2):
        if node.guess != key[i] or key[i + 1] not in node.next:
            return None, None
        parent, node = node, node.next[key[i + 1]]
    return parent, node


def better_tree(solver: NodeSolver, engine, depth: int, upper: int | None,
                incumbent: Node | None, cost: str, seconds: float,
                observer: Observer = QUIET,
                rollouts: bool = True) -> tuple[int | None, Node | None, bool]:
    """(cost, root) of a tree to beat at least as good as ``incumbent`` (``upper`` its cost),
    found within ``seconds``: for the total when ``rollouts``, rollouts (rollout.improve) for
    up to half of them; then exact subtrees (``polish``) in the best tree in hand for the rest;
    and whether that showed every part of its opening optimal (the cost is then the least of
    the trees opening so). The tree in hand is not changed."""
    stop = time.monotonic() + seconds
    if cost == "total" and rollouts:
        bound = solver.counting(solver.game.n_secrets, depth)
        upper, incumbent = improve(solver, upper, incumbent, depth, seconds / 2, bound, observer)
    if incumbent is None:
        return upper, incumbent, False
    root, saved, settled = polish(solver, engine, copy.deepcopy(incumbent), depth, stop,
                                  observer, cost)
    if not saved:
        return upper, incumbent, settled
    result = replay(Tree(solver.game, root, "", solver.guesses))
    if result.defects or result.height > depth:
        raise RuntimeError("exact subtrees made a defective tree: "
                           + (result.defects or [f"height {result.height}"])[0])
    value = cost_value(cost, depth, result)
    observer.note(f"exact subtrees: {cost} {cost_text(cost, upper)} -> {cost_text(cost, value)}")
    return value, root, settled


def polish(solver: NodeSolver, engine, root: Node, depth: int, deadline: float,
           observer: Observer = QUIET, cost: str = "total") -> tuple[Node, int, bool]:
    """(the tree with exact subtrees put in, what that saved over the whole tree, whether every
    part of the opening is now shown optimal) for the least ``cost`` (objective.COSTS) within
    ``depth`` guesses; stops at ``deadline`` (time.monotonic()) with what it has. ``root`` is
    changed in place."""
    game = solver.game
    todo = [s for s in spots(game, root, solver.root(), depth)
            if not _optimal(solver, root, s, cost)]
    bar = observer.bar(total=len(todo), desc=f"{cost}: exact subtrees", unit="node")
    saved = 0
    answered: set[tuple[int, ...]] = set()  # nodes whose search ended: optimal now
    running: dict = {}  # job -> its spot
    try:
        while todo or running:
            while todo and len(running) < engine.workers:
                spot = todo.pop(0)
                _, node = _node_at(root, spot.key)
                if node is None:  # inside a subtree put in whole: optimal there already
                    bar.update(1)
                    continue
                beta = subtree_cost(game, node, spot.cands, spot.left, cost)
                job = engine.submit(total_part, spot.cands, spot.left, beta,
                                    list(spot.key[0::2]), cost)
                running[job] = spot
            left = deadline - time.monotonic()
            job = engine.wait(list(running), max(0.0, left)) if left > 0 else None
            if job is None:
                break
            spot = running.pop(job)
            value, tree = job.result()[:2]
            saved += _put(game, root, spot, value, tree, cost)
            answered.add(spot.key)
            bar.update(1)
            bar.set_postfix_str(f"{len(spot.cands)} candidates; saved {saved}")
    finally:
        if running:
            engine.cancel(list(running))
        bar.close()
    return root, saved, _settled(solver, root, depth, cost, answered)


def _settled(solver: NodeSolver, root: Node, depth: int, cost: str, answered: set) -> bool:
    """Whether every part of the opening is optimal: its search ended (a node's exact search
    either put in a better subtree or showed none exists), or it costs its counting bound.
    Then the tree costs the least of the trees opening with its first guess."""
    for fid, part in solver.game.parts(root.guess, solver.root()).items():
        spot = Spot((root.guess, fid), part, depth - 1)
        if spot.key not in answered and not _optimal(solver, root, spot, cost):
            return False
    return True


def _optimal(solver: NodeSolver, root: Node, spot: Spot, cost: str) -> bool:
    """Whether the node's subtree already costs its counting bound (nothing does better)."""
    _, node = _node_at(root, spot.key)
    bound = solver.counting(len(spot.cands), spot.left, cost)
    return subtree_cost(solver.game, node, spot.cands, spot.left, cost) <= bound


def _put(game: Game, root: Node, spot: Spot, value: int, tree: Node | None, cost: str) -> int:
    """Put the exact subtree ``tree`` (None: the search found nothing better than its cut-off)
    in place of the node's, when it is better than what is there now; the guesses saved."""
    if tree is None:
        return 0
    parent, node = _node_at(root, spot.key)
    if node is None:
        return 0
    now = subtree_cost(game, node, spot.cands, spot.left, cost)
    if value >= now:
        return 0
    parent.next[spot.key[-1]] = tree
    return now - value
