"""Feedback matrices F[guess, secret] for whole games, computed once per game."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def digit_feedback_matrix(codes, n_symbols, base):
    """(N, N) uint8 F[guess, secret] of codes ((N, width) ints < n_symbols): bulls * base + cows,
    cows counted with multiplicity (Mastermind rule, also right for distinct symbols)."""
    n, width = codes.shape
    counts = np.zeros((n, n_symbols), dtype=np.uint8)
    for i in range(n):
        for j in range(width):
            counts[i, codes[i, j]] += 1
    out = np.empty((n, n), dtype=np.uint8)
    for g in prange(n):
        for s in range(n):
            bulls = 0
            for j in range(width):
                if codes[g, j] == codes[s, j]:
                    bulls += 1
            common = 0
            for j in range(width):
                x = codes[g, j]
                # count each distinct symbol of the guess once: at its first position
                first = True
                for k in range(j):
                    if codes[g, k] == x:
                        first = False
                        break
                if first:
                    a = counts[g, x]
                    b = counts[s, x]
                    common += a if a < b else b
            out[g, s] = bulls * base + (common - bulls)
    return out


@njit(cache=True, parallel=True)
def battleship_feedback_matrix(codes, distance, base):
    """(N, N) uint8 F[guess, secret] of codes ((N, width) squares; distance: (squares, squares)
    ints): exact * base^2 + one_away * base + two_away, each guessed square counted by its
    closest ship."""
    n, width = codes.shape
    out = np.empty((n, n), dtype=np.uint8)
    for g in prange(n):
        for s in range(n):
            c0 = 0
            c1 = 0
            c2 = 0
            for j in range(width):
                q = codes[g, j]
                d = 127
                for k in range(width):
                    e = distance[q, codes[s, k]]
                    if e < d:
                        d = e
                if d == 0:
                    c0 += 1
                elif d == 1:
                    c1 += 1
                elif d == 2:
                    c2 += 1
            out[g, s] = (c0 * base + c1) * base + c2
    return out
