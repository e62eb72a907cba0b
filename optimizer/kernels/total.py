"""The least-total search: the least number of guesses summed over a node's candidates, within d
guesses, by depth-first branch and bound (as in Koyama and Lai's search for Mastermind).

``min_total(..., beta)`` returns the exact least total when it is below beta, otherwise a proven
lower bound >= beta, and writes a guess achieving an exact answer to ``run.out[0]`` (else -1).
Rules, besides those of the guess pools (guesses.py), the table (table.py) and partition
equality (partition.py):

- One-step bound (bounds.py): a guess costs at least n plus the counting bound of each of its
  non-winning parts; guesses are searched in order of that bound and the loop ends at the first
  whose bound reaches the best total found (or beta).
- Branching (OPT_BRANCHING): once every allowed guess is scored, the node's own most answers give
  a tighter counting bound for the node and for everything below it.
- Candidates first (OPT_CANDIDATES_FIRST): a guess outside the candidates solves nobody at depth
  1, so no such guess beats LBN; when that bound already reaches beta they are not scored.
- Few answers (OPT_FEW_ANSWERS, games scored by squares: Battleship): a guess outside the
  candidates whose squares say few values of them has few answers, so its parts cost at least an
  even split of the candidates into that many (scoring.few_answers). It is left out unscored
  when that floor reaches the least bound of the candidate guesses the cut-off refuted (so the
  node returns the same bound; a node with none gets no help), and it has no more answers than
  a candidate guess (so the node's branching holds): the same nodes, less scoring, which is
  most of a search's time.
- Small parts (OPT_SMALL): a part of one candidate costs 1, of two 3, and nothing does better; a
  guess leaving only such parts is exact at once.
- Null-window probes (OPT_PROBE): before a guess's parts are solved exactly, each is asked "is
  your value exactly your lower bound?" (a search with beta = bound + 1, cheap); every raised
  bound may refute the guess before any part is solved in full, and a part found exact at its
  bound is left out of the shares below.
- Shares (OPT_SHARES): then each part not yet exact is asked for part of what the parts still
  miss to reach the cut-off (half its share by size, the last part all of it), pass after pass,
  rather than the first part for all of it: a part asked for all of it is usually solved
  exactly, which costs far more than showing it is worth its share, and most guesses searched
  are refuted. Each answer is exact (below its cut-off) or raises the part's bound by at least
  its share, so the passes end; the cut-offs are the only change, so the value is the same.

``rank_total`` is the node's guess order with one-step bounds, exported so that the parallel
driver can hand a node's guesses to workers; ``min_total(..., only=guesses)`` then searches just
those guesses with the same loop.

Arguments, in every search kernel: the bundles (bundles.py) problem, orbits, bounds, table, run;
cands (n,) int32, the node's sorted candidate codes; path (N + 2,) int32 with path[:plen] the
guesses leading to the node (the kernels write path[plen]); only (k,) int32, a slice of the
node's ranked guesses or empty. Bounds and values are int64 (INF: no tree).
"""

import numpy as np
from numba import njit

from .bundles import (
    DCAP,
    INF,
    OPT_BRANCHING,
    OPT_CANDIDATES_FIRST,
    OPT_DEAD,
    OPT_DEDUPE,
    OPT_FEW_ANSWERS,
    OPT_PROBE,
    OPT_SHARES,
    OPT_SMALL,
    OPT_TT,
    ST_NODES,
    ST_SCORED,
    ST_TT_HITS,
)
from .guesses import candidate_guesses, node_hash, other_guesses, square_patterns
from .partition import (
    bucket,
    is_duplicate,
    parts_by_size,
    stable_order,
    tells_nothing,
)
from .scoring import by_squares, few_answers, score_pool
from .table import probe, store


@njit(cache=True, nogil=True)
def _small_total(bounds, n, d, largest, parts, candidate):
    """(int64) The exact cost of a guess leaving parts of at most two candidates, or -1 when some
    part is larger: a single costs 1 guess, solved at this node's depth + 1; a pair 3, one of
    them at depth + 2 (there it is the last level when d == 3); INF when d is too short for a
    pair."""
    if largest > 2:
        return np.int64(-1)
    doubles = n - (1 if candidate else 0) - parts
    singles = parts - doubles
    if doubles > 0 and d < 3:
        return INF
    last = singles * (d == 2) + doubles * (d == 3)
    return bounds.guess_cost * (n + singles + 3 * doubles) + bounds.last_cost * last


