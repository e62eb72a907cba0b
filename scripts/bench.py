"""Benchmark of the exact searches: per problem, set-up (feedback matrix, greedy tree, workers),
search time (wall), nodes visited; numba compile time measured apart, in a fresh empty cache.

    python scripts/bench.py                  # the standard problems
    python scripts/bench.py --long           # also Bulls and Cows minimal total (long)
    python scripts/bench.py --workers 1      # in this process (default: as moo chooses)
    python scripts/bench.py --battleship 3   # refute 3 Battleship root classes at height 5
    python scripts/bench.py --against REV    # this tree and revision REV side by side (A B A B):
                                             # `moo build bulls-cows --objective total` and the
                                             # Battleship classes, wall time and ratio
    python scripts/bench.py --ladder         # least total of growing games, whole commands
    python scripts/bench.py --ladder all --other /tmp/cpp-solver/build/mmstrat \
        --plot docs/scaling.png
    python scripts/bench.py --only bulls-cows:4x9 --other BINARY --rounds 3
                                             # one size (any Mastermind or Bulls and Cows spec)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import resource
import signal
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
        "from optimizer.search.solver import KERNELS, NodeSolver;"
        "s = NodeSolver(parse_game('mastermind:2x3'), 'any', table_bits=10);"
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
    from optimizer.search.request import Request

    start = time.perf_counter()
    game = parse_game(game_spec)
    obj = Objective.parse(objective)
    depth = obj.depth or game.n_codes
    with Search(Request(game, objective, guesses=guesses, workers=workers)) as search:
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
# part split by second guess; one script per API (the pool era, the engine's, the request's).
CLASSES_NOW = """
import sys, time
from optimizer.games import parse_game
from optimizer.search.height import height_order
from optimizer.search.objectives import Search
from optimizer.search.request import Request
with Search(Request(parse_game("battleship"), workers=2)) as search:
    search.ready()
    driver = search.height_search()
    driver.screen_from = 10**9
    classes = height_order(driver.root_classes())[:int(sys.argv[1])]
    start = time.perf_counter()
    root, _, _ = driver._height_at(classes, 5)
    print(time.perf_counter() - start, root is None)
"""
# The same for revisions of the engine era, before the request (their own API: not renamed).
CLASSES_ENGINE = """
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
# The same for revisions of the pool era (their own API and names: not to be renamed).
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
        # a scratch file: moo refuses to write over /dev/null (outputs are regular files)
        scratch = os.path.join(tempfile.gettempdir(), f"moo-bench-{os.getpid()}.json")
        build = [python, "-m", "optimizer", "build", "bulls-cows", "--objective", "total",
                 "-o", scratch]
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
    search = tree / "optimizer" / "search"
    if (search / "driver.py").exists():
        return CLASSES_POOL
    return CLASSES_NOW if (search / "request.py").exists() else CLASSES_ENGINE


def args_this(tree: Path) -> str:
    return "this tree" if tree == ROOT else tree.name


# --- the ladder: least total of growing games, whole commands, beside another solver -----------
# (game, in the default ladder): the sizes the issue of the scaling benchmark names; the largest
# (minutes each here, hours for the other solver on Mastermind 4x8 and up) only with `--ladder all`
# or `--only`.
LADDER = [
    ("mastermind:4x5", True),
    ("mastermind:4x6", True),
    ("mastermind:4x7", True),
    ("mastermind:4x8", False),
    ("mastermind:4x9", False),
    ("bulls-cows:4x7", True),
    ("bulls-cows:4x8", True),
    ("bulls-cows:4x9", True),
    ("bulls-cows:4x10", False),
    ("bulls-cows:5x8", False),
]
# How the other solver is called for each kind of game, made for `mmstrat`, the 2012 C++
# optimal-strategy solver (github.com/fancidev/mastermind, its "Import code from 2012" commit,
# built with g++ -O3 -DNDEBUG): rules "p<pegs>c<colours>" then r (repeats) or n (distinct), its
# least-total strategy, and a one-line summary "total:height:...". {pegs} and {symbols} are the
# game's.
OTHER_ARGS = {
    "mastermind": ["-r", "p{pegs}c{symbols}r", "-s", "optimal", "-S", "-q"],
    "bulls-cows": ["-r", "p{pegs}c{symbols}n", "-s", "optimal", "-S", "-q"],
}
CAP = 600.0  # seconds a run may take by default, either program


