"""Which guesses a node must try: the allowed codes, less those proven equivalent to one kept.

- Symmetry (OPT_SYMMETRY): every symmetry that maps each guess made so far to itself maps the
  candidate set to itself, so guesses in one orbit of that subgroup have subtrees of equal cost;
  only the smallest code of each orbit is kept (``symmetry.py``; seed 004's digit-relabelling
  classes are the orbits at the root).
- Dead symbols (OPT_DEAD, digit games whose positions all allow the same symbols): a symbol that
  no candidate holds scores nothing against any candidate, so two non-candidate guesses with the
  same live symbols in the same positions get the same feedback from every candidate; one of
  them is kept.
- Squares saying the same (OPT_DEAD, games scored by squares: Battleship; the least-cost
  searches, ``square_patterns``): a guess's feedback adds up what its squares say of the
  secret, so two squares that say the same of every candidate are interchangeable in a guess,
  and a square that says one thing of every candidate only shifts every feedback by the same
  amount. Two non-candidate guesses whose squares fall into the same classes, counted with
  repeats, split the candidates alike; one of them is kept. The height search keeps every code:
  with three guesses left it reads the separators off a pool of every code (a smaller pool has
  them found by a second pass), and with two it stops at the first separating guess. With the
  rule, its benchmark (3 Battleship classes refuted at height 5) ran 1.48 times slower
  (docs/performance.md).
- Candidates first: pools list the candidates before the other codes, since only a candidate can
  win at once (the total search scores the others only when their bound can still win).

The symmetries fixing the guesses so far, and the orbit representatives among every code, depend
only on those guesses, which every part of a node shares, probed or searched: they are remembered
per path length in the Run (``memo_paths``, the ``stab_*`` arrays, ``masks`` and ``reps``).
"""

import numpy as np
from numba import njit

from .bundles import MEMO_MASK, MEMO_STABILIZER, OPT_DEAD, OPT_SYMMETRY
from .symmetry import (
    KIND_DIGITS,
    digit_mask,
    digit_stabilizer,
    only_identity,
    representative_mask,
)
from .table import mix, set_hash


@njit(cache=True, nogil=True)
def _memo_row(run, path, plen):
    """Row plen of run.memo_paths, made to describe path[:plen] (what it remembered for another
    path is dropped), or -1 past MASK_DEPTH. The row: what it holds (MEMO_* bits), the
    stabilizer's size, how many orbit representatives, then the path."""
    if plen >= run.masks.shape[0]:
        return -1
    same = run.memo_paths[plen, 0] != 0
    if same:
        for i in range(plen):
            if run.memo_paths[plen, i + 3] != path[i]:
                same = False
                break
    if not same:
        run.memo_paths[plen, 0] = 0
        for i in range(plen):
            run.memo_paths[plen, i + 3] = path[i]
    return plen


@njit(cache=True, nogil=True)
def _stabilizer(orbits, run, row, path):
    """(perms, maps, count, used) of the symmetries fixing path[:row] (digit games), computed
    once per row of the memo (every part of a node, probed or searched, asks for the same)."""
    if not run.memo_paths[row, 0] & MEMO_STABILIZER:
        run.memo_paths[row, 1] = digit_stabilizer(
            orbits.codes, path, row, orbits.position_perms, orbits.symbol_class,
            run.stab_perms[row], run.stab_maps[row], run.used_symbols[row])
        run.memo_paths[row, 0] |= MEMO_STABILIZER
    return (run.stab_perms[row], run.stab_maps[row], np.int64(run.memo_paths[row, 1]),
            run.used_symbols[row])


@njit(cache=True, nogil=True)
def orbit_reps(problem, orbits, run, path, plen):
    """The codes that are the smallest of their orbit under the symmetries fixing path[:plen],
    in order; computed over every code and remembered per path length, with their mask (read
    by candidate_guesses). Read only."""
    row = _memo_row(run, path, plen)
    if row < 0:
        return problem.all_codes[representative_mask(orbits, problem.all_codes, path, plen)]
    mask = run.masks[row]
    if not run.memo_paths[row, 0] & MEMO_MASK:
        if orbits.kind == KIND_DIGITS:
            perms, maps, count, used = _stabilizer(orbits, run, row, path)
            mask[:] = True
            digit_mask(orbits, problem.all_codes, perms, maps, count, used, mask)
        else:
            mask[:] = representative_mask(orbits, problem.all_codes, path, plen)
        k = 0
        for c in range(mask.shape[0]):
            if mask[c]:
                run.reps[row, k] = c
                k += 1
        run.memo_paths[row, 2] = k
        run.memo_paths[row, 0] |= MEMO_MASK
    return run.reps[row, :run.memo_paths[row, 2]]


