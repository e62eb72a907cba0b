"""A guess splits a node's candidates into parts, one per feedback: counting, sorting and comparing
those parts (scoring.py scores a whole pool of guesses).

- Useless guesses (``tells_nothing``): a guess whose largest part holds every candidate teaches
  nothing, so no optimal tree makes it (it would only add a level). The one rule, used by the
  searches and the greedy strategies alike.
- Partition equality (OPT_DEDUPE): two guesses that split the candidates into the same blocks,
  with the same winning block, lead to the same children, so only the first is searched. An
  order-free 64-bit signature finds candidates for this, an exact comparison confirms.
"""

import numpy as np
from numba import njit

from .bundles import ST_SCORED
from .table import mix

_SALT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def tells_nothing(largest, n):
    """Whether a guess whose largest part (the winning one counted) holds ``largest`` of the n
    candidates tells them nothing apart."""
    return n > 1 and largest >= n


@njit(cache=True, nogil=True)
def bucket(F, g, cands, nf, out, starts, sizes):
    """Counting sort of cands ((n,) int codes) by the feedback of g (F: (N, N) uint8) into out
    ((>= n,) same dtype); starts and sizes ((nf,) int64) per feedback id."""
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


@njit(cache=True, nogil=True)
def parts_by_size(sizes, win, nf):
    """(k,) int64: the non-winning feedback ids with a non-empty part (sizes: (nf,) int64 part
    sizes), largest part first, ties by id (the part likeliest to fail or to cost most is
    searched first, so cut-offs come early)."""
    count = 0
    for f in range(nf):
        if f != win and sizes[f] > 0:
            count += 1
    ids = np.empty(count, dtype=np.int64)
    k = 0
    for f in range(nf):  # insertion sort: a few ids, and no temporary arrays
        if f != win and sizes[f] > 0:
            j = k
            while j > 0 and sizes[ids[j - 1]] < sizes[f]:
                ids[j] = ids[j - 1]
                j -= 1
            ids[j] = f
            k += 1
    return ids


@njit(cache=True, nogil=True)
def stable_order(keys):
    """(k,) int64: the indices of keys ((k,) int64) in increasing order, ties in their first
    order (a stable argsort).
    Most nodes sort a few small integers: an insertion sort, or a counting sort over a narrow
    range, instead of a merge sort whose set-up cost more than the sorting."""
    k = keys.shape[0]
    order = np.empty(k, dtype=np.int64)
    if k <= 16:
        for i in range(k):
            j = i
            while j > 0 and keys[order[j - 1]] > keys[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        return order
    lo, hi = keys.min(), keys.max()
    if hi - lo >= 4 * k:
        return np.argsort(keys, kind="mergesort")
    starts = np.zeros(hi - lo + 2, dtype=np.int64)
    for i in range(k):
        starts[keys[i] - lo + 1] += 1
    for v in range(hi - lo):
        starts[v + 1] += starts[v]
    for i in range(k):
        v = keys[i] - lo
        order[starts[v]] = i
        starts[v] += 1
    return order


@njit(cache=True, nogil=True)
def count_parts(FT, pool, cands, counts):
    """counts[i, f] ((>= G, nf) uint8, uint16 or int32; written): the candidates answering f to
    pool[i] ((G,) codes), one candidate's row of the transposed matrix FT ((N, N) uint8) at a
    time."""
    G = pool.shape[0]
    counts[:G] = 0
    for c in cands:
        row = FT[c]
        for i in range(G):
            counts[i, row[pool[i]]] += 1


@njit(cache=True, nogil=True)
def some_guess_fits(problem, scratch, pool, cands, limit):
    """Whether some guess of pool ((G,) int32) leaves no non-winning part of cands ((n,) int32)
    larger than limit (scratch: (>= G, nf) uint16 counters, written). Candidates are
    read in blocks (rows of the transposed matrix, as in count_parts); a guess is dropped as
    soon as one part overflows, within the first blocks for almost every guess."""
    FT, win, nf = problem.FT, problem.win, problem.nf
    G = pool.shape[0]
    n = cands.shape[0]
    counts = scratch[:G]
    counts[:] = 0
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


@njit(cache=True, nogil=True)
def separating_guess(F, pool, cands, nf, stats):
    """The first guess of pool ((G,) int32) giving every candidate of cands ((n,) int32) its own
    answer (F: (N, N) uint8; stats: Run.stats, counts scored guesses), or -1: what two guesses
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


@njit(cache=True, nogil=True)
def by_answers(pool, answers, nf):
    """The codes of pool ((G,) int32, every allowed code) ordered by how many different answers
    ((G,) int64) they get from a node's candidates (most first), and at_least[r] ((nf + 2,)
    int64), how many codes get r or more: a guess separating a subset of r candidates is among
    the first at_least[r] (it cannot give the subset more answers than the whole node)."""
    order = np.argsort(-answers, kind="mergesort")
    at_least = np.zeros(nf + 2, dtype=np.int64)
    for i in range(pool.shape[0]):
        at_least[answers[i]] += 1
    for r in range(nf, -1, -1):
        at_least[r] += at_least[r + 1]
    return pool[order], at_least


@njit(cache=True, nogil=True)
def same_partition(F, g1, g2, cands, win, nf):
    """True when g1 and g2 split cands ((n,) int32) into the same blocks, the winning block
    included (F: (N, N) uint8)."""
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


@njit(cache=True, nogil=True)
def signature(F, g, cands, z1, win, nf):
    """Order-free uint64 hash of the blocks g splits cands ((n,) int32) into (the winning block
    marked; z1: (N,) uint64 words per code)."""
    acc = np.zeros(nf, dtype=np.uint64)
    for c in cands:
        acc[F[g, c]] += z1[c]
    sig = np.uint64(0)
    for f in range(nf):
        if acc[f] != 0:
            sig += mix(acc[f] + _SALT) if f == win else mix(acc[f])
    return sig


@njit(cache=True, nogil=True)
def is_duplicate(problem, z1, g, cands, seen_g, seen_sig, n_seen):
    """(whether one of the n_seen guesses already searched on cands ((n,) int32) splits them the
    same way: hash, then exact check; the number of searched guesses after recording g when it
    is new). z1: (N,) uint64, Table.z1; seen_g ((G,) int64) and seen_sig ((G,) uint64): the
    searched guesses and their signatures (written).

    Never in hard mode: there a child's allowed guesses depend on the hints of the guess that
    led to it, so two guesses splitting alike can cost differently. (Answers bat cat hat mat
    vxx xxx yxx zxx, guesses also chm xay xqy: xqy splits like xay, but xay's green a forbids
    chm below it; the least total is 21 by xqy, and merging them gave 22.)"""
    if problem.hard:
        return False, n_seen
    F, win, nf = problem.F, problem.win, problem.nf
    sig = signature(F, g, cands, z1, win, nf)
    for i in range(n_seen):
        if seen_sig[i] == sig and same_partition(F, seen_g[i], g, cands, win, nf):
            return True, n_seen
    seen_g[n_seen] = g
    seen_sig[n_seen] = sig
    return False, n_seen + 1