def ladder_games(which: str | None, only: str | None) -> list[str]:
    """The games of a ladder run: ``only`` (comma-separated specs), else the default ladder or,
    for ``which`` "all", every size."""
    if only:
        games = [g.strip() for g in only.split(",") if g.strip()]
        for game in games:
            ladder_size(game)  # a spec the ladder cannot run fails here, before any run
        return games
    return [game for game, default in LADDER if which == "all" or default]


def ladder_size(game: str) -> tuple[str, int, int]:
    """(kind, pegs, symbols) of a ladder game ("mastermind:PxC" or "bulls-cows:PxS");
    ValueError for anything else."""
    found = re.fullmatch(r"(mastermind|bulls-cows):(\d+)x(\d+)", game)
    if found is None:
        raise ValueError(f"{game!r}: the ladder runs mastermind:PxC and bulls-cows:PxS games")
    return found[1], int(found[2]), int(found[3])


def ladder_codes(game: str) -> int:
    """The number of codes of a ladder game (the plot's abscissa)."""
    kind, pegs, symbols = ladder_size(game)
    if kind == "mastermind":
        return symbols ** pegs
    return math.perm(symbols, pegs)


def other_command(binary: str, game: str) -> list[str]:
    """The other solver's command line for ``game`` (OTHER_ARGS)."""
    kind, pegs, symbols = ladder_size(game)
    return [binary] + [a.format(pegs=pegs, symbols=symbols) for a in OTHER_ARGS[kind]]


def measured(command: list[str], cap: float, cwd: Path | None = None) -> dict:
    """One whole process: wall seconds, CPU seconds (user + system of it and of every process
    it started and waited for: a local cluster's workers count), its output, and whether it was
    stopped at ``cap`` seconds (its whole process group killed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    stopped = False
    try:
        out, err = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        stopped = True
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 3) and not stopped:  # 3: moo stopped at its time limit
        raise RuntimeError(f"{' '.join(command)}: exit status {proc.returncode}: {err[-1500:]}")
    return {"wall": wall, "cpu": cpu, "out": out, "stopped": stopped or proc.returncode == 3}


def moo_run(game: str, cap: float) -> dict:
    """`moo build GAME --objective total` as a user runs it: the whole command (wall, CPU), and
    from the tree's meta the search's seconds and nodes; set-up is the rest (imports, matrices,
    greedy tree, workers, replay, writing)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.json"
        command = [sys.executable, "-m", "optimizer", "build", game, "--objective", "total",
                   "--quiet", "--time-limit", f"{cap:g}", "-o", str(path)]
        run_ = measured(command, cap + 60, cwd=ROOT)
        meta = json.loads(path.read_text())["meta"] if path.exists() else {}
    search = meta.get("total_search", {})
    found = re.search(r"total (\d+)", run_["out"])
    run_.update(value=int(found[1]) if found else None, search=search.get("seconds"),
                nodes=search.get("nodes"))
    run_["setup"] = None if run_["search"] is None else run_["wall"] - run_["search"]
    return run_


def other_run(binary: str, game: str, cap: float) -> dict:
    """The other solver on ``game`` (other_command): wall, CPU and the total it prints."""
    run_ = measured(other_command(binary, game), cap)
    lines = run_["out"].strip().splitlines()
    found = re.match(r"\s*(\d+)", lines[-1]) if lines else None
    run_["value"] = int(found[1]) if found else None
    return run_


def ladder(games: list[str], other: str | None, rounds: int, cap: float) -> list[dict]:
    """Each game's runs, moo then the other solver in turn, ``rounds`` times; printed as a table
    of medians (a run stopped at the cap shows as ">cap") and returned for the plot."""
    head = (f"{'game':17} {'codes':>6} {'total':>7} {'whole s':>8} {'search s':>8} "
            f"{'set-up s':>8} {'CPU s':>7} {'nodes':>10}")
    if other:
        head += f" | {'other':>7} {'wall s':>8} {'CPU s':>8} {'wall x':>7} {'CPU x':>7}"
    print(head, flush=True)
    rows = []
    for game in games:
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(moo_run(game, cap))
            if other:
                theirs.append(other_run(other, game, cap))
        row = {"game": game, "codes": ladder_codes(game), "moo": _medians(ours)}
        line = (f"{game:17} {row['codes']:>6} {_shown(row['moo'], 'value')} "
                f"{_shown(row['moo'], 'wall', cap)} {_shown(row['moo'], 'search')} "
                f"{_shown(row['moo'], 'setup')} {_shown(row['moo'], 'cpu', cap, 7)} "
                f"{_shown(row['moo'], 'nodes', width=10)}")
        if other:
            row["other"] = _medians(theirs)
            mine, its = row["moo"], row["other"]
            flag = "" if its["value"] in (None, mine["value"]) or its["stopped"] else " (differs)"
            line += (f" | {_shown(its, 'value')} {_shown(its, 'wall', cap)} "
                     f"{_shown(its, 'cpu', cap)} {_ratio(mine, its, 'wall')} "
                     f"{_ratio(mine, its, 'cpu')}{flag}")
        print(line, flush=True)
        rows.append(row)
    if other:
        print("wall x, CPU x: moo's seconds over the other solver's (below 1: moo is faster)")
    return rows


