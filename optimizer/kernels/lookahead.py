"""The lookahead bound: a lower bound on a set's least total, k guesses deep, that never solves
anything in full (Ville's "dynamic lower bounds" for the expected case, carried further down).

Level 0 is the counting bound (bounds.py). Level k: the node's own guess for each candidate, plus,
for the best guess, the level k-1 bounds of its parts; the least over every allowed guess (one per
symmetry class and per partition) is a lower bound on the set's value, since every tree opens
with some guess whose parts cost at least their own bounds. Level 1 is the one-step bound of
total.py. A part of a few candidates gets its exact value from min_total (cheap there, and the
strongest bound of all); parts of one or two are exact in closed form.

Branch and bound as in min_total: guesses in order of their one-step bound, a guess dropped as
soon as the bounds of its parts reach the best bound so far, and ``beta``: a caller who only needs
to know whether the bound reaches beta gets a value >= beta as soon as that is shown.

Every value is a proven lower bound, so it is stored in the transposition table as one (and
raised there, never lowered): a later exact search starts from it. A stopped search (``stop``)
answers with the one-step bound of the node, which holds too, and stores nothing.

Arguments as in total.min_total: the bundles, cands (n,) int32 sorted codes, path (N + 2,) int32
with path[:plen] the guesses so far; values int64.
"""

import numpy as np
from numba import njit

from .bundles import DCAP, INF, OPT_DEDUPE, OPT_TT, ST_NODES
from .guesses import node_hash
from .partition import is_duplicate
from .table import probe, store
from .total import min_total, part_bounds, rank_total

EXACT_BELOW = 6  # parts of fewer candidates are solved exactly (min_total)


@njit(cache=True, nogil=True)
def lookahead(problem, orbits, bounds, table, run, cands, d, k, beta, bmax, path, plen):
    """A lower bound (int64) on the least total of cands within d guesses, k levels deep; once it is
    shown to reach beta, some value >= beta. bmax bounds the non-winning answers any guess gets
    on cands (the parent's branching)."""
    n = cands.shape[0]
    if d > n and bounds.last_cost == 0:
        d = n  # as in min_total: no tree of n secrets needs more than n guesses
    dc = min(d - 1, DCAP)
    stopped = table.stop[0] != 0
    if (n <= EXACT_BELOW or d <= 2) and not stopped:
        return min_total(problem, orbits, bounds, table, run, cands, d, beta, bmax, path, plen,
                         path[:0])
    M, LB = bounds.M, bounds.LB
    if d < 1 or n > M[bmax, min(d, DCAP)]:
        return INF
    lb0 = LB[bmax, n, min(d, DCAP)]
    if k <= 0 or lb0 >= beta or stopped:
        return lb0
    run.stats[ST_NODES] += 1
    tt = (run.opts & OPT_TT) != 0
    h1, h2 = node_hash(problem, table, cands, path, plen)
    meta = (np.int64(n) << 20) + d
    if tt:
        found, lo, hi, _ = probe(table, h1, h2, meta)
        if found:
            if lo == hi or lo >= beta:
                return lo
            if lo > lb0:
                lb0 = lo
    ranked, bound, small, lb_min, branching, complete, solved = rank_total(
        problem, orbits, bounds, run, cands, d, beta, bmax, lb0, path, plen)
    if solved >= 0:
        return bound[0]  # exact: nothing does better (rank_total has stored nothing)
    if complete:
        tight = LB[branching, n, min(d, DCAP)]
        if tight > lb0:
            lb0 = tight
    one_step = lb_min
    if ranked.shape[0] > 0 and bound[0] < one_step:
        one_step = bound[0]
    if one_step < lb0:
        one_step = lb0
    if k == 1 or one_step >= beta:
        if tt:
            store(table, h1, h2, meta, one_step, INF, np.int64(-1))
        return one_step
    buf = np.empty(n, dtype=cands.dtype)
    starts = np.empty(problem.nf, dtype=np.int64)
    sizes = np.empty(problem.nf, dtype=np.int64)
    seen_g = np.empty(ranked.shape[0], dtype=np.int64)
    seen_sig = np.empty(ranked.shape[0], dtype=np.uint64)
    n_seen = np.int64(0)
    own = bounds.guess_cost * n
    best = beta  # the least bound of a guess searched so far (or beta)
    for j in range(ranked.shape[0]):
        if table.stop[0] != 0:
            return one_step
        if bound[j] >= best:
            if bound[j] < lb_min:
                lb_min = bound[j]
            break  # ranked by bound: no later guess has a lower one
        if small[j]:  # exact, and no guess is cheaper than its bound
            best = bound[j]
            continue
        g = ranked[j]
        if run.opts & OPT_DEDUPE:
            dup, n_seen = is_duplicate(problem, table.z1, g, cands, seen_g, seen_sig, n_seen)
            if dup:
                continue
        ids, part_lb, rest = part_bounds(problem, LB[branching, :, dc], g, cands, buf, starts,
                                         sizes)
        total = np.int64(own)
        path[plen] = g
        cut = False
        for i in range(ids.shape[0]):
            f = ids[i]
            rest -= part_lb[i]
            sub = buf[starts[f]:starts[f] + sizes[f]]
            v = lookahead(problem, orbits, bounds, table, run, sub, d - 1, k - 1,
                          best - total - rest, branching, path, plen + 1)
            total += v
            if total + rest >= best:
                cut = True
                if total + rest < lb_min:
                    lb_min = total + rest
                break
        if not cut:
            best = total
    if table.stop[0] != 0:
        return one_step
    value = best if best < lb_min else lb_min
    if value > INF:
        value = INF
    if value < lb0:
        value = lb0
    if tt:
        store(table, h1, h2, meta, value, INF, np.int64(-1))
    return value
