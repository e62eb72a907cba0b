"""Benchmark of the exact searches: per problem, set-up (feedback matrix, greedy tree, workers),
search time (wall), nodes visited; numba compile time measured apart, in a fresh empty cache.

    python scripts/bench.py                  # the standard problems
    python scripts/bench.py --long           # also Bulls and Cows minimal total (long)
    python scripts/bench.py --workers 1      # in this process (default: as moo chooses)
    python scripts/bench.py --battleship 3   # refute 3 Battleship root classes at height 5
    python scripts/bench.py --against REV    # this tree and revision REV side by side (A B A B):
                                             # `moo build bulls-cows --objective total` and the
                                             # Battleship classes, wall time and ratio
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBLEMS = [
    # (label, game, objective, guesses, expected value)
    ("Mastermind 4x6 height (prove 5)", "mastermind:4x6", "height", "any", 5),
    ("Mastermind 4x6 hard-mode height", "mastermind:4x6", "height", "consistent", 6),
    ("Mastermind 4x6 total", "mastermind:4x6", "total", "any", 5625),
    ("Mastermind 4x6 total@5", "mastermind:4x6", "total@5", "any", 5626),
    ("Bulls and Cows height (prove 7)", "bulls-cows:4x10", "height", "any", 7),
    ("Bulls and Cows hard-mode height", "bulls-cows:4x10", "height", "consistent", 7),
    ("moo 10,11,12 height", "moo:10,11,12", "height", "any", 7),
    ("moo 10,11,12 total", "moo:10,11,12", "total", "any", 5283),
]
LONG = [("Bulls and Cows total", "bulls-cows:4x10", "total", "any", 26274)]


def compile_seconds() -> list[tuple[str, float]]:
    """Seconds to import the package and build a solver, then to compile each search's kernels
    (solver.KERNELS, in that order), in a child process with an empty numba cache: a new
    machine's first run, which compiles only what its command needs (`make run`: the height)."""
    code = (
        "import time; t = time.perf_counter();"
        "from optimizer.games import parse_game;"
        "from optimizer.search.solver import KERNELS, Solver;"
        "s = Solver(parse_game('mastermind:2x3'), 'any', table_bits=10);"
        "print('import and solver', time.perf_counter() - t)\n"
        "for k in KERNELS:\n"
        "    t = time.perf_counter(); s.warm_up((k,)); print(k, time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, cwd=ROOT)
    return [(line.rsplit(" ", 1)[0], float(line.rsplit(" ", 1)[1]))
            for line in out.stdout.strip().splitlines()]


def run(game_spec: str, objective: str, guesses: str, workers: int | None) -> dict:
    """One problem as `moo build` runs it: the greedy tree (where the search uses one, see
    Search.total_start) and the workers are set-up."""
    from optimizer.games import parse_game
    from optimizer.search.objectives import Objective, Search, height_incumbent

    start = time.perf_counter()
    game = parse_game(game_spec)
    obj = Objective.parse(objective)
    depth = obj.depth or game.n_codes
    with Search(game, guesses, workers=workers, progress=False) as search:
        if obj.first == "height":
            incumbent = height_incumbent(game, guesses)
        else:
            incumbent = search.total_start(depth)
        search.ready()
        setup = time.perf_counter() - start
        if obj.first == "height":
            out = search.min_height(incumbent)
        else:
            out = search.min_total(depth, *incumbent)
        where = search.engine.where
    return {"value": out.value, "optimal": out.optimal, "setup": setup, "search": out.seconds,
            "nodes": out.nodes, "where": where}


# --- side by side with another revision ------------------------------------------------------
# Refute the first N Battleship root classes at height 5 with 2 workers, each class's largest
# part split by second guess; one script per API (before and after the engine was reshaped).
CLASSES_NOW = """
import sys, time
from tqdm import tqdm
from optimizer.games import parse_game
from optimizer.search.height import HeightSearch, height_order
from optimizer.search.objectives import Search
from optimizer.search.root import Outcome
game = parse_game("battleship")
with Search(game, "any", workers=2, progress=False) as search:
    search.ready()
    driver = HeightSearch(search.solver, search.engine, progress=False)
    driver.screen_from = 10**9
    classes = height_order(driver.root_classes())[:int(sys.argv[1])]
    start = time.perf_counter()
    root = driver._height_at(classes, 5, tqdm(disable=True), Outcome(0, None, False, 0))
    print(time.perf_counter() - start, root is None)
"""
CLASSES_POOL = """
import sys, time
from tqdm import tqdm
from optimizer.games import parse_game
from optimizer.search.driver import Driver, height_order
from optimizer.search.exact import Solver
driver = Driver(Solver(parse_game("battleship"), "any"), workers=2, progress=False)
driver.screen_from = 10**9
classes = height_order(driver.root_classes())[:int(sys.argv[1])]
start = time.perf_counter()
root, _ = driver._height_at(classes, 5, tqdm(disable=True))
driver.close()
print(time.perf_counter() - start, root is None)
"""


def checkout(rev: str) -> Path:
    """A clean copy of revision ``rev`` (kept in the temporary folder between runs)."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"moo-bench-{sha}"
    if not (folder / "optimizer").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def timed(command: list[str], tree: Path) -> tuple[float, str]:
    """(wall seconds, last line printed) of a command run from ``tree`` with its package."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    out = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode not in (0,):
        raise RuntimeError(f"{' '.join(command)} in {tree}: {out.stderr[-1500:]}")
    lines = out.stdout.strip().splitlines()
    return seconds, lines[-1] if lines else ""


def side_by_side(rev: str, classes: int, rounds: int, long: bool, this: str | None) -> None:
    """This tree (A; or a copy of revision ``this``, which edits made meanwhile cannot reach)
    against revision ``rev`` (B), in turn, after one warm-up each (numba compiles each tree's
    kernels once)."""
    other = checkout(rev)
    mine = checkout(this) if this else ROOT
    python = sys.executable
    cases = [(f"battleship: refute {classes} classes at height 5, 2 workers",
              [python, "-c", _classes_script(mine), str(classes)],
              [python, "-c", _classes_script(other), str(classes)], True)]
    if long:
        build = [python, "-m", "optimizer", "build", "bulls-cows", "--objective", "total",
                 "-o", os.devnull]
        cases.append(("moo build bulls-cows --objective total (whole command)", build, build,
                      False))
    for label, ours, theirs, inner in cases:
        timed(ours, mine)
        timed(theirs, other)  # warm-up: compile or load each tree's kernels
        a, b = [], []
        for _ in range(rounds):
            for side, command, tree in ((a, ours, mine), (b, theirs, other)):
                seconds, line = timed(command, tree)
                side.append(float(line.split()[0]) if inner else seconds)
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{label}: {args_this(mine)} {ma:.1f} s (runs {', '.join(f'{x:.1f}' for x in a)}), "
              f"{rev} {mb:.1f} s (runs {', '.join(f'{x:.1f}' for x in b)}), "
              f"ratio {ma / mb:.3f}", flush=True)