@njit(cache=True, nogil=True)
def candidate_guesses(problem, orbits, run, cands, path, plen):
    """(k,) int32: the candidates ((n,) int32) that are the smallest of their symmetry orbit after
    the guesses path[:plen] (from the remembered mask
    when there is one: a mask over every code costs more than one over a few candidates)."""
    if not run.opts & OPT_SYMMETRY:
        return cands
    row = _memo_row(run, path, plen)
    if row >= 0 and run.memo_paths[row, 0] & MEMO_MASK:
        return _kept(cands, run.masks[row])  # remembered by orbit_reps
    if row < 0 or orbits.kind != KIND_DIGITS:
        return cands[representative_mask(orbits, cands, path, plen)]
    perms, maps, count, used = _stabilizer(orbits, run, row, path)
    if only_identity(count, used):
        return cands
    keep = np.ones(cands.shape[0], dtype=np.bool_)
    digit_mask(orbits, cands, perms, maps, count, used, keep)
    return cands[keep]


@njit(cache=True, nogil=True)
def other_guesses(problem, orbits, run, cands, path, plen):
    """(k,) int32: the codes outside the candidates ((n,) int32), one per symmetry orbit after the
    guesses path[:plen] (and per live-symbol pattern),
    read from the remembered list of orbit representatives (after two guesses of Bulls and Cows,
    about a seventh of the codes)."""
    all_codes = problem.all_codes
    opts = run.opts
    reps = orbit_reps(problem, orbits, run, path, plen) if opts & OPT_SYMMETRY else all_codes
    outside = np.ones(all_codes.shape[0], dtype=np.bool_)
    for c in cands:
        outside[c] = False
    # Digit games only (codes hold symbols), and never in hard mode: the patterns are not
    # filtered by the hints below (no digit game has a hard mode today).
    if orbits.dead_ok and (opts & OPT_DEAD) and not problem.hard:
        live = _live_symbols(orbits, cands)
        if not live.all():
            out = np.empty(reps.shape[0], dtype=all_codes.dtype)
            return out[:_live_patterns(orbits, live, reps, outside, out)]
    kept = _kept(reps, outside)  # no dead symbol: every code is a pattern of its own
    if problem.hard:
        return hard_filter(problem, orbits, kept, cands, path, plen)
    return kept


@njit(cache=True, nogil=True)
def _kept(codes, table):
    """The codes c of ``codes`` ((k,) int32) with table[c] ((N,) bool), in order."""
    out = np.empty_like(codes)
    k = 0
    for c in codes:
        if table[c]:
            out[k] = c
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def guess_pool(problem, orbits, run, cands, path, plen):
    """(G,) int32: the allowed guesses on cands ((n,) int32) after the guesses path[:plen]
    ((N + 2,) int32), one per class of equivalent ones, candidates first."""
    first = candidate_guesses(problem, orbits, run, cands, path, plen)
    if problem.consistent:
        return first
    other = other_guesses(problem, orbits, run, cands, path, plen)
    return np.concatenate((first, other))


# --- hard mode (word games) ----------------------------------------------------------------------
# A guess must keep every hint the path revealed: a letter marked right place stays there, and a
# letter marked right place or elsewhere is used again as often. Every candidate keeps them (its
# letters gave the marks), so only the codes outside the candidates are filtered. The path's
# answers are those of any candidate (they all got the same ones). A node's value then depends on
# those hints as well as on its candidates, so its table key includes them (``node_hash``).
@njit(cache=True, nogil=True)
def keeps_hints(codes, marks, earlier, fid, guess):
    """Whether code ``guess`` keeps what code ``earlier`` revealed by getting feedback ``fid``
    (codes: (N, L) int16 letters; marks: (nf, L) int8). games.words.keeps_hints is its twin."""
    width = codes.shape[1]
    for i in range(width):
        if marks[fid, i] == 2 and codes[guess, i] != codes[earlier, i]:
            return False
    for i in range(width):
        if marks[fid, i] == 0:
            continue
        x = codes[earlier, i]
        need = 0
        have = 0
        for j in range(width):
            if marks[fid, j] != 0 and codes[earlier, j] == x:
                need += 1
            if codes[guess, j] == x:
                have += 1
        if have < need:
            return False
    return True


@njit(cache=True, nogil=True)
def _keeps_path(problem, codes, guess, cand, path, plen):
    """Whether ``guess`` keeps the hints of every guess of path[:plen] (answered as to cand)."""
    for k in range(plen):
        if not keeps_hints(codes, problem.marks, path[k], problem.F[path[k], cand], guess):
            return False
    return True


