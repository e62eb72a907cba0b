"""Benchmark of the exact searches: per problem, set-up (feedback matrix), search time (wall,
both cores), nodes visited; and numba compile time measured apart, in a fresh empty cache.

    python scripts/bench.py            # the standard problems
    python scripts/bench.py --long     # also Bulls and Cows minimal total (long)
    python scripts/bench.py --workers 1
    python scripts/bench.py --battleship 12   # a slice of Battleship's open height proof
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

PROBLEMS = [
    # (label, game, objective, guesses, expected value)
    ("Mastermind 4x6 height (prove 5)", "mastermind:4x6", "height", "any", 5),
    ("Mastermind 4x6 hard-mode height", "mastermind:4x6", "height", "consistent", 6),
    ("Mastermind 4x6 total", "mastermind:4x6", "total", "any", 5625),
    ("Mastermind 4x6 total@5", "mastermind:4x6", "total@5", "any", 5626),
    ("Bulls and Cows height (prove 7)", "bulls-cows:4x10", "height", "any", 7),
    ("Bulls and Cows hard-mode height", "bulls-cows:4x10", "height", "consistent", 7),
    ("moo 10,11,12 height", "moo:10,11,12", "height", "any", None),
]
LONG = [("Bulls and Cows total", "bulls-cows:4x10", "total", "any", 26274)]


def compile_seconds() -> float:
    """Time to compile every kernel once, in a child process with an empty numba cache."""
    code = (
        "import time; t = time.perf_counter();"
        "from optimizer.games import parse_game; from optimizer.search.exact import Solver;"
        "from optimizer.search.driver import Driver;"
        "g = parse_game('mastermind:2x3'); s = Solver(g, 'any', table_bits=10);"
        "Driver(s, workers=0, progress=False); print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run(game_spec: str, objective: str, guesses: str, workers: int | None) -> dict:
    from optimizer.games import parse_game
    from optimizer.search.build import height_incumbent, incumbent_tree
    from optimizer.search.driver import Driver
    from optimizer.search.exact import Objective, Solver

    start = time.perf_counter()
    game = parse_game(game_spec)
    solver = Solver(game, guesses)
    driver = Driver(solver, workers=workers, progress=False)
    obj = Objective.parse(objective)
    depth = obj.depth or game.n_codes
    # As `moo build`: a greedy tree is the first bound (its time counts as set-up).
    if obj.first == "height":
        incumbent = height_incumbent(game, guesses)
    else:
        incumbent = incumbent_tree(game, guesses, depth)
    setup = time.perf_counter() - start
    try:
        if obj.first == "height":
            out = driver.min_height(incumbent)
        else:
            out = driver.min_total(depth, *incumbent)
    finally:
        driver.close()
    return {"value": out.value, "optimal": out.optimal, "setup": setup,
            "search": out.seconds, "nodes": out.nodes}


def battleship_slice(count: int) -> None:
    """Refute Battleship's first ``count`` root classes at height 5 (a slice of the proof that
    its optimum is 6) three ways, each with fresh tables: one process; 2 workers sharing each
    class's largest part by second guess; 2 workers taking a class each."""
    from tqdm import tqdm

    from optimizer.games import parse_game
    from optimizer.search.driver import Driver, height_order
    from optimizer.search.exact import Solver

    game = parse_game("battleship")
    ways = [("one process", 0, None), ("2 workers, split by second guess", 2, 10**9),
            ("2 workers, a class per worker", 2, 1)]
    first = None
    for label, workers, screen_from in ways:
        driver = Driver(Solver(game, "any"), workers=workers, progress=False)
        if screen_from is not None:
            driver.screen_from = screen_from
        classes = height_order(driver.root_classes())
        classes = classes[:count]
        start = time.perf_counter()
        try:
            root, nodes = driver._height_at(classes, 5, tqdm(disable=True))
        finally:
            driver.close()
        seconds = time.perf_counter() - start
        first = first or seconds
        verdict = "all refuted" if root is None else "NOT refuted"
        print(f"battleship, {len(classes)} classes at height 5, {label:33} {seconds:7.1f} s "
              f"({seconds / len(classes):.2f} s/class, x{first / seconds:.2f}) {nodes:>9} nodes "
              f"{verdict}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="include Bulls and Cows total")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--battleship", type=int, metavar="N", default=0,
                        help="also time the refutation of N Battleship root classes")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}")
    print(f"numba compile of all search kernels (empty cache): {compile_seconds():.1f} s")
    print(f"{'problem':36} {'value':>7} {'set-up s':>9} {'search s':>9} {'nodes':>10}")
    failures = 0
    for label, game, objective, guesses, expected in PROBLEMS + (LONG if args.long else []):
        r = run(game, objective, guesses, args.workers)
        flag = "" if expected is None or r["value"] == expected else f"  (expected {expected})"
        failures += bool(flag)
        print(f"{label:36} {r['value']:>7} {r['setup']:>9.2f} {r['search']:>9.2f} "
              f"{r['nodes']:>10}{flag}", flush=True)
    if args.battleship:
        battleship_slice(args.battleship)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
