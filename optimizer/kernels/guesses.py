"""Which guesses a node must try: the allowed codes, less those proven equivalent to one kept.

- Symmetry (OPT_SYMMETRY): every symmetry that maps each guess made so far to itself maps the
  candidate set to itself, so guesses in one orbit of that subgroup have subtrees of equal cost;
  only the smallest code of each orbit is kept (``symmetry.py``; seed 004's digit-relabelling
  classes are the orbits at the root).
- Dead symbols (OPT_DEAD, digit games whose positions all allow the same symbols): a symbol that
  no candidate holds scores nothing against any candidate, so two non-candidate guesses with the
  same live symbols in the same positions get the same feedback from every candidate; one of
  them is kept.
- Candidates first: pools list the candidates before the other codes, since only a candidate can
  win at once (the total search scores the others only when their bound can still win).

The orbit mask over every code depends only on the guesses made so far, which every part of a
node shares, probed or searched: it is remembered per path length in the Run's ``masks``.
"""

import numpy as np
from numba import njit

from .bundles import OPT_DEAD, OPT_SYMMETRY
from .symmetry import representative_mask


@njit(cache=True, nogil=True)
def _remembered(run, path, plen):
    """Whether row plen of run.masks holds the orbit mask of path[:plen] (row k of
    run.mask_paths: 1, then the path it was computed for)."""
    if plen >= run.masks.shape[0]:
        return False
    memo = run.mask_paths[plen]
    if memo[0] != 1:
        return False
    for i in range(plen):
        if memo[i + 1] != path[i]:
            return False
    return True


@njit(cache=True, nogil=True)
def orbit_mask(problem, orbits, run, path, plen):
    """mask[c]: whether code c is the smallest of its orbit under the symmetries fixing
    path[:plen]; computed over every code and remembered per path length. Read only."""
    if _remembered(run, path, plen):
        return run.masks[plen]
    mask = representative_mask(orbits, problem.all_codes, path, plen)
    if plen < run.masks.shape[0]:
        memo = run.mask_paths[plen]
        run.masks[plen, :] = mask
        memo[1:plen + 1] = path[:plen]
        memo[0] = 1
    return mask


@njit(cache=True, nogil=True)
def candidate_guesses(problem, orbits, run, cands, path, plen):
    """The candidates that are the smallest of their symmetry orbit (from the remembered mask
    when there is one: a mask over every code costs more than one over a few candidates)."""
    if not run.opts & OPT_SYMMETRY:
        return cands
    if not _remembered(run, path, plen):
        return cands[representative_mask(orbits, cands, path, plen)]
    mask = run.masks[plen]
    out = np.empty_like(cands)
    k = 0
    for c in cands:
        if mask[c]:
            out[k] = c
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def other_guesses(problem, orbits, run, cands, path, plen):
    """The codes outside the candidates, one per symmetry orbit (and per live-symbol pattern)."""
    all_codes = problem.all_codes
    opts = run.opts
    if opts & OPT_SYMMETRY:
        mask = orbit_mask(problem, orbits, run, path, plen).copy()
    else:
        mask = np.ones(all_codes.shape[0], dtype=np.bool_)
    for c in cands:
        mask[c] = False
    out = np.empty(all_codes.shape[0], dtype=all_codes.dtype)
    if orbits.dead_ok and (opts & OPT_DEAD):
        k = _live_patterns(orbits, cands, mask, out)
    else:
        k = 0
        for g in range(all_codes.shape[0]):
            if mask[g]:
                out[k] = g
                k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def guess_pool(problem, orbits, run, cands, path, plen):
    """The allowed guesses, one per class of equivalent ones, candidates first."""
    first = candidate_guesses(problem, orbits, run, cands, path, plen)
    if problem.consistent:
        return first
    other = other_guesses(problem, orbits, run, cands, path, plen)
    return np.concatenate((first, other))


@njit(cache=True, nogil=True)
def _live_patterns(orbits, cands, mask, out):
    """Write to out the guesses of mask, one per pattern of live symbols; returns how many."""
    codes, nsym = orbits.codes, orbits.n_symbols
    width = codes.shape[1]
    live = np.zeros(nsym, dtype=np.bool_)
    for c in cands:
        for j in range(width):
            live[codes[c, j]] = True
    size = 1
    for _ in range(width):
        size *= nsym + 1
    seen = np.zeros(size, dtype=np.bool_)
    k = 0
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
