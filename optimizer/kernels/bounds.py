"""Counting bounds: how many secrets d guesses can tell apart, and the least total they can cost.

Why they hold (the counting bound, as in Knuth's and Koyama and Lai's analyses): a guess answers
with one of at most B non-winning feedbacks (plus the win when it is a candidate), so after k
guesses at most B^(k-1) secrets can still be told apart at depth k. Hence d guesses separate at
most M(d) = 1 + B M(d-1) secrets, and the cheapest conceivable tree of n secrets puts one at
depth 1, B at depth 2, B^2 at depth 3, ...; if the first guess is not a candidate, nobody is
solved at depth 1 (LBN). A subset of a node's candidates never gets more distinct answers from a
guess than the node itself, so a node's measured B (the most non-winning parts any allowed guess
makes on it) bounds every node below it: deep nodes get much tighter tables (OPT_BRANCHING).
"""

import numpy as np
from numba import njit

from .bundles import COSTS, DCAP, INF, Bounds


def bound_tables(n_codes: int, branches: int, counting: bool = True,
                 cost: str = "total") -> Bounds:
    """Tables for every branching factor B <= branches and the cost ``cost`` (COSTS); column
    DCAP stands for "no depth limit". ``counting=False`` gives trivial tables (every secret costs
    one guess, two after a guess that is not a candidate; no depth is too short): the search
    without counting bounds.

    For a cost weighing the secrets at the last level: at most M[B, d-1] secrets of a set end
    within d - 1 guesses (one fewer after a first guess that is not a candidate, which solves
    nobody at depth 1), so the others need all d: that many times last_cost is added."""
    guess_cost, last_cost = COSTS[cost]
    if not counting:
        m, lb, lbn = _trivial_tables(n_codes, branches)
    else:
        m, lb, lbn = _counting_tables(n_codes, branches)
    if (guess_cost, last_cost) != (1, 0):
        sizes = np.arange(n_codes + 1, dtype=np.int64)[None, :, None]
        before = np.zeros_like(m)  # before[B, d]: most secrets ending within d - 1 guesses
        before[:, 1:] = m[:, :-1]
        before[:, DCAP] = m[:, DCAP]  # no depth limit: no last level
        late = np.maximum(sizes - before[:, None, :], 0)
        late_n = np.maximum(sizes - np.maximum(before[:, None, :] - 1, 0), 0)
        late_n[:, :, DCAP] = 0
        lb = np.where(lb >= INF, INF, guess_cost * lb + last_cost * late)
        lbn = np.where(lbn >= INF, INF, guess_cost * lbn + last_cost * late_n)
    return Bounds(m, lb, lbn, guess_cost, last_cost)


def _trivial_tables(n_codes: int, branches: int):
    m = np.full((branches + 1, DCAP + 1), n_codes, dtype=np.int64)
    m[:, 0] = 0
    sizes = np.arange(n_codes + 1, dtype=np.int64)
    lb = np.broadcast_to(sizes[None, :, None], (branches + 1, n_codes + 1, DCAP + 1)).copy()
    return m, lb, 2 * lb


@njit(cache=True)
def _counting_tables(n_codes, branches):
    """(M, LB, LBN) of the counting bound (Bounds: (B + 1, DCAP + 1) and (B + 1, N + 1, DCAP + 1)
    int64) for every branching factor B <= branches."""
    m = np.zeros((branches + 1, DCAP + 1), dtype=np.int64)
    lb = np.full((branches + 1, n_codes + 1, DCAP + 1), INF, dtype=np.int64)
    lbn = np.full((branches + 1, n_codes + 1, DCAP + 1), INF, dtype=np.int64)
    for b in range(branches + 1):
        for d in range(1, DCAP + 1):
            levels = d if d < DCAP else n_codes + 1
            m[b, d] = _fill(n_codes, b, np.int64(1), levels, lb[b, :, d])
            _fill(n_codes, b, np.int64(0), levels, lbn[b, :, d])
        lb[b, 0, :] = 0
        lbn[b, 0, :] = 0
    return m, lb, lbn


@njit(cache=True)
def _fill(size, b, first, levels, out):
    """out[n] ((size + 1,) int64 view, written; n <= size) = least sum of depths of n secrets
    when depth 1 holds `first` and each level b times the one before; returns how many secrets
    fit within `levels` (at most size)."""
    width = first
    placed = 0
    total = 0
    level = 1
    while level <= levels and placed < size:
        take = min(width, size - placed)
        for _ in range(take):
            placed += 1
            total += level
            out[placed] = total
        if width == 0:
            width = b
        else:
            width = min(width * b, size)
        if width == 0:
            break
        level += 1
    return placed


@njit(cache=True, nogil=True)
def split_floor(LB, dc, n, parts):
    """The least sum of LB[size, dc] ((N + 1, DCAP + 1) int64) over n secrets split into at most
    ``parts`` >= 1 parts (LB[0] = 0: fewer parts are empty ones): the most even split, since
    each secret added to a part costs at least as much as the one before (the tables are convex
    in the size while finite; tests check it). At INF or above, every split has a part at INF:
    the even split's largest part is the least largest part."""
    q, r = n // parts, n % parts
    low = (parts - r) * LB[q, dc]
    return low + r * LB[q + 1, dc] if r > 0 else low
