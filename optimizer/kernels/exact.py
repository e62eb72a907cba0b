"""The exact searches: "can these candidates be solved within d guesses?" and "what is the least
total number of guesses for these candidates within d guesses?", on plain arrays.

Shared machinery, each rule switchable through ``opts`` so that tests can compare with a plain
search:
- symmetry (OPT_SYMMETRY): one guess per orbit of the symmetries fixing the guesses so far;
- partition equality (OPT_DEDUPE): guesses splitting the candidates into the same blocks (with the
  same winning block) are one guess; a 64-bit signature finds them, an exact check confirms;
- dead symbols (OPT_DEAD, digit games with equal ranges): a symbol in no candidate never scores,
  so guesses that agree on the live symbol at every position get the same feedback from every
  candidate; only the first of them is scored;
- transposition table (OPT_TT): the value of a node depends only on its candidate set (and depth
  limit), so results are stored under two independent 64-bit hashes of the set plus its size;
- separation (OPT_SEPARATE): with three guesses left, each part left by the third guess needs a
  fourth guess giving all its candidates different answers; such a guess gives at least that many
  answers on the whole node, so only the guesses that do are tried, most answers first;
- counting bounds: with B non-winning answers, d guesses tell apart at most M[d] = 1 + B M[d-1]
  secrets; the best conceivable total LB[n, d] puts one secret at depth 1, B^(k-1) at depth k.

Every call writes the guess achieving its answer to ``out[0]`` (or -1), so callers rebuild trees.
The recursion is typed through the non-recursive returns that come first.
"""

import numpy as np
from numba import njit

from .symmetry import representative_mask

INF = np.int64(1) << np.int64(40)
DCAP = 40  # depth limits above this behave as unlimited in the bound tables

OPT_SYMMETRY = 1
OPT_DEDUPE = 2
OPT_TT = 4
OPT_DEAD = 8
OPT_PROBE = 16
OPT_SEPARATE = 32
OPT_ALL = 63

# stats slots
ST_NODES = 0
ST_TT_HITS = 1
ST_SCORED = 2

_SALT = np.uint64(0x9E3779B97F4A7C15)


# --- bound tables ------------------------------------------------------------------------------
def bound_tables(n_codes: int, branches: int):
    """Counting bounds for every branching factor B <= branches (the most non-winning answers a
    guess can get on a set; a subset never allows more, so a node's B holds below it):
    M[B, d] most secrets d guesses can separate; LB[B, n, d] least conceivable total (one secret
    at depth 1, B at depth 2, B^2 at depth 3, ...); LBN[B, n, d] the same when the first guess
    is not a candidate. Column DCAP stands for "no depth limit"."""
    return _bound_tables(n_codes, branches)


@njit(cache=True)
def _bound_tables(n_codes, branches):
    m = np.zeros((branches + 1, DCAP + 1), dtype=np.int64)
    lb = np.full((branches + 1, n_codes + 1, DCAP + 1), INF, dtype=np.int64)
    lbn = np.full((branches + 1, n_codes + 1, DCAP + 1), INF, dtype=np.int64)
    for b in range(branches + 1):
        for d in range(1, DCAP + 1):
            levels = d if d < DCAP else n_codes + 1
            m[b, d] = _fill(n_codes, b, 1, levels, lb[b, :, d])
            _fill(n_codes, b, 0, levels, lbn[b, :, d])
        lb[b, 0, :] = 0
        lbn[b, 0, :] = 0
    return m, lb, lbn


@njit(cache=True)
def _fill(size, b, first, levels, out):
    """out[n] (n <= size) = least sum of depths of n secrets when depth 1 holds `first` and each
    level b times the one before; returns how many secrets fit within `levels` (at most size)."""
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


# --- hashing and the transposition table --------------------------------------------------------
@njit(cache=True)
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def set_hash(cands, z1, z2):
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for c in cands:
        h1 += z1[c]
        h2 += z2[c]
    return h1, h2


