"""Seed 002's experiment: the shuffled first-consistent solver of Bullets and Maggots, 1000 plays
on each code pattern (0000, 0001, 0011, 0012, 0123), printed as the seed prints it and then
beside the seed's own figures.

Each play shuffles all 10000 codes afresh, guesses the first code in that order, and from then
on the next code in that order that agrees with every feedback so far (codes passed over stay
inconsistent, because feedback only accumulates, so one pass over the shuffle is a whole play).

    .venv/bin/python scripts/bm_experiment.py [--runs 1000] [--seed 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from optimizer.games import parse_game

PATTERNS = ("0000", "0001", "0011", "0012", "0123")

# The seed's `run_all()` output: mean, median, standard deviation, range.
SEED_FIGURES = {
    "0000": (5.61, 6.0, 1.0454630519501842, (2, 10)),
    "0001": (6.092, 6.0, 1.0586107200745023, (2, 10)),
    "0011": (6.127, 6.0, 1.1081963269651725, (3, 10)),
    "0012": (6.224, 6.0, 1.1971872273196271, (2, 10)),
    "0123": (6.087, 6.0, 1.19702291701699, (2, 10)),
}


@njit(cache=True)
def _feedback(codes, counts, guess, secret):
    """bullets * 8 + maggots: equal positions, then common digits with multiplicity."""
    bullets = 0
    for j in range(codes.shape[1]):
        if codes[guess, j] == codes[secret, j]:
            bullets += 1
    common = 0
    for x in range(counts.shape[1]):
        a = counts[guess, x]
        b = counts[secret, x]
        common += a if a < b else b
    return bullets * 8 + common - bullets


@njit(cache=True)
def play_many(codes, counts, secret, runs, seed):
    """Number of guesses of each of ``runs`` plays against ``secret``."""
    np.random.seed(seed)
    n = codes.shape[0]
    steps = np.empty(runs, dtype=np.int64)
    history_guess = np.empty(64, dtype=np.int64)
    history_feedback = np.empty(64, dtype=np.int64)
    win = codes.shape[1] * 8
    for r in range(runs):
        order = np.random.permutation(n)
        made = 0
        for i in range(n):
            code = order[i]
            consistent = True
            for h in range(made):
                if _feedback(codes, counts, history_guess[h], code) != history_feedback[h]:
                    consistent = False
                    break
            if not consistent:
                continue
            fb = _feedback(codes, counts, code, secret)
            history_guess[made] = code
            history_feedback[made] = fb
            made += 1
            if fb == win:
                break
        steps[r] = made
    return steps


def symbol_counts(codes: np.ndarray, symbols: int) -> np.ndarray:
    counts = np.zeros((codes.shape[0], symbols), dtype=np.int8)
    for j in range(codes.shape[1]):
        np.add.at(counts, (np.arange(codes.shape[0]), codes[:, j]), 1)
    return counts


def describe(pattern: str, steps: np.ndarray) -> str:
    """The seed's four lines (sample standard deviation, as Julia's ``std``)."""
    return (
        f"Solving for code {pattern} for {len(steps)} iterations\n"
        f"Average steps to solve:   {steps.mean():.4g}\n"
        f"Median steps to solve:    {float(np.median(steps))}\n"
        f"Standard deviation:       {steps.std(ddof=1)}\n"
        f"Range in number of steps: {steps.min()}-{steps.max()}\n"
    )


def side_by_side(results: dict[str, np.ndarray]) -> str:
    lines = [
        "| code | ours: mean | median | std | range | seed 002: mean | median | std | range |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pattern, steps in results.items():
        mean, median, std, (low, high) = SEED_FIGURES[pattern]
        lines.append(
            f"| {pattern} | {steps.mean():.3f} | {float(np.median(steps))} | "
            f"{steps.std(ddof=1):.3f} | {steps.min()}-{steps.max()} | {mean:.3f} | {median} | "
            f"{std:.3f} | {low}-{high} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="plays per code (default 1000)")
    parser.add_argument("--seed", type=int, default=2, help="random seed (default 2)")
    args = parser.parse_args(argv)
    game = parse_game("bullets-maggots")
    codes = game.codes.astype(np.int64)
    counts = symbol_counts(game.codes, game.n_symbols).astype(np.int64)
    start = time.perf_counter()
    results = {}
    for k, pattern in enumerate(PATTERNS):
        secret = game.parse_code(pattern)
        results[pattern] = play_many(codes, counts, secret, args.runs, args.seed + k)
        print(describe(pattern, results[pattern]))
    print(side_by_side(results))
    all_steps = np.concatenate(list(results.values()))
    print(f"\n{len(all_steps)} plays, mean {all_steps.mean():.3f}, "
          f"{time.perf_counter() - start:.1f} s (numba compile or cache load included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
