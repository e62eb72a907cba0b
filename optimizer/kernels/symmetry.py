"""Orbit representatives of guesses under the symmetries that fix every guess made so far.

Every symmetry h that maps each earlier guess to itself maps the candidate set to itself (the
feedback of gi on h(x) equals that of h(gi) = gi on x), so a guess g and h(g) lead to subtrees of
equal cost. A guess is kept when it is the lexicographically smallest code of its orbit; code
indices follow lexicographic order, so for explicit permutations "smallest index" is the same test.

kind 0 ("digits"): h = (position permutation p, symbol permutation s) acting as s(c[p[j]]).
Fixing the earlier guesses pins s on the symbols they used; symbols never used are free within
their class, so the smallest image renames them in order of first appearance.
kind 1 ("perms"): an explicit list of code permutations (the mirror images of a board).
"""

import numpy as np
from numba import njit

KIND_DIGITS = 0
KIND_PERMS = 1


@njit(cache=True, nogil=True)
def digit_stabilizer(codes, path, path_len, position_perms, symbol_class, perms, maps, used):
    """The (p, s) pairs fixing every guess of path[:path_len] ((>= path_len,) int32), written to
    perms ((m, width) int8) and maps ((m, S) int16) rows, and the symbols the path uses, to used
    ((S,) bool); returns how many pairs. codes: (N, width) int16; position_perms: (m, width) int8;
    symbol_class: (S,) int8. Plain 2-d indexing throughout: a row view
    per step cost an atomic reference count each, most of this function's time."""
    width = codes.shape[1]
    n_symbols = used.shape[0]
    used[:] = False
    for i in range(path_len):
        for j in range(width):
            used[codes[path[i], j]] = True
    inverse = np.empty(n_symbols, dtype=np.int16)
    count = 0
    for k in range(position_perms.shape[0]):
        for z in range(n_symbols):
            maps[count, z] = -1
            inverse[z] = -1
        ok = True
        for i in range(path_len):
            g = path[i]
            for j in range(width):
                x = codes[g, position_perms[k, j]]
                y = codes[g, j]
                if symbol_class[x] != symbol_class[y]:
                    ok = False
                    break
                if maps[count, x] == -1 and inverse[y] == -1:
                    maps[count, x] = y
                    inverse[y] = x
                elif maps[count, x] != y or inverse[y] != x:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            for j in range(width):
                perms[count, j] = position_perms[k, j]
            count += 1
    return count


@njit(cache=True, nogil=True)
def only_identity(count, used):
    """Whether a stabilizer of ``count`` position permutations fixes every code: the identity
    alone, with at most one symbol free to move."""
    if count != 1:
        return False
    free = 0
    for z in range(used.shape[0]):
        if not used[z]:
            free += 1
    return free <= 1


@njit(cache=True, nogil=True)
def _digit_is_smallest(codes, g, perms, maps, count, used, symbol_class, n_symbols, assigned,
                       taken):
    """Whether code g is the smallest of its orbit under the stabilizer (perms: (m, width) int8,
    maps: (m, S) int16, count, used: (S,) bool); assigned ((S,) int16) and taken ((S,) bool) are
    scratch, written."""
    width = codes.shape[1]
    for k in range(count):
        assigned[:] = -1
        taken[:] = False
        for j in range(width):
            x = codes[g, perms[k, j]]
            if used[x]:
                y = maps[k, x]
            elif assigned[x] != -1:
                y = assigned[x]
            else:
                y = -1
                for z in range(n_symbols):
                    if not used[z] and not taken[z] and symbol_class[z] == symbol_class[x]:
                        y = z
                        break
                assigned[x] = y
                taken[y] = True
            if y < codes[g, j]:
                return False
            if y > codes[g, j]:
                break
    return True


@njit(cache=True, nogil=True)
def _free_in_order(codes, guesses, used, symbol_class, n_symbols, mask):
    """mask[i] when no position permutation but the identity is left: the symbols used so far
    stay, and the free ones of each class are renamed in order of first appearance, so a code is
    the smallest of its orbit exactly when its free symbols first appear in increasing order
    within each class (the general test, with its renaming tables per code, cost a fifth of
    Bulls and Cows' least-total search)."""
    rank = np.zeros(n_symbols, dtype=np.int64)  # place of a free symbol among its class's
    seen = np.zeros(n_symbols, dtype=np.int64)  # per class: free symbols met so far
    for z in range(n_symbols):
        if not used[z]:
            c = symbol_class[z]
            rank[z] = seen[c]
            seen[c] += 1
    width = codes.shape[1]
    for i in range(guesses.shape[0]):
        g = guesses[i]
        seen[:] = 0
        for j in range(width):
            x = codes[g, j]
            if used[x]:
                continue
            c = symbol_class[x]
            if rank[x] > seen[c]:  # a smaller free symbol of its class has not appeared yet
                mask[i] = False
                break
            if rank[x] == seen[c]:
                seen[c] += 1


@njit(cache=True, nogil=True)
def digit_mask(orbits, guesses, perms, maps, count, used, mask):
    """Clear mask[i] where guesses[i] is not the smallest code of its orbit under the stabilizer
    (perms, maps, count, used) of ``digit_stabilizer``."""
    codes, symbol_class, n_symbols = orbits.codes, orbits.symbol_class, orbits.n_symbols
    if only_identity(count, used):
        return
    if count == 1:
        _free_in_order(codes, guesses, used, symbol_class, n_symbols, mask)
        return
    assigned = np.empty(n_symbols, dtype=np.int16)
    taken = np.empty(n_symbols, dtype=np.bool_)
    for i in range(guesses.shape[0]):
        if mask[i]:
            mask[i] = _digit_is_smallest(codes, guesses[i], perms, maps, count, used,
                                         symbol_class, n_symbols, assigned, taken)


@njit(cache=True, nogil=True)
def representative_mask(orbits, guesses, path, path_len):
    """(G,) bool: mask[i] is True when guesses[i] ((G,) int32) is the smallest code of its orbit
    under the symmetries fixing path[:path_len] ((>= path_len,) int32; ``orbits``: the Orbits
    bundle of the game)."""
    n = guesses.shape[0]
    mask = np.ones(n, dtype=np.bool_)
    if orbits.kind == KIND_DIGITS:
        m, width = orbits.position_perms.shape
        perms = np.empty((m, width), dtype=np.int8)
        maps = np.empty((m, orbits.n_symbols), dtype=np.int16)
        used = np.empty(orbits.n_symbols, dtype=np.bool_)
        count = digit_stabilizer(orbits.codes, path, path_len, orbits.position_perms,
                                 orbits.symbol_class, perms, maps, used)
        digit_mask(orbits, guesses, perms, maps, count, used, mask)
        return mask
    code_perms = orbits.code_perms
    m = code_perms.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    active = 0
    for k in range(m):
        ok = True
        for i in range(path_len):
            if code_perms[k, path[i]] != path[i]:
                ok = False
                break
        keep[k] = ok
        if ok:
            active += 1
    if active <= 1:
        return mask
    for i in range(n):
        g = guesses[i]
        for k in range(m):
            if keep[k] and code_perms[k, g] < g:
                mask[i] = False
                break
    return mask
