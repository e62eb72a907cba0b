"""Benchmark the feedback-matrix kernels: bullets-maggots (10000 x 10000) and battleship 4x8x3.

With ``@njit(cache=True)`` the first call in a process either compiles (empty cache) or loads
the compiled code from the cache, so the figures come from fresh processes, one per situation:

  import     ``import numba`` plus the kernel module
  compile    first call with an EMPTY cache (NUMBA_CACHE_DIR = a new temporary folder), on a
             2-code input so that the run itself takes no time: numba's compile time
  load       the same first call with the project's cache filled: what ``moo build`` pays
  first run  the first full-size call after that (starts numba's thread pool)
  warm run   best of --repeats further full-size calls: the kernel's run time

Usage: python scripts/bench_feedback.py [--repeats 3] [--threads N] [GAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("bullets-maggots", "battleship:4x8x3")


def kernel_call(game, rows: int | None = None):
    """The kernel and its arguments for the first ``rows`` codes (all codes when None)."""
    from optimizer.kernels import feedback

    codes = game.codes if rows is None else game.codes[:rows]
    if hasattr(game, "distance"):
        return feedback.battleship_feedback_matrix, (codes, game.distance, game.base)
    return feedback.digit_feedback_matrix, (codes, game.n_symbols, game.base)


def worker(spec: str, repeats: int) -> dict:
    """Runs in a fresh process; returns seconds for each stage."""
    from optimizer.games import parse_game

    start = time.perf_counter()
    game = parse_game(spec)
    times = {"game": time.perf_counter() - start, "codes": game.n_codes, "spec": game.spec}
    start = time.perf_counter()
    import numba

    kernel, small = kernel_call(game, rows=2)
    times["import"] = time.perf_counter() - start
    start = time.perf_counter()
    kernel(*small)
    times["first_call"] = time.perf_counter() - start
    _, full = kernel_call(game)
    start = time.perf_counter()
    matrix = kernel(*full)
    times["first_run"] = time.perf_counter() - start
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        kernel(*full)
        warm.append(time.perf_counter() - start)
    times["warm_run"] = min(warm) if warm else None
    times["signatures"] = len(kernel.signatures)  # 1: the full call reused the compiled code
    times["threads"] = numba.get_num_threads()
    times["numba"] = numba.__version__
    times["checked"] = _spot_check(game, matrix)
    return times


def _spot_check(game, matrix) -> bool:
    """The matrix agrees with the plain-Python rule on a few pairs."""
    n = game.n_codes
    pairs = [(i * 7919 % n, i * 104729 % n) for i in range(200)]
    return all(int(matrix[g, s]) == game.feedback(g, s) for g, s in pairs)


def measure(spec: str, repeats: int, cache_dir: str | None, threads: int | None) -> dict:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = str(threads)
    out = subprocess.run(
        [sys.executable, __file__, "--worker", spec, "--repeats", str(repeats)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"benchmark of {spec} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def report(spec: str, repeats: int, threads: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as empty:
        cold = measure(spec, repeats=0, cache_dir=empty, threads=threads)
    measure(spec, repeats=0, cache_dir=None, threads=threads)  # fill the project's cache
    warm = measure(spec, repeats, cache_dir=None, threads=threads)
    mb = warm["codes"] ** 2 / 1e6
    print(
        f"{warm['spec']:<18} {warm['codes']:>6} {mb:>7.1f} MB  {warm['import']:>6.2f} s"
        f"  {cold['first_call']:>7.2f} s  {warm['first_call']:>6.2f} s"
        f"  {warm['first_run']:>7.2f} s  {warm['warm_run']:>7.2f} s"
        + ("" if warm["checked"] and warm["signatures"] == 1 else "  (CHECK FAILED)")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--repeats", type=int, default=3, help="warm runs; the best is shown")
    parser.add_argument("--threads", type=int, default=None, help="NUMBA_NUM_THREADS")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeats)))
        return 0
    info = measure("bulls-cows:2x3", 0, None, args.threads)
    print(f"feedback matrix build, numba {info['numba']}, {info['threads']} thread(s), "
          f"Python {sys.version.split()[0]}")
    print(f"{'game':<18} {'codes':>6} {'matrix':>10}  {'import':>8}  {'compile':>9}  "
          f"{'load':>8}  {'1st run':>9}  {'warm run':>9}")
    for spec in args.games:
        report(spec, args.repeats, args.threads)
    print("import:  import numba and the kernel module")
    print("compile: first call, EMPTY numba cache (fresh NUMBA_CACHE_DIR), 2 codes: compile time")
    print("load:    first call, project cache filled, 2-code input: what a new process pays")
    print(f"1st run, warm run: full-size builds after that; warm = best of {args.repeats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