@njit(cache=True)
def tt_find(keys, vals, h1, h2, meta):
    mask = np.uint64(keys.shape[0] - 1)
    i = np.int64(h1 & mask) & ~np.int64(1)
    for s in range(i, i + 2):
        if vals[s, 0] == meta and keys[s, 0] == h1 and keys[s, 1] == h2:
            return s
    return -1


@njit(cache=True)
def tt_store(keys, vals, h1, h2, meta, lo, hi, guess):
    """Keep the entry for the larger candidate set when the bucket is full."""
    s = tt_find(keys, vals, h1, h2, meta)
    if s < 0:
        mask = np.uint64(keys.shape[0] - 1)
        i = np.int64(h1 & mask) & ~np.int64(1)
        s = i if vals[i, 0] < vals[i + 1, 0] else i + 1
        keys[s, 0] = h1
        keys[s, 1] = h2
        vals[s, 0] = meta
        vals[s, 1] = lo
        vals[s, 2] = hi
        vals[s, 3] = guess
        return
    if lo > vals[s, 1]:
        vals[s, 1] = lo
    if hi < vals[s, 2]:
        vals[s, 2] = hi
        vals[s, 3] = guess


def new_table(bits: int):
    keys = np.zeros((1 << bits, 2), dtype=np.uint64)
    vals = np.full((1 << bits, 4), -1, dtype=np.int64)
    return keys, vals


# --- partitions -------------------------------------------------------------------------------
@njit(cache=True)
def same_partition(F, g1, g2, cands, win, nf):
    """True when g1 and g2 split cands into the same blocks, the winning block included."""
    fwd = np.full(nf, -1, dtype=np.int64)
    bwd = np.full(nf, -1, dtype=np.int64)
    for c in cands:
        a = np.int64(F[g1, c])
        b = np.int64(F[g2, c])
        if (a == win) != (b == win):
            return False
        if fwd[a] == -1 and bwd[b] == -1:
            fwd[a] = b
            bwd[b] = a
        elif fwd[a] != b or bwd[b] != a:
            return False
    return True


@njit(cache=True)
def bucket(F, g, cands, nf, out, starts, sizes):
    """Counting sort of cands by feedback of g into out; starts/sizes per feedback id."""
    sizes[:] = 0
    for c in cands:
        sizes[F[g, c]] += 1
    pos = 0
    for f in range(nf):
        starts[f] = pos
        pos += sizes[f]
    fill = starts.copy()
    for c in cands:
        f = F[g, c]
        out[fill[f]] = c
        fill[f] += 1


@njit(cache=True)
def _candidate_guesses(cands, path, plen, codes, kind, pperms, sclass, nsym, cperms, opts):
    """The candidates that are the smallest of their symmetry orbit."""
    if opts & OPT_SYMMETRY:
        mask = representative_mask(cands, path, plen, codes, kind, pperms, sclass, nsym, cperms)
        return cands[mask]
    return cands


@njit(cache=True)
def _other_guesses(cands, all_codes, path, plen, codes, kind, pperms, sclass, nsym, cperms, opts,
                   dead_ok):
    """The codes outside the candidates, one per symmetry orbit (and per live-symbol pattern)."""
    if opts & OPT_SYMMETRY:
        mask = representative_mask(all_codes, path, plen, codes, kind, pperms, sclass, nsym,
                                   cperms)
    else:
        mask = np.ones(all_codes.shape[0], dtype=np.bool_)
    for c in cands:
        mask[c] = False
    out = np.empty(all_codes.shape[0], dtype=all_codes.dtype)
    if dead_ok and (opts & OPT_DEAD):
        k = _live_patterns(cands, codes, nsym, mask, out, 0)
    else:
        k = 0
        for g in range(all_codes.shape[0]):
            if mask[g]:
                out[k] = g
                k += 1
    return out[:k]