@njit(cache=True, nogil=True)
def hard_filter(problem, orbits, codes, cands, path, plen):
    """(k,) int32: the codes of ``codes`` that hard mode allows after path[:plen], in order."""
    if plen == 0:
        return codes
    out = np.empty_like(codes)
    k = 0
    for g in codes:
        if _keeps_path(problem, orbits.codes, g, cands[0], path, plen):
            out[k] = g
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def node_hash(problem, table, cands, path, plen):
    """The table key (two uint64 hashes) of a node: its candidate set, and in hard mode the
    hints its path revealed too (an order-free sum over the (guess, answer) pairs)."""
    h1, h2 = set_hash(table, cands)
    if problem.hard and plen > 0:
        key = np.uint64(0)
        for k in range(plen):
            g = np.uint64(path[k])
            key += mix(g * np.uint64(problem.nf) + np.uint64(problem.F[path[k], cands[0]])
                       + np.uint64(1))
        h1 ^= key
        h2 ^= mix(key ^ np.uint64(0x5DEECE66D))
    return h1, h2


@njit(cache=True, nogil=True)
def _live_symbols(orbits, cands):
    """(S,) bool live[s]: whether some candidate ((n,) int32) holds symbol s."""
    codes = orbits.codes
    live = np.zeros(orbits.n_symbols, dtype=np.bool_)
    for c in cands:
        for j in range(codes.shape[1]):
            live[codes[c, j]] = True
    return live


@njit(cache=True, nogil=True)
def _live_patterns(orbits, live, reps, outside, out):
    """Write to out ((>= k,) int32) the codes of reps ((k,) int32) outside the candidates
    (outside: (N,) bool), one per pattern of live symbols
    (the first of each); returns how many. A pattern's key is a number in base S + 1 (digit S:
    a dead symbol), summed from a table per position, all keys before any look-up (a fifth
    faster than one code at a time)."""
    codes, nsym = orbits.codes, orbits.n_symbols
    width = codes.shape[1]
    digit = np.empty((width, nsym), dtype=np.int32)  # digit[j, x]: x at position j, in the key
    weight = 1
    for j in range(width - 1, -1, -1):
        for x in range(nsym):
            digit[j, x] = (x if live[x] else nsym) * weight
        weight *= nsym + 1
    keys = np.zeros(reps.shape[0], dtype=np.int32)  # one position at a time: no carried chain
    for j in range(width):
        for a in range(reps.shape[0]):
            keys[a] += digit[j, codes[reps[a], j]]
    seen = np.zeros(weight, dtype=np.bool_)
    k = 0
    for a in range(reps.shape[0]):
        g = reps[a]
        if outside[g] and not seen[keys[a]]:
            seen[keys[a]] = True
            out[k] = g
            k += 1
    return k


@njit(cache=True, nogil=True)
def _square_classes(values, cands):
    """((Q,) int64 class of each square, number of classes): squares that say the same of every
    candidate ((n,) int32, n >= 1; values: Problem.square_values) share a class; class 0 holds
    those that say one thing of all of them."""
    n_squares = values.shape[1]
    of = np.zeros(n_squares, dtype=np.int64)
    first = np.empty(n_squares + 1, dtype=np.int64)  # a square of each class
    k = 1
    for q in range(n_squares):
        said = values[cands[0], q]
        dead = True
        for c in cands:
            if values[c, q] != said:
                dead = False
                break
        if dead:
            continue
        of[q] = k
        for j in range(1, k):
            r = first[j]
            same = True
            for c in cands:
                if values[c, q] != values[c, r]:
                    same = False
                    break
            if same:
                of[q] = j
                break
        if of[q] == k:
            first[k] = q
            k += 1
    return of, k


@njit(cache=True, nogil=True)
def square_patterns(problem, cands, pool):
    """(k,) int32: the guesses of pool ((G,) int32, none a candidate of cands, (n,) int32) one
    per pattern of square classes (``_square_classes``; the first of each), in order."""
    of, k = _square_classes(problem.square_values, cands)
    seen = np.zeros(k * k * k, dtype=np.bool_)
    out = np.empty_like(pool)
    kept = 0
    for g in pool:
        a = of[problem.guess_squares[g, 0]]
        b = of[problem.guess_squares[g, 1]]
        c = of[problem.guess_squares[g, 2]]
        if a > b:
            a, b = b, a
        if b > c:
            b, c = c, b
        if a > b:
            a, b = b, a
        key = (a * k + b) * k + c
        if not seen[key]:
            seen[key] = True
            out[kept] = g
            kept += 1
    return out[:kept]
