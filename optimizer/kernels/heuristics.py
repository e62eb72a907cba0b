"""Greedy guess choice: score every allowed guess by the partition it makes of the candidates.

A guess splits the remaining candidates into parts, one per feedback (the winning feedback is a
part of size 1 when the guess is a candidate). Each rule turns the part sizes into one integer
score, lower is better, so that ties are exact and the choice is repeatable:

- ``MINIMAX`` (Knuth 1977): the size of the largest part.
- ``EXPECTED_SIZE`` (seed 003): sum of size^2, i.e. n times the expected number of candidates
  left after the guess.
- ``ENTROPY``: sum of size * ln(size), scaled and rounded per size to an integer, i.e. the
  information the feedback gives, negated and shifted (equal part sizes give equal scores
  whatever the order of the parts).
- ``MOST_PARTS`` (Kooi 2005): minus the number of parts.

Ties are broken by one documented rule: prefer a guess that is a candidate (it may win now),
then the lowest code index, which is the lexicographically lowest code. A guess that is not a
candidate and leaves every candidate in one part teaches nothing and is never chosen.

Plain arrays in and out, no Python objects, so that the kernels compile once and cache.
"""

import numpy as np
from numba import njit

from .partition import bucket, count_parts, tells_nothing

MINIMAX = 0
EXPECTED_SIZE = 1
ENTROPY = 2
MOST_PARTS = 3

RULES = {"minimax": MINIMAX, "expected-size": EXPECTED_SIZE, "entropy": ENTROPY,
         "most-parts": MOST_PARTS}

# size * ln(size) in units of 2**-30: exact integer sums, fine enough to separate partitions.
ENTROPY_SCALE = float(1 << 30)


@njit(cache=True, nogil=True)
def size_weights(n, rule):
    """(n + 1,) int64: weight[size] for the rules that add a value per part (expected size,
    entropy)."""
    weight = np.zeros(n + 1, dtype=np.int64)
    for size in range(1, n + 1):
        if rule == EXPECTED_SIZE:
            weight[size] = size * size
        elif rule == ENTROPY:
            weight[size] = np.int64(np.round(size * np.log(size) * ENTROPY_SCALE))
    return weight


@njit(cache=True, nogil=True)
def _scores(FT, candidates, guesses, rule, n_answers):
    """(score, largest part), (G,) int64 each, of every guess ((G,) int32) on candidates ((n,)
    int32; FT: (N, N) uint8 transposed answer matrix, n_answers ids), counted one candidate's
    row of the transposed matrix at a time (partition.count_parts: reading each guess's row at
    scattered candidates misses the cache on almost every look-up)."""
    n = candidates.shape[0]
    G = guesses.shape[0]
    counts = np.empty((G, n_answers), dtype=np.int32)
    count_parts(FT, guesses, candidates, counts)  # zeroes the counters first
    weight = size_weights(n, rule)
    score = np.empty(G, dtype=np.int64)
    largest = np.empty(G, dtype=np.int64)
    for i in range(G):
        parts = 0
        most = 0
        total = 0
        for f in range(n_answers):
            c = np.int64(counts[i, f])
            if c > 0:
                parts += 1
                total += weight[c]
                if c > most:
                    most = c
        largest[i] = most
        if rule == MINIMAX:
            score[i] = most
        elif rule == MOST_PARTS:
            score[i] = -parts
        else:
            score[i] = total
    return score, largest


@njit(cache=True, nogil=True)
def best_score_possible(n, rule):
    """The score of a guess that is a candidate and tells every candidate apart."""
    if rule == MINIMAX:
        return 1
    if rule == MOST_PARTS:
        return -n
    if rule == ENTROPY:
        return 0  # 1 * ln 1 per part
    return n  # EXPECTED_SIZE: 1^2 per part


@njit(cache=True, nogil=True)
def _is_candidate(n_codes, candidates):
    """(n_codes,) bool: membership of candidates ((n,) int32)."""
    member = np.zeros(n_codes, dtype=np.bool_)
    for c in candidates:
        member[c] = True
    return member