@njit(cache=True)
def _guess_pool(cands, all_codes, consistent, path, plen, codes, kind, pperms, sclass, nsym,
                cperms, opts, dead_ok):
    """(allowed guesses, one per symmetry orbit, candidates first; how many are candidates)."""
    first = _candidate_guesses(cands, path, plen, codes, kind, pperms, sclass, nsym, cperms, opts)
    if consistent:
        return first, first.shape[0]
    other = _other_guesses(cands, all_codes, path, plen, codes, kind, pperms, sclass, nsym,
                           cperms, opts, dead_ok)
    return np.concatenate((first, other)), first.shape[0]


@njit(cache=True)
def _live_patterns(cands, codes, nsym, mask, out, k):
    """Append to out the non-candidate guesses of mask, one per pattern of live symbols."""
    width = codes.shape[1]
    live = np.zeros(nsym, dtype=np.bool_)
    for c in cands:
        for j in range(width):
            live[codes[c, j]] = True
    size = 1
    for _ in range(width):
        size *= nsym + 1
    seen = np.zeros(size, dtype=np.bool_)
    for g in range(mask.shape[0]):
        if not mask[g]:
            continue
        key = 0
        for j in range(width):
            x = codes[g, j]
            key = key * (nsym + 1) + (x if live[x] else nsym)
        if not seen[key]:
            seen[key] = True
            out[k] = g
            k += 1
    return k


@njit(cache=True)
def _score_pool(FT, pool, cands, win, nf, LB, dc):
    """Every guess of pool over the candidates: (largest non-winning part, number of non-winning
    parts, one-step total bound n + sum of LB over the non-winning parts, number of different
    answers), each an array. LB is the table of one branching factor. The transposed matrix is
    read one candidate's row at a time, in guess order: reading each guess's row at scattered
    secrets instead misses the cache on every lookup (ten times slower on Bulls and Cows)."""
    G = pool.shape[0]
    counts = np.zeros((G, nf), dtype=np.int32)
    for c in cands:
        row = FT[c]
        for i in range(G):
            counts[i, row[pool[i]]] += 1
    largest = np.zeros(G, dtype=np.int64)
    parts = np.zeros(G, dtype=np.int64)
    answers = np.zeros(G, dtype=np.int64)
    lb1 = np.full(G, np.int64(cands.shape[0]), dtype=np.int64)
    for i in range(G):
        for f in range(nf):
            cnt = counts[i, f]
            if cnt == 0:
                continue
            answers[i] += 1
            if f == win:
                continue
            parts[i] += 1
            lb1[i] += LB[cnt, dc]
            if cnt > largest[i]:
                largest[i] = cnt
    return largest, parts, lb1, answers


@njit(cache=True)
def _some_guess_fits(FT, pool, cands, win, nf, limit):
    """Whether some guess of pool leaves no non-winning part larger than limit. Candidates are
    read in blocks (rows of the transposed matrix, as in _score_pool); a guess is dropped as soon
    as one part overflows, within the first blocks for almost every guess."""
    G = pool.shape[0]
    n = cands.shape[0]
    counts = np.zeros((G, nf), dtype=np.int32)
    alive = np.arange(G)
    n_alive = G
    start = 0
    while start < n and n_alive > 0:
        stop = min(n, start + 32)
        for j in range(start, stop):
            row = FT[cands[j]]
            for a in range(n_alive):
                i = alive[a]
                counts[i, row[pool[i]]] += 1
        kept = 0
        for a in range(n_alive):
            i = alive[a]
            fits = True
            for f in range(nf):
                if f != win and counts[i, f] > limit:
                    fits = False
                    break
            if fits:
                alive[kept] = i
                kept += 1
        n_alive = kept
        start = stop
    return n_alive > 0


@njit(cache=True)
def _separating_guess(F, pool, cands, nf, stats):
    """The first guess of pool giving every candidate its own answer, or -1: what two guesses
    need. Each guess stops at its first repeated answer, which comes after a few candidates for
    almost every guess (scoring whole pools instead is far slower here)."""
    seen = np.zeros(nf, dtype=np.bool_)
    n = cands.shape[0]
    for g in pool:
        stats[ST_SCORED] += 1
        reached = n
        for i in range(n):
            f = F[g, cands[i]]
            if seen[f]:
                reached = i
                break
            seen[f] = True
        if reached == n:
            return g
        for i in range(reached):  # clear what was set
            seen[F[g, cands[i]]] = False
    return -1