def _classes_script(tree: Path) -> str:
    """The Battleship script for the API of the revision in ``tree``."""
    return CLASSES_POOL if (tree / "optimizer" / "search" / "driver.py").exists() else CLASSES_NOW


def args_this(tree: Path) -> str:
    return "this tree" if tree == ROOT else tree.name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="include Bulls and Cows total")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--battleship", type=int, metavar="N", default=0,
                        help="with --against: how many Battleship classes (default 3)")
    parser.add_argument("--against", metavar="REV", help="compare with this git revision")
    parser.add_argument("--rounds", type=int, default=2, help="runs per side with --against")
    parser.add_argument("--this", metavar="REV", help="with --against: time a copy of this "
                        "revision, not the working tree")
    parser.add_argument("--skip-table", action="store_true", help="only the side by side")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f}")
    failures = 0
    if not args.skip_table:
        parts = compile_seconds()
        print("numba compile, empty cache: " + ", ".join(f"{k} {v:.1f} s" for k, v in parts)
              + f"; all {sum(v for _, v in parts):.1f} s")
        print(f"{'problem':36} {'value':>7} {'set-up s':>9} {'search s':>9} {'nodes':>10}  where")
        for label, game, objective, guesses, expected in PROBLEMS + (LONG if args.long else []):
            r = run(game, objective, guesses, args.workers)
            flag = "" if expected is None or r["value"] == expected else f"  (expected {expected})"
            failures += bool(flag)
            print(f"{label:36} {r['value']:>7} {r['setup']:>9.2f} {r['search']:>9.2f} "
                  f"{r['nodes']:>10}  {r['where']}{flag}", flush=True)
    if args.against:
        side_by_side(args.against, args.battleship or 3, args.rounds, args.long, args.this)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