@njit(cache=True, nogil=True)
def choose_guess(FT, candidates, guesses, rule, n_answers):
    """The guess the rule picks: lowest score, then a candidate, then the lowest code index.

    ``candidates`` and ``guesses`` are sorted code indices, every candidate among the guesses;
    ``FT`` is the transposed matrix of dense answer ids (Game.answer_matrices). No guess scores
    better than a candidate telling every candidate apart, so the candidates are scored first
    and the lowest such one, when there is one, is the answer at once; guesses that are the
    candidates alone (consistent play) are not scored again.
    """
    n = candidates.shape[0]
    if n <= 2:
        return candidates[0]  # a candidate is always best here, and the lowest wins ties
    perfect = best_score_possible(n, rule)
    score, largest = _scores(FT, candidates, candidates, rule, n_answers)
    for i in range(n):
        if score[i] == perfect:
            return candidates[i]
    is_candidate = _is_candidate(FT.shape[1], candidates)
    if guesses.shape[0] > n:  # every candidate is a guess: more guesses are other codes
        score, largest = _scores(FT, candidates, guesses, rule, n_answers)
    best = -1
    for i in range(guesses.shape[0]):
        if tells_nothing(largest[i], n):
            continue  # no progress
        if best < 0 or score[i] < score[best] or (
            score[i] == score[best] and is_candidate[guesses[i]]
            and not is_candidate[guesses[best]]
        ):
            best = i
    return guesses[best]


@njit(cache=True, nogil=True)
def best_guesses(FT, candidates, guesses, rule, width, n_answers):
    """The ``width`` guesses the rule scores best (same order as choose_guess: score, then a
    candidate, then the lowest code), useless guesses left out: what a rollout tries."""
    n = candidates.shape[0]
    is_candidate = _is_candidate(FT.shape[1], candidates)
    score, largest = _scores(FT, candidates, guesses, rule, n_answers)
    keys = np.empty(guesses.shape[0], dtype=np.float64)
    kept = np.empty(guesses.shape[0], dtype=guesses.dtype)
    k = 0
    for i in range(guesses.shape[0]):
        if tells_nothing(largest[i], n):
            continue
        keys[k] = float(score[i]) * 2.0 + (0.0 if is_candidate[guesses[i]] else 1.0)
        kept[k] = guesses[i]
        k += 1
    order = np.argsort(keys[:k], kind="mergesort")
    return kept[:k][order[:width]]


@njit(cache=True, nogil=True)
def greedy_total(matrix, FT, candidates, every, consistent, rule, win, nf):
    """(total, height) of the rule's greedy tree on ``candidates`` ((n,) int32; matrix and FT:
    (N, N) uint8 answers and their transpose; every: (N,) int32 every code; win, nf: the winning
    answer id and how many ids) (guesses summed over them, and
    the most any of them takes), without building it: what a rollout needs of each subtree it
    tries."""
    n = candidates.shape[0]
    buf = candidates.copy()
    tmp = np.empty(n, dtype=candidates.dtype)
    starts = np.empty(n + 1, dtype=np.int64)  # a stack of segments of buf: start, size, depth
    sizes = np.empty(n + 1, dtype=np.int64)
    depths = np.empty(n + 1, dtype=np.int64)
    starts[0], sizes[0], depths[0] = 0, n, 1
    top = 1
    total = 0
    height = 0
    count = np.zeros(nf, dtype=np.int64)
    at = np.zeros(nf, dtype=np.int64)
    while top > 0:
        top -= 1
        s, m, d = starts[top], sizes[top], depths[top]
        if m == 1:
            total += d
            height = max(height, d)
            continue
        seg = buf[s:s + m]
        g = choose_guess(FT, seg, seg if consistent else every, rule, nf)
        bucket(matrix, g, seg, nf, tmp, at, count)
        seg[:] = tmp[:m]
        for f in range(nf):
            if count[f] > 0:
                if f == win:
                    total += d
                    height = max(height, d)
                else:
                    starts[top], sizes[top], depths[top] = s + at[f], count[f], d + 1
                    top += 1
    return total, height