@njit(cache=True, nogil=True)
def _single(bounds, d):
    """The cost of one candidate with d >= 1 guesses left: guessed at once."""
    return bounds.guess_cost + bounds.last_cost * (d == 1)


@njit(cache=True, nogil=True)
def _holds(codes, code):
    """Whether ``code`` is one of ``codes`` ((k,) int32)."""
    for c in codes:
        if c == code:
            return True
    return False


@njit(cache=True, nogil=True)
def part_weight(size):
    """A part's weight in sharing out a refutation: its size (the gap between a part's bound and
    its value grows with it); parts of one or two candidates are exact at their bound."""
    return size if size > 2 else 0


@njit(cache=True, nogil=True)
def share_of(need, weight, w_left):
    """What a part is asked to add to its bound: half its weight's share of the total still
    needed, at least 1 and at most all of it (half: asking for less wastes fewer searches that
    end in an exact value below the cut-off; measured best among a quarter, half, 3/4, whole and
    double on the Bulls and Cows parts)."""
    if w_left <= 0:
        return need
    share = (need * weight + 2 * w_left - 1) // (2 * w_left)
    return min(max(share, 1), need)


@njit(cache=True, nogil=True)
def part_bounds(problem, lb, g, cands, buf, starts, sizes):
    """Split cands ((n,) int32) by g into buf ((n,) int32; starts, sizes: (nf,) int64 per
    feedback); (the non-winning parts' feedback ids largest first, (m,) int64; their counting
    bounds, (m,) int64 read from lb ((N + 1,) int64, by size); the sum of those)."""
    bucket(problem.F, g, cands, problem.nf, buf, starts, sizes)
    ids = parts_by_size(sizes, problem.win, problem.nf)
    part_lb = np.empty(ids.shape[0], dtype=np.int64)
    rest = np.int64(0)
    for i in range(ids.shape[0]):
        part_lb[i] = lb[sizes[ids[i]]]
        rest += part_lb[i]
    return ids, part_lb, rest


@njit(cache=True, nogil=True)
def rank_total(problem, orbits, bounds, run, cands, d, beta, bmax, lb0, path, plen):
    """Score a node's guesses (n > 2 candidates, d <= n guesses; lb0: the node's lower bound).
    Returns (guesses worth searching in order of their one-step bound, (k,) int32; those bounds,
    (k,) int64; whether each leaves small parts only, (k,) bool; the least bound among guesses
    left out; the node's branching; whether every allowed guess was scored; a guess solving the
    node exactly at once or -1)."""
    n = cands.shape[0]
    opts = run.opts
    LB = bounds.LB
    own = bounds.guess_cost * n  # one guess for every candidate here
    pool = candidate_guesses(problem, orbits, run, cands, path, plen)
    n_cand = pool.shape[0]
    G = n_cand if problem.consistent else n_cand + problem.all_codes.shape[0] - n
    dc = min(d - 1, DCAP)
    kept = np.empty(G, dtype=pool.dtype)
    bound = np.empty(G, dtype=np.int64)
    small = np.empty(G, dtype=np.bool_)
    k = 0
    lb_min = INF  # least bound among guesses left out
    branching = 0  # the most non-winning parts any guess makes here: holds for every subset
    complete = True  # whether every allowed guess was scored
    offset = 0
    while True:
        all_largest, all_parts, all_lb1, _ = score_pool(problem, run, pool, cands,
                                                        LB[bmax], dc)
        run.stats[ST_SCORED] += pool.shape[0]
        for i in range(pool.shape[0]):
            largest, parts, lb1 = all_largest[i], all_parts[i], own + all_lb1[i]
            if parts > branching:
                branching = parts
            if tells_nothing(largest, n) or lb1 >= INF:
                continue
            exact = -1
            if opts & OPT_SMALL:
                exact = _small_total(bounds, n, d, largest, parts, offset == 0)
                if exact >= INF:
                    continue
            if exact >= 0 and exact <= lb0:  # nothing can do better
                return (pool[i:i + 1], np.full(1, exact), np.ones(1, dtype=np.bool_), INF,
                        branching, False, pool[i])
            if exact >= 0:
                lb1 = exact
            if lb1 >= beta:
                if lb1 < lb_min:
                    lb_min = lb1
                continue
            kept[k] = pool[i]
            bound[k] = lb1
            small[k] = exact >= 0
            k += 1
        if problem.consistent or offset > 0:
            break
        lbn = bounds.LBN[bmax, n, min(d, DCAP)]
        if lbn >= beta and opts & OPT_CANDIDATES_FIRST:
            if lbn < lb_min:
                lb_min = lbn
            complete = False
            break
        offset = n_cand
        pool = other_guesses(problem, orbits, run, cands, path, plen)
        if by_squares(problem):
            if opts & OPT_DEAD:
                pool = square_patterns(problem, cands, pool)
            if opts & OPT_FEW_ANSWERS:
                # lb_min >= beta here; a guess left out bounded at or above it leaves the
                # node's bound what scoring it would give (none when lb_min is INF)
                pool = few_answers(problem, cands, pool, LB[bmax], dc, lb_min - own, branching)
        if pool.shape[0] == 0:
            break
    if not complete or not opts & OPT_BRANCHING:
        branching = bmax
    order = stable_order(bound[:k])  # ties: candidates first, then by code
    return kept[:k][order], bound[:k][order], small[:k][order], lb_min, branching, complete, -1


