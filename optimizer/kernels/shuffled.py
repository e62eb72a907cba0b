"""Seed 002's solver played many times: shuffle every code, guess the first, then each next code
of the shuffle that agrees with all feedback so far. Codes passed over stay inconsistent
(feedback only accumulates), so one pass over the shuffle is a whole play."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def play_many(F, secret, win, runs, seed):
    """(runs,) int64: the number of guesses of each of ``runs`` plays against ``secret`` (F: (N, N)
    uint8 feedback matrix; seed: numpy's seed, so that plays repeat)."""
    np.random.seed(seed)
    n = F.shape[0]
    steps = np.empty(runs, dtype=np.int64)
    history_guess = np.empty(n, dtype=np.int64)
    history_feedback = np.empty(n, dtype=np.int64)
    for r in range(runs):
        order = np.random.permutation(n)
        made = 0
        for i in range(n):
            code = order[i]
            consistent = True
            for h in range(made):
                if F[history_guess[h], code] != history_feedback[h]:
                    consistent = False
                    break
            if not consistent:
                continue
            fb = F[code, secret]
            history_guess[made] = code
            history_feedback[made] = fb
            made += 1
            if fb == win:
                break
        steps[r] = made
    return steps