@njit(cache=True)
def _by_answers(pool, answers, nf):
    """The codes of pool (every allowed code) ordered by how many different answers they get
    from a node's candidates (most first), and at_least[r], how many codes get r or more: a guess
    separating a subset of r candidates is among the first at_least[r] (it cannot give the
    subset more answers than the whole node)."""
    order = np.argsort(-answers, kind="mergesort")
    at_least = np.zeros(nf + 2, dtype=np.int64)
    for i in range(pool.shape[0]):
        at_least[answers[i]] += 1
    for r in range(nf, -1, -1):
        at_least[r] += at_least[r + 1]
    return pool[order], at_least


@njit(cache=True)
def _separable(F, by_answers, at_least, sub, limit, nf, stats):
    """Whether two guesses solve sub (a part of a node whose codes were ordered by _by_answers):
    the guesses giving the node fewer answers than sub has candidates are never tried."""
    stats[ST_NODES] += 1
    r = sub.shape[0]
    if r <= 2:
        return True
    if r > limit or r > nf:
        return False
    return _separating_guess(F, by_answers[:at_least[r]], sub, nf, stats) >= 0


@njit(cache=True)
def _signature(F, g, cands, z1, win, nf):
    """Order-free hash of the blocks g splits cands into (the winning block marked)."""
    acc = np.zeros(nf, dtype=np.uint64)
    for c in cands:
        acc[F[g, c]] += z1[c]
    sig = np.uint64(0)
    for f in range(nf):
        if acc[f] != 0:
            sig += _mix(acc[f] + _SALT) if f == win else _mix(acc[f])
    return sig


@njit(cache=True)
def _is_duplicate(F, g, cands, z1, win, nf, seen_g, seen_sig, n_seen):
    """(whether an already evaluated guess splits cands the same way: hash, then exact check;
    the number of evaluated guesses after recording g when it is new)."""
    sig = _signature(F, g, cands, z1, win, nf)
    for i in range(n_seen):
        if seen_sig[i] == sig and same_partition(F, seen_g[i], g, cands, win, nf):
            return True, n_seen
    seen_g[n_seen] = g
    seen_sig[n_seen] = sig
    return False, n_seen + 1


@njit(cache=True)
def _parts_by_size(sizes, win, nf):
    """Non-winning feedback ids with a non-empty part, largest part first."""
    count = 0
    for f in range(nf):
        if f != win and sizes[f] > 0:
            count += 1
    ids = np.empty(count, dtype=np.int64)
    k = 0
    for f in range(nf):
        if f != win and sizes[f] > 0:
            ids[k] = f
            k += 1
    order = np.argsort(-sizes[ids], kind="mergesort")
    return ids[order]


