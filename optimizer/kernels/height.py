"""The least-height search: "can these candidates be solved within d guesses?"

``feasible`` answers it for one node and writes a guess that achieves it to ``run.out[0]`` (or
-1); iterative deepening over d gives the least height. Rules, besides those of the guess pools
(guesses.py), the table (table.py) and partition equality (partition.py):

- Counting bound (bounds.py): a node of more than M[B, d] candidates is refuted unseen, and a guess
  leaving a part larger than M[B, d-1] is never tried; guesses are tried smallest largest part
  first, so the first such guess ends the loop. Most nodes fail in ``some_guess_fits``, an
  early-exit version of that test, before anything is scored in full.
- Two guesses left: the candidates need one guess giving each its own answer (a separating guess).
- Separators only (OPT_SEPARATE), three guesses left: every part the third guess leaves must be
  told apart by one more guess, which then gives the part as many answers as it has candidates;
  no guess gives a subset more answers than the whole node, so a part of r candidates is tested
  only against the codes with at least r answers on the node, counted in the node's one scoring
  pass (for Battleship's parts of 13-18, a few per cent of the codes).
- Parts of one or two candidates are solved by guessing one of them (OPT_SMALL).

``rank_height`` is the node's guess order, exported so that the parallel driver can hand a node's
guesses to workers in slices; ``feasible(..., only=slice)`` then searches just those guesses with
the same loop.

Arguments, in every search kernel: the bundles (bundles.py) problem, orbits, bounds, table, run;
cands (n,) int32, the node's sorted candidate codes; path (N + 2,) int32 with path[:plen] the
guesses leading to the node (the kernels write path[plen]); only (k,) int32, a slice of the
node's ranked guesses or empty.
"""

import numpy as np
from numba import njit

from .bundles import (
    DCAP,
    INF,
    OPT_BRANCHING,
    OPT_DEDUPE,
    OPT_SEPARATE,
    OPT_SMALL,
    OPT_TT,
    ST_NODES,
    ST_SCORED,
    ST_TT_HITS,
)
from .guesses import guess_pool, node_hash
from .partition import (
    bucket,
    by_answers,
    is_duplicate,
    parts_by_size,
    separating_guess,
    some_guess_fits,
    tells_nothing,
)
from .scoring import score_pool
from .table import probe, store


@njit(cache=True, nogil=True)
def rank_height(problem, orbits, bounds, run, cands, d, bmax, path, plen):
    """The guesses worth trying on a node needing d >= 3 guesses, in search order (smallest
    largest part, then most parts), (k,) int32, with their largest parts ((k,) int64) and the
    node's branching (the most
    non-winning parts any allowed guess makes: a bound for every subset, OPT_BRANCHING). No guess
    at all when counting refutes the node outright. Also the node's separator codes (below)."""
    n = cands.shape[0]
    M = bounds.M
    dc = min(d - 1, DCAP)
    limit = M[bmax, dc]
    pool = guess_pool(problem, orbits, run, cands, path, plen)
    G = pool.shape[0]
    run.stats[ST_SCORED] += G
    separate = _separates(problem, run, d)
    every_code = separate and G == problem.all_codes.shape[0]
    none = np.empty(0, dtype=pool.dtype)
    no_codes = problem.all_codes[:0], np.zeros(0, dtype=np.int64)
    # The usual way a node fails: every guess leaves a part too large for d - 1 guesses. With
    # every code to score for the separators anyway, the full pass below tells it as well.
    if n > limit and not every_code and not some_guess_fits(problem, run.counts, pool, cands,
                                                            limit):
        return none, np.empty(0, dtype=np.int64), bmax, no_codes
    all_largest, all_parts, _, answers = score_pool(problem, run, pool, cands,
                                                    bounds.LB[bmax], dc)
    branching = 0
    keep = np.zeros(G, dtype=np.bool_)
    key = np.empty(G, dtype=np.int64)
    for i in range(G):
        if all_parts[i] > branching:
            branching = all_parts[i]
        if all_largest[i] > limit or tells_nothing(all_largest[i], n):
            continue
        keep[i] = True
        key[i] = (all_largest[i] << 40) | ((255 - all_parts[i]) << 32) | i
    if not run.opts & OPT_BRANCHING:
        branching = bmax
    if not keep.any() or n > M[branching, min(d, DCAP)]:
        return none, np.empty(0, dtype=np.int64), branching, no_codes
    order = np.argsort(key[keep])
    ranked, largest = pool[keep][order], all_largest[keep][order]  # before score_pool runs again
    if every_code:
        separators = by_answers(pool, answers, problem.nf)
    else:
        separators = separator_codes(problem, bounds, run, cands, d)
    return ranked, largest, branching, separators


@njit(cache=True, nogil=True)
def _separates(problem, run, d):
    """Whether OPT_SEPARATE applies: three guesses left, any code may be guessed (with consistent
    guesses a part's guesses are its own candidates, not the node's codes)."""
    return (d == 3 and not problem.consistent and not problem.hard
            and (run.opts & OPT_SEPARATE) != 0)