@njit(cache=True, nogil=True)
def min_total(problem, orbits, bounds, table, run, cands, d, beta, bmax, path, plen, only):
    """The exact least total (int64) of cands within d guesses when below beta, a guess
    achieving it in run.out[0]; otherwise a proven lower bound >= beta (run.out[0] = -1). bmax
    bounds the non-winning answers any guess gets on cands (inherited from the parent).
    ``only``: when not empty, search just these guesses (bmax being the node's branching), in
    the order of their bounds: the answer is then about trees opening with one of them, and is
    not stored."""
    n = cands.shape[0]
    run.stats[ST_NODES] += 1
    run.out[0] = -1
    if table.stop[0] != 0:
        return INF
    whole = only.shape[0] == 0
    if n == 1:
        if d >= 1 and (whole or _holds(only, cands[0])):
            run.out[0] = cands[0]
            return _single(bounds, d)
        if d >= 2 and not whole:  # another code first (tells nothing), then the candidate
            run.out[0] = only[0]
            return bounds.guess_cost + _single(bounds, d - 1)
        return INF
    top = n if whole else n + 1  # n + 1: trees opening with a code that tells nothing
    if d > top and bounds.last_cost == 0:
        d = top  # no tree of n secrets needs more than n guesses: one table entry for all d
    M, LB = bounds.M, bounds.LB
    if d <= 1 or n > M[bmax, min(d, DCAP)]:
        return INF
    opts = run.opts
    if n == 2 and opts & OPT_SMALL and whole:  # guess one: the other is solved next
        run.out[0] = cands[0]
        return bounds.guess_cost * 3 + bounds.last_cost * (d == 2)
    lb0 = LB[bmax, n, min(d, DCAP)]
    if lb0 >= beta:
        return lb0
    tt = (opts & OPT_TT) != 0 and whole
    h1, h2 = node_hash(problem, table, cands, path, plen)
    meta = (np.int64(n) << 20) + d
    if tt:
        found, lo, hi, known = probe(table, h1, h2, meta)
        if found:
            if lo == hi:
                run.stats[ST_TT_HITS] += 1
                run.out[0] = known
                return hi
            if lo >= beta:
                run.stats[ST_TT_HITS] += 1
                return lo
            if lo > lb0:
                lb0 = lo
    dc = min(d - 1, DCAP)
    if whole:
        ranked, bound, small, lb_min, branching, complete, solved = rank_total(
            problem, orbits, bounds, run, cands, d, beta, bmax, lb0, path, plen)
        if solved >= 0:
            run.out[0] = solved
            if tt:
                store(table, h1, h2, meta, bound[0], bound[0], solved)
            return bound[0]
        if complete:  # every guess was scored: the node's own branching bounds it
            tight = LB[branching, n, min(d, DCAP)]
            if tight > lb0:
                lb0 = tight
            if lb0 >= beta:
                if tt:
                    store(table, h1, h2, meta, lb0, INF, np.int64(-1))
                return lb0
    else:
        branching, lb_min = bmax, INF
        bound = score_pool(problem, run, only, cands, LB[bmax], dc)[2].copy()
        bound += bounds.guess_cost * n
        order = stable_order(bound)  # the loop below stops at the first bound reaching best
        ranked, bound = only[order], bound[order]
        small = np.zeros(only.shape[0], dtype=np.bool_)
    buf = np.empty(n, dtype=cands.dtype)
    starts = np.empty(problem.nf, dtype=np.int64)
    sizes = np.empty(problem.nf, dtype=np.int64)
    seen_g = np.empty(ranked.shape[0], dtype=np.int64)
    seen_sig = np.empty(ranked.shape[0], dtype=np.uint64)
    n_seen = np.int64(0)
    best = beta
    best_g = np.int64(-1)
    for j in range(ranked.shape[0]):
        g = ranked[j]
        if bound[j] >= best:
            if bound[j] < lb_min:
                lb_min = bound[j]
            break  # ranked by bound: no later guess can do better
        if small[j]:
            best = bound[j]
            best_g = g
            continue
        if opts & OPT_DEDUPE:
            dup, n_seen = is_duplicate(problem, table.z1, g, cands, seen_g, seen_sig, n_seen)
            if dup:
                continue
        ids, part_lb, rest = part_bounds(problem, LB[branching, :, dc], g, cands, buf, starts,
                                         sizes)
        own = bounds.guess_cost * n
        if own + rest >= best:  # the node's own branching bound already rules this guess out
            if own + rest < lb_min:
                lb_min = own + rest
            continue
        path[plen] = g
        cut = False
        m = ids.shape[0]
        exact = np.zeros(m, dtype=np.bool_)
        left = m
        if opts & OPT_PROBE:
            for i in range(ids.shape[0]):
                f = ids[i]
                if sizes[f] <= 2:
                    continue  # nothing to gain: a probe of one or two candidates is the search
                sub = buf[starts[f]:starts[f] + sizes[f]]
                v = min_total(problem, orbits, bounds, table, run, sub, d - 1, part_lb[i] + 1,
                              branching, path, plen + 1, only[:0])
                if v <= part_lb[i]:  # exact at its bound: the passes below skip it
                    exact[i] = True
                    left -= 1
                rest += v - part_lb[i]
                part_lb[i] = v
                if own + rest >= best:
                    cut = True
                    if own + rest < lb_min:
                        lb_min = own + rest
                    break
            if cut:
                continue
        # Raise the parts' bounds until they sum to best (the guess is refuted) or every part
        # is exact (the guess is better): each search asks a part for its share of what is
        # still missing, so a refutation rarely needs any part's exact value.
        need = best - own - rest
        while need > 0 and left > 0:
            w_left = np.int64(0)  # the weight of the parts not yet exact nor visited this pass
            for i in range(m):
                if not exact[i]:
                    w_left += part_weight(sizes[ids[i]])
            for i in range(m):
                if exact[i]:
                    continue
                w = part_weight(sizes[ids[i]])
                share = need
                if opts & OPT_SHARES and left > 1:
                    share = share_of(need, w, w_left)
                w_left -= w
                f = ids[i]
                sub = buf[starts[f]:starts[f] + sizes[f]]
                child_beta = part_lb[i] + share
                v = min_total(problem, orbits, bounds, table, run, sub, d - 1, child_beta,
                              branching, path, plen + 1, only[:0])
                if v < child_beta:
                    exact[i] = True
                    left -= 1
                need -= v - part_lb[i]
                rest += v - part_lb[i]
                part_lb[i] = v
                if need <= 0:
                    break
        total = own + rest
        if need <= 0:
            cut = True
            if total < lb_min:
                lb_min = total
        if not cut:
            best = total
            best_g = g
        if table.stop[0] != 0:
            return INF
    if best_g >= 0:
        run.out[0] = best_g
        if tt:
            store(table, h1, h2, meta, best, best, best_g)
        return best
    run.out[0] = -1
    if lb_min > INF:
        lb_min = INF
    if lb_min < lb0:
        lb_min = lb0
    if tt:
        store(table, h1, h2, meta, lb_min, INF, np.int64(-1))
    return lb_min