# --- height: can the candidates be solved within d guesses? -----------------------------------
@njit(cache=True)
def feasible(cands, d, bmax, path, plen, F, FT, all_codes, codes, kind, pperms, sclass, nsym,
             cperms, consistent, win, nf, M, LB, z1, z2, keys, vals, stats, opts, dead_ok, out):
    """Whether cands can be solved within d guesses; bmax bounds the non-winning answers any
    guess gets on them (inherited from the parent, whose set contains them)."""
    n = cands.shape[0]
    stats[ST_NODES] += 1
    out[0] = -1
    if n == 1:
        if d >= 1:
            out[0] = cands[0]
            return True
        return False
    if d <= 1 or n > M[bmax, min(d, DCAP)]:
        return False
    if n == 2:
        out[0] = cands[0]
        return True
    h1, h2 = set_hash(cands, z1, z2)
    meta = np.int64(n) << 20
    if opts & OPT_TT:
        slot = tt_find(keys, vals, h1, h2, meta)
        if slot >= 0:
            if vals[slot, 2] <= d:
                stats[ST_TT_HITS] += 1
                out[0] = vals[slot, 3]
                return True
            if vals[slot, 1] > d:
                stats[ST_TT_HITS] += 1
                return False
    pool, n_cand = _guess_pool(cands, all_codes, consistent, path, plen, codes, kind, pperms,
                               sclass, nsym, cperms, opts, dead_ok)
    if d == 2:
        g = _separating_guess(F, pool, cands, nf, stats)
        if opts & OPT_TT:
            tt_store(keys, vals, h1, h2, meta, 0 if g >= 0 else d + 1, d if g >= 0 else INF, g)
        out[0] = g
        return g >= 0
    G = pool.shape[0]
    dc = min(d - 1, DCAP)
    limit = M[bmax, dc]
    stats[ST_SCORED] += G
    # With three guesses left, the children are checked against codes ordered by their answers
    # here, which needs every code scored: then one full pass replaces the early-exit test.
    separate = d == 3 and not consistent and (opts & OPT_SEPARATE) != 0
    scored_all = separate and pool.shape[0] == all_codes.shape[0]
    if n > limit and not scored_all and not _some_guess_fits(FT, pool, cands, win, nf, limit):
        # The usual way a node fails: every guess leaves a part too large for d - 1 guesses.
        if opts & OPT_TT:
            tt_store(keys, vals, h1, h2, meta, d + 1, INF, -1)
        return False
    all_largest, all_parts, _, all_answers = _score_pool(FT, pool, cands, win, nf, LB[bmax], dc)
    kept = np.empty(G, dtype=np.int64)
    kept_largest = np.empty(G, dtype=np.int64)
    order_key = np.empty(G, dtype=np.int64)
    k = 0
    branching = 0  # the most non-winning parts any guess makes here: holds for every subset
    for gi in range(G):
        g = pool[gi]
        largest, parts = all_largest[gi], all_parts[gi]
        if parts > branching:
            branching = parts
        if largest > limit or largest == n:
            continue
        if d == 2:  # every part is a single secret: solved right here
            out[0] = g
            if opts & OPT_TT:
                tt_store(keys, vals, h1, h2, meta, 0, d, g)
            return True
        kept[k] = g
        kept_largest[k] = largest
        order_key[k] = (np.int64(largest) << 40) | (np.int64(63 - parts) << 32) | gi
        k += 1
    limit = M[branching, dc]
    if d > 2 and k > 0 and n <= M[branching, min(d, DCAP)]:
        order = np.argsort(order_key[:k])
        buf = np.empty(n, dtype=np.int32)
        starts = np.empty(nf, dtype=np.int64)
        sizes = np.empty(nf, dtype=np.int64)
        seen_g = np.empty(k, dtype=np.int64)
        seen_sig = np.empty(k, dtype=np.uint64)
        n_seen = 0
        if scored_all:
            by_answers, at_least = _by_answers(pool, all_answers, nf)
        elif separate:  # the pool holds one code per symmetry class: score every code
            answers = _score_pool(FT, all_codes, cands, win, nf, LB[bmax], dc)[3]
            by_answers, at_least = _by_answers(all_codes, answers, nf)
        else:
            by_answers, at_least = all_codes, np.zeros(0, dtype=np.int64)
        for oi in range(k):
            if kept_largest[order[oi]] > limit:
                break  # sorted by largest part: no later guess fits either
            g = kept[order[oi]]
            if opts & OPT_DEDUPE:
                dup, n_seen = _is_duplicate(F, g, cands, z1, win, nf, seen_g, seen_sig, n_seen)
                if dup:
                    continue
            bucket(F, g, cands, nf, buf, starts, sizes)
            ids = _parts_by_size(sizes, win, nf)
            path[plen] = g
            ok = True
            for f in ids:
                sub = buf[starts[f]:starts[f] + sizes[f]]
                if separate:
                    if not _separable(F, by_answers, at_least, sub, M[branching, 2], nf, stats):
                        ok = False
                        break
                    continue
                if not feasible(sub, d - 1, branching, path, plen + 1, F, FT, all_codes, codes,
                                kind, pperms, sclass, nsym, cperms, consistent, win, nf, M, LB, z1,
                                z2, keys, vals, stats, opts, dead_ok, out):
                    ok = False
                    break
            if ok:
                out[0] = g
                if opts & OPT_TT:
                    tt_store(keys, vals, h1, h2, meta, 0, d, g)
                return True
    out[0] = -1
    if opts & OPT_TT:
        tt_store(keys, vals, h1, h2, meta, d + 1, INF, -1)
    return False