@njit(cache=True, nogil=True)
def separator_codes(problem, bounds, run, cands, d):
    """For OPT_SEPARATE: every code ordered by its answers on the node ((N,) int32), and
    at_least[r] ((nf + 2,) int64; partition.by_answers); empty arrays when the rule does not
    apply."""
    if not _separates(problem, run, d):
        return problem.all_codes[:0], np.zeros(0, dtype=np.int64)
    codes = problem.all_codes
    answers = score_pool(problem, run, codes, cands, bounds.LB[0], np.int64(0))[3]
    run.stats[ST_SCORED] += codes.shape[0]
    return by_answers(codes, answers, problem.nf)


@njit(cache=True, nogil=True)
def _separable(problem, ordered, at_least, sub, limit, stats):
    """Whether two guesses solve sub ((r,) int32), a part of a node whose codes ``ordered`` ((N,)
    int32) lists by answers (at_least: (nf + 2,) int64): the codes giving the node fewer answers
    than sub has candidates are never tried. stats: Run.stats."""
    stats[ST_NODES] += 1
    r = sub.shape[0]
    if r <= 2:
        return True
    if r > limit or r > problem.nf:
        return False
    return separating_guess(problem.F, ordered[:at_least[r]], sub, problem.nf, stats) >= 0


@njit(cache=True, nogil=True)
def feasible(problem, orbits, bounds, table, run, cands, d, bmax, path, plen, only):
    """Whether cands can be solved within d guesses (a guess achieving it in run.out[0], else
    -1). bmax bounds the non-winning answers any guess
    gets on them (inherited from the parent, whose set contains them). ``only``: when not empty,
    try just these guesses, in this order (a slice of rank_height's, bmax being the node's
    branching); a failure then says nothing about the node and is not stored."""
    n = cands.shape[0]
    run.stats[ST_NODES] += 1
    run.out[0] = -1
    if table.stop[0] != 0:
        return False
    if n == 1:
        if d >= 1:
            run.out[0] = cands[0]
            return True
        return False
    M = bounds.M
    if d <= 1 or n > M[bmax, min(d, DCAP)]:
        return False
    opts = run.opts
    if n == 2 and opts & OPT_SMALL:
        run.out[0] = cands[0]
        return True
    whole = only.shape[0] == 0
    tt = (opts & OPT_TT) != 0 and whole
    h1, h2 = node_hash(problem, table, cands, path, plen)
    meta = np.int64(n) << 20
    if tt:
        found, lo, hi, known = probe(table, h1, h2, meta)
        if found:
            if hi <= d:
                run.stats[ST_TT_HITS] += 1
                run.out[0] = known
                return True
            if lo > d:
                run.stats[ST_TT_HITS] += 1
                return False
    if d == 2:
        pool = guess_pool(problem, orbits, run, cands, path, plen) if whole else only
        g = separating_guess(problem.F, pool, cands, problem.nf, run.stats)
        if tt:
            store(table, h1, h2, meta, 0 if g >= 0 else d + 1, d if g >= 0 else INF, g)
        run.out[0] = g
        return g >= 0
    if whole:
        ranked, largest, branching, separators = rank_height(problem, orbits, bounds, run, cands,
                                                             d, bmax, path, plen)
    else:
        ranked, largest, branching = only, np.zeros(only.shape[0], dtype=np.int64), bmax
        separators = separator_codes(problem, bounds, run, cands, d)
    ordered, at_least = separators
    limit = M[branching, min(d - 1, DCAP)]
    buf = np.empty(n, dtype=cands.dtype)
    starts = np.empty(problem.nf, dtype=np.int64)
    sizes = np.empty(problem.nf, dtype=np.int64)
    seen_g = np.empty(ranked.shape[0], dtype=np.int64)
    seen_sig = np.empty(ranked.shape[0], dtype=np.uint64)
    n_seen = np.int64(0)
    for i in range(ranked.shape[0]):
        if largest[i] > limit:
            break  # ranked by largest part: no later guess fits either
        g = ranked[i]
        if opts & OPT_DEDUPE:
            dup, n_seen = is_duplicate(problem, table.z1, g, cands, seen_g, seen_sig, n_seen)
            if dup:
                continue
        bucket(problem.F, g, cands, problem.nf, buf, starts, sizes)
        path[plen] = g
        ok = True
        for f in parts_by_size(sizes, problem.win, problem.nf):
            sub = buf[starts[f]:starts[f] + sizes[f]]
            if at_least.shape[0] > 0:
                ok = _separable(problem, ordered, at_least, sub, M[branching, 2], run.stats)
            else:
                ok = feasible(problem, orbits, bounds, table, run, sub, d - 1, branching, path,
                              plen + 1, only[:0])
            if not ok:
                break
        if ok:
            run.out[0] = g
            if opts & OPT_TT:
                store(table, h1, h2, meta, np.int64(0), d, np.int64(g))
            return True
        if table.stop[0] != 0:
            return False
    run.out[0] = -1
    if tt:
        store(table, h1, h2, meta, d + 1, INF, np.int64(-1))
    return False