def _medians(runs: list[dict]) -> dict:
    """Medians of the numeric figures of several runs of one program (stopped if any was)."""
    out = {"stopped": any(r["stopped"] for r in runs), "value": runs[-1].get("value")}
    for key in ("wall", "cpu", "search", "setup", "nodes"):
        values = [r[key] for r in runs if r.get(key) is not None]
        out[key] = statistics.median(values) if values else None
    return out


def _shown(row: dict, key: str, cap: float | None = None, width: int = 8) -> str:
    value = row.get(key)
    if value is None:
        return f"{'-':>{width}}"
    if cap is not None and row["stopped"]:
        return f"{'>' + format(cap, 'g'):>{width}}"
    if isinstance(value, float):
        return f"{value:>{width}.2f}"
    return f"{value:>{width}}"


def _ratio(mine: dict, its: dict, key: str) -> str:
    if mine["stopped"] or its["stopped"] or not its[key]:
        return f"{'-':>7}"
    return f"{mine[key] / its[key]:>7.2f}"


def ladder_plot(rows: list[dict], path: str, other: str | None) -> None:
    """Seconds (wall and CPU) against the number of codes, both programs, log scales; runs
    stopped at the cap are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5))
    programs = [("moo", "moo (whole command)", "tab:blue")]
    if other:
        programs.append(("other", "C++ solver of 2012 (one thread)", "tab:red"))
    families = [("mastermind", "Mastermind", "o"), ("bulls-cows", "Bulls and Cows", "s")]
    for program, name, colour in programs:
        for family, label, marker in families:
            for key, style, what in (("wall", "-", "wall"), ("cpu", "--", "CPU")):
                points = sorted((r["codes"], r[program][key]) for r in rows
                                if r["game"].startswith(family) and program in r
                                and not r[program]["stopped"] and r[program][key])
                if points:
                    xs, ys = zip(*points, strict=True)
                    ax.plot(xs, ys, style, marker=marker, color=colour,
                            label=f"{name}, {label}, {what}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("codes")
    ax.set_ylabel("seconds")
    ax.set_title("Least total, any guesses: cost against the size of the game")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="include Bulls and Cows total")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--battleship", type=int, metavar="N", default=0,
                        help="with --against: how many Battleship classes (default 3)")
    parser.add_argument("--against", metavar="REV", help="compare with this git revision")
    parser.add_argument("--rounds", type=int, default=2, help="runs per side with --against "
                        "or the ladder")
    parser.add_argument("--this", metavar="REV", help="with --against: time a copy of this "
                        "revision, not the working tree")
    parser.add_argument("--skip-table", action="store_true", help="only the side by side")
    parser.add_argument("--ladder", nargs="?", const="default", choices=("default", "all"),
                        help="least total of growing games (LADDER), whole commands; 'all' "
                        "adds the largest (minutes each)")
    parser.add_argument("--only", metavar="GAME[,GAME]", help="the ladder on these games "
                        "(mastermind:PxC or bulls-cows:PxS)")
    parser.add_argument("--other", metavar="BINARY", help="with the ladder: run this solver "
                        "too, in turn (OTHER_ARGS: made for the 2012 C++ solver's mmstrat)")
    parser.add_argument("--cap", type=float, default=CAP, metavar="SECONDS",
                        help=f"with the ladder: stop a run after this long (default {CAP:g})")
    parser.add_argument("--plot", metavar="FILE", help="with the ladder: seconds against codes, "
                        "log scales (docs/scaling.png)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f}")
    if args.ladder or args.only:
        rows = ladder(ladder_games(args.ladder, args.only), args.other, args.rounds, args.cap)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        if args.plot:
            ladder_plot(rows, args.plot, args.other)
        return 0
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
