"""The jobs an engine runs: each takes the worker's solver first, then plain arrays and numbers,
and returns plain values and trees (what crosses a process or machine boundary).

A job calls the kernels' own steps (``feasible`` and ``min_total``, whole or with ``only``), so a
rule changed in a kernel reaches every way of running the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..tree import Node
from .solver import KERNELS, NodeSolver

STOPPED = "stopped"  # the result of a job cancelled while it ran


def run_job(solver: NodeSolver, job_id, fn, args,
            count_stopped: Callable[[float], None] | None = None, cancelled=()):
    """Run ``fn(solver, *args)`` as job ``job_id``, so that ``solver.cancel`` can stop it; not
    at all if it is in ``cancelled`` (the ids the engine was asked to cancel that may not have
    started). A stopped job's result, and so the CPU seconds it reports, is never read: they go
    to ``count_stopped`` (the engine's count, for the estimate of the work left)."""
    clock = time.thread_time()
    if solver.start(job_id, cancelled):
        solver.finish()
        return STOPPED
    try:
        value = fn(solver, *args)
    finally:  # counted also when a stopped job raises
        stopped = solver.finish()
        if stopped and count_stopped is not None:
            count_stopped(time.thread_time() - clock)
    return STOPPED if stopped else value


def _counted(solver: NodeSolver, work):
    """(what ``work()`` returns, nodes it searched, its CPU seconds: the thread's, as jobs run
    on threads of one process beside each other)."""
    nodes, clock = solver.nodes, time.thread_time()
    value = work()
    return value, solver.nodes - nodes, time.thread_time() - clock


def height_part(solver: NodeSolver, cands: np.ndarray, depth: int, path: list[int]):
    """(a tree solving the part within ``depth`` guesses or None, nodes, CPU seconds)."""

    def work():
        return solver.height_tree(depth, cands, path) if solver.feasible(
            cands, depth, path) >= 0 else None

    return _counted(solver, work)


def height_guesses(solver: NodeSolver, cands: np.ndarray, guesses: list[int], depth: int,
                   branching: int, path: list[int]):
    """(a tree solving the part within ``depth`` guesses that opens with one of ``guesses`` or
    None, nodes, CPU seconds): a slice of the node's guesses, in the kernel's order."""

    def work():
        guess = solver.feasible(cands, depth, path, bmax=branching, only=guesses)
        if guess < 0:
            return None
        below = list(path) + [guess]
        return Node(guess, {fid: solver.height_tree(depth - 1, part, below)
                            for fid, part in solver.game.parts(guess, cands).items()})

    return _counted(solver, work)


def total_part(solver: NodeSolver, cands: np.ndarray, depth: int, beta: int, path: list[int],
               cost: str = "total"):
    """((least cost of the part within ``depth`` if below ``beta``, else a lower bound), its
    tree or None, nodes, CPU seconds); the cost as in bundles.COSTS."""

    def work():
        value, _ = solver.min_total(cands, depth, beta, path, cost=cost)
        if value >= beta:
            return value, None
        return value, solver.total_tree(depth, cands, path, cost)

    (value, tree), nodes, seconds = _counted(solver, work)
    return value, tree, nodes, seconds


def total_guess(solver: NodeSolver, cands: np.ndarray, guess: int, depth: int, beta: int,
                branching: int, path: list[int], cost: str = "total"):
    """total_part for trees of the part that open with ``guess``: one of a large part's guesses
    searched on its own (``branching``: the part's, as the kernel measured it)."""

    def work():
        value, _ = solver.min_total(cands, depth, beta, path, bmax=branching, only=[guess],
                                    cost=cost)
        if value >= beta:
            return value, None
        below = list(path) + [guess]
        return value, Node(guess, {fid: solver.total_tree(depth - 1, part, below, cost)
                                   for fid, part in solver.game.parts(guess, cands).items()})

    (value, tree), nodes, seconds = _counted(solver, work)
    return value, tree, nodes, seconds


def total_guesses(solver: NodeSolver, cands: np.ndarray, guesses: list[int], depth: int,
                  beta: int, branching: int, path: list[int], cost: str = "total"):
    """total_guess for several of a large part's guesses in turn, as one job (where a job's
    round trip costs milliseconds, as on Dask, and a guess about as little): each exact value
    below the cut-off lowers it for the next guesses, as the part's later jobs would see it.
    ([(value, tree or None) for each guess], nodes, CPU seconds)."""

    def work():
        out, cut = [], beta
        for guess in guesses:
            value, tree, _, _ = total_guess(solver, cands, guess, depth, cut, branching, path,
                                            cost)
            out.append((value, tree))
            if tree is not None and value < cut:
                cut = value
        return out

    return _counted(solver, work)


def class_bound(solver: NodeSolver, guess: int, parts: list[np.ndarray], depth: int, levels: int,
                beta: int, cost: str = "total", known: list[int] | None = None):
    """(a lower bound on the least cost of trees opening with ``guess`` within ``depth``: the
    guess once for every secret plus each part's lookahead bound ``levels`` deep, or some value
    >= beta once that is shown; each part's bound; nodes, CPU seconds). Largest parts first,
    each part's cut-off from beta and the others' bounds; ``known``: bounds the parts are
    already proven to reach (a checkpoint's, an earlier job's), taken as they are. For the
    costs that count the secrets at the last level, a part whose bound shows none there yet
    takes the separation bound (``NodeSolver.separation``: one secret at the last level when
    the part cannot be solved in fewer guesses)."""
    bounds, _ = solver.cost(cost)

    def work():
        lbs = [solver.counting(len(p), depth - 1, cost) for p in parts]
        if known is not None:
            lbs = [max(lb, int(k)) for lb, k in zip(lbs, known, strict=True)]
        total = bounds.guess_cost * solver.game.n_secrets
        for i, part in enumerate(parts):
            rest = total + sum(lbs) - lbs[i]
            lbs[i] = max(lbs[i], solver.lookahead(part, depth - 1, levels, beta - rest, [guess],
                                                  cost=cost))
            if lbs[i] < bounds.last_cost:
                lbs[i] = max(lbs[i], solver.separation(part, depth - 1, [guess], cost))
            if total + sum(lbs) >= beta:
                break
        return total + sum(lbs), lbs

    (value, lbs), nodes, seconds = _counted(solver, work)
    return value, lbs, nodes, seconds


def warm_up(solver: NodeSolver, kernels: tuple[str, ...] = KERNELS) -> int:
    """Load the kernels and the game before the first real job (its time is set-up, not search);
    returns the worker's process id."""
    import os

    solver.warm_up(kernels)
    return os.getpid()