# --- total: least sum of guesses over the candidates, within d guesses -------------------------
@njit(cache=True)
def min_total(cands, d, beta, bmax, path, plen, F, FT, all_codes, codes, kind, pperms, sclass, nsym,
              cperms, consistent, win, nf, M, LB, LBN, z1, z2, keys, vals, stats, opts, dead_ok,
              out):
    """The exact least total when it is below beta; otherwise a proven lower bound >= beta.
    bmax bounds the non-winning answers any guess gets on cands (inherited from the parent)."""
    n = cands.shape[0]
    stats[ST_NODES] += 1
    out[0] = -1
    if n == 1:
        if d >= 1:
            out[0] = cands[0]
            return np.int64(1)
        return INF
    if d > n:
        d = n
    if d <= 1 or n > M[bmax, min(d, DCAP)]:
        return INF
    if n == 2:
        out[0] = cands[0]
        return np.int64(3)
    lb0 = LB[bmax, n, min(d, DCAP)]
    if lb0 >= beta:
        return lb0
    h1, h2 = set_hash(cands, z1, z2)
    meta = (np.int64(n) << 20) + d
    if opts & OPT_TT:
        slot = tt_find(keys, vals, h1, h2, meta)
        if slot >= 0:
            if vals[slot, 1] == vals[slot, 2]:
                stats[ST_TT_HITS] += 1
                out[0] = vals[slot, 3]
                return vals[slot, 2]
            if vals[slot, 1] >= beta:
                stats[ST_TT_HITS] += 1
                return vals[slot, 1]
            if vals[slot, 1] > lb0:
                lb0 = vals[slot, 1]
    pool = _candidate_guesses(cands, path, plen, codes, kind, pperms, sclass, nsym, cperms,
                              opts)
    n_cand = pool.shape[0]
    G = n_cand if consistent else n_cand + all_codes.shape[0] - n
    dc = min(d - 1, DCAP)
    kept = np.empty(G, dtype=np.int64)
    bound = np.empty(G, dtype=np.int64)
    small = np.empty(G, dtype=np.bool_)
    order_key = np.empty(G, dtype=np.int64)
    k = 0
    lb_min = INF  # least bound among guesses left out
    branching = 0  # the most non-winning parts any guess makes here: holds for every subset
    complete = True  # whether every allowed guess was scored
    offset = 0
    while True:
        all_largest, all_parts, all_lb1, _ = _score_pool(FT, pool, cands, win, nf, LB[bmax], dc)
        stats[ST_SCORED] += pool.shape[0]
        for i in range(pool.shape[0]):
            g = pool[i]
            largest, parts, lb1 = all_largest[i], all_parts[i], all_lb1[i]
            if parts > branching:
                branching = parts
            if largest == n or lb1 >= INF:
                continue
            if largest <= 2 and lb1 <= lb0:
                # parts of one or two secrets cost exactly 1 and 3: nothing can do better
                out[0] = g
                if opts & OPT_TT:
                    tt_store(keys, vals, h1, h2, meta, lb1, lb1, g)
                return lb1
            if lb1 >= beta:
                if lb1 < lb_min:
                    lb_min = lb1
                continue
            kept[k] = g
            bound[k] = lb1
            small[k] = largest <= 2
            order_key[k] = (lb1 << 24) | (offset + i)
            k += 1
        if consistent or offset > 0:
            break
        lbn = LBN[bmax, n, min(d, DCAP)]
        if lbn >= beta:
            # No guess outside the candidates can beat LBN (nobody is solved at depth 1).
            if lbn < lb_min:
                lb_min = lbn
            complete = False
            break
        offset = n_cand
        pool = _other_guesses(cands, all_codes, path, plen, codes, kind, pperms, sclass, nsym,
                              cperms, opts, dead_ok)
        if pool.shape[0] == 0:
            break
    if complete:
        # every guess was scored, so `branching` bounds this node and all below it
        tight = LB[branching, n, min(d, DCAP)]
        if tight > lb0:
            lb0 = tight
        if lb0 >= beta:
            if opts & OPT_TT:
                tt_store(keys, vals, h1, h2, meta, lb0, INF, -1)
            return lb0
    else:
        branching = bmax
    order = np.argsort(order_key[:k])
    buf = np.empty(n, dtype=np.int32)
    starts = np.empty(nf, dtype=np.int64)
    sizes = np.empty(nf, dtype=np.int64)
    seen_g = np.empty(k, dtype=np.int64)
    seen_sig = np.empty(k, dtype=np.uint64)
    n_seen = 0
    best = beta
    best_g = -1
    for oi in range(k):
        j = order[oi]
        g = kept[j]
        if bound[j] >= best:
            if bound[j] < lb_min:
                lb_min = bound[j]
            break
        if small[j]:
            best = bound[j]
            best_g = g
            continue
        if opts & OPT_DEDUPE:
            dup, n_seen = _is_duplicate(F, g, cands, z1, win, nf, seen_g, seen_sig, n_seen)
            if dup:
                continue
        bucket(F, g, cands, nf, buf, starts, sizes)
        ids = _parts_by_size(sizes, win, nf)
        part_lb = np.empty(ids.shape[0], dtype=np.int64)
        rest = np.int64(0)
        for i in range(ids.shape[0]):
            part_lb[i] = LB[branching, sizes[ids[i]], dc]
            rest += part_lb[i]
        if n + rest >= best:  # the node's own branching bound already rules this guess out
            if n + rest < lb_min:
                lb_min = n + rest
            continue
        path[plen] = g
        cut = False
        if opts & OPT_PROBE:
            # Null-window probes: is each part exactly at its bound? Cheap, and every raised
            # bound may refute the guess before any part is solved exactly.
            for i in range(ids.shape[0]):
                f = ids[i]
                if sizes[f] <= 2:
                    continue
                sub = buf[starts[f]:starts[f] + sizes[f]]
                v = min_total(sub, d - 1, part_lb[i] + 1, branching, path, plen + 1, F, FT,
                              all_codes, codes, kind, pperms, sclass, nsym, cperms, consistent,
                              win, nf, M, LB, LBN, z1, z2, keys, vals, stats, opts, dead_ok, out)
                rest += v - part_lb[i]
                part_lb[i] = v
                if n + rest >= best:
                    cut = True
                    if n + rest < lb_min:
                        lb_min = n + rest
                    break
            if cut:
                continue
        total = np.int64(n)
        for i in range(ids.shape[0]):
            f = ids[i]
            size = sizes[f]
            rest -= part_lb[i]
            child_beta = best - total - rest
            sub = buf[starts[f]:starts[f] + size]
            v = min_total(sub, d - 1, child_beta, branching, path, plen + 1, F, FT, all_codes,
                          codes, kind, pperms, sclass, nsym, cperms, consistent, win, nf, M, LB,
                          LBN, z1, z2, keys, vals, stats, opts, dead_ok, out)
            total += v
            if v >= child_beta:
                cut = True
                if total + rest < lb_min:
                    lb_min = total + rest
                break
        if not cut:
            best = total
            best_g = g
    if best_g >= 0:
        out[0] = best_g
        if opts & OPT_TT:
            tt_store(keys, vals, h1, h2, meta, best, best, best_g)
        return best
    out[0] = -1
    if lb_min > INF:
        lb_min = INF
    if lb_min < lb0:
        lb_min = lb0
    if opts & OPT_TT:
        tt_store(keys, vals, h1, h2, meta, lb_min, INF, -1)
    return lb_min
