"""The batch run (`make trees`): regenerate every committed tree in trees/, verify each by
replaying every secret, rebuild the comparison report (trees/README.md), and write a page that
plays each tree in a browser (trees/pages/, with index.html).

`--pages-only` skips the builds and the report: it writes the pages of the trees already in
trees/ in a few seconds (`make pages`).

Each tree is built in its own process by the `moo` command itself, so what is committed is
exactly what a user gets. Searches that do not finish within their time limit still write their
best tree, marked "optimal": false with the proven lower bound.
"""

from __future__ import annotations

import argparse
import fnmatch
import subprocess
import sys
import time
from pathlib import Path

from tqdm import tqdm

from optimizer.cli.page import write_pages
from optimizer.cli.status import Exit
from optimizer.formats.tree_file import tree_filename
from optimizer.games import DEFAULT_GAMES

# (game, objective, guesses, time limit in seconds[, the one opening searched: --first])
JOBS = [
    ("bulls-cows:4x10", "height", "any", 600),
    ("bulls-cows:4x10", "height", "consistent", 600),
    ("bulls-cows:4x10", "total", "any", 3600),
    ("bulls-cows:4x10", "height,total", "any", 3600),
    ("mastermind:4x6", "height,total", "any", 600),
    ("mastermind:4x6", "total", "any", 600),
    ("mastermind:4x6", "total@5", "any", 600),
    ("mastermind:4x6", "height,total", "consistent", 600),
    ("moo:10,11,12", "height,total", "any", 1800),
    ("moo:10,11,12", "total", "any", 1800),
    # Fewest secrets at the last level of a least-height tree (then the least total).
    ("mastermind:4x6", "height,deepest", "any", 600),
    ("mastermind:4x6", "height,deepest", "consistent", 600),
    ("moo:10,11,12", "height,deepest", "any", 1800),
    # Open problems: searched within a time limit; the best tree and its proven lower bound are
    # written when the search does not finish (see the README for how far each got).
    ("battleship:4x8x3", "height", "any", 300),
    ("battleship:4x8x3", "height,total", "any", 300),
    ("battleship:4x8x3", "total", "any", 600),
    # ... and its best opening found so far, solved exactly (6.4 min on 2 cores): its tree is
    # merged into the checkpoint above (`moo checkpoint merge`) as the tree to beat.
    ("battleship:4x8x3", "total", "any", 900, "A1 A3 H4"),
    # Bullets and Maggots' least totals, solved on 2026-11-25: 14-16 minutes each from nothing on
    # 2 cores, moments with the checkpoint.
    ("mastermind:4x10", "height,total", "any", 1800),
    ("mastermind:4x10", "total", "any", 1800),
    ("mastermind:4x10", "total", "consistent", 600),
    ("bulls-cows:4x10", "height,deepest", "any", 1800),
    ("bulls-cows:4x10", "height,deepest", "consistent", 900),
    ("battleship:4x8x3", "height,deepest", "any", 600),
    # More exact least totals (the results in docs/results.md), each a whole tree anyone can
    # replay: hard mode of the default games, larger Mastermind boards, other Bulls and Cows.
    ("mastermind:4x6", "total", "consistent", 600),
    ("bulls-cows:4x10", "total", "consistent", 600),
    ("moo:9,10,11", "total", "any", 600),
    ("mastermind:4x7", "total", "any", 1800),
    ("mastermind:4x7", "total", "consistent", 600),
    ("mastermind:4x8", "total", "any", 1800),
    ("mastermind:4x8", "total", "consistent", 600),
    ("mastermind:4x9", "total", "any", 3600),
    ("bulls-cows:4x9", "total", "any", 600),
    ("bulls-cows:4x9", "total", "consistent", 600),
    ("bulls-cows:5x8", "total", "any", 3600),
    # Wordle: the least totals of the trees opening with salet, the published ranking's first,
    # in normal mode and in hard mode within the game's 6 guesses (and without that limit).
    ("wordle", "total", "any", 600, "salet"),
    ("wordle", "total@6", "hard", 600, "salet"),
    ("wordle", "total", "hard", 600, "salet"),
    # ... and over every opening: the least height 5 (no opening wins within 4: 15 min on 2
    # cores, seconds with the checkpoint); the least total 7920 (22 min on 2 cores from nothing,
    # seconds with the checkpoint, whose facts the tree then rests on).
    ("wordle", "height", "any", 1800),
    ("wordle", "total", "any", 600),
]


def job_file(folder: Path, job: tuple) -> Path:
    """Where a job's tree is written."""
    return folder / tree_filename(*job[:3], first=job[4] if len(job) > 4 else None)

PAGES = "pages"  # under the trees folder: one HTML page per tree, and index.html

# Searches too long for one run keep what they proved about first guesses here (--checkpoint:
# refuted heights, least values, bounds, the best tree); the batch run reads them and adds what
# its own time limit allows, so each run goes on where the last one stopped. (Not for Bulls and
# Cows: its one first-guess class is the unit of a checkpoint, and its searches finish.)
CHECKPOINTS = {
    **{("battleship:4x8x3", objective, "any"): "battleship-4x8x3.checkpoint.json"
       for objective in ("height", "height,total", "total", "height,deepest")},
    **{("mastermind:4x10", objective, "any"): "mastermind-4x10.checkpoint.json"
       for objective in ("height,total", "total")},
    **{("wordle", objective, "any"): "wordle.checkpoint.json" for objective in ("height", "total")},
}

# Extra options of the open problems' least-total searches: a rollout improves the greedy tree
# for up to 120 s before the exact search (--improve), and the lookahead bound raises the root
# classes' bounds two guesses deep, lowest first (--lookahead); both keep what they reach in the
# checkpoint above, so the gap narrows run after run.
OPTIONS = {
    **{("battleship:4x8x3", objective, "any"): ["--improve", "120", "--lookahead", "2"]
       for objective in ("height,total", "total")},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="trees", help="output folder")
    parser.add_argument("--only", default="*",
                        help="glob over 'game objective guesses', then 'first CODE' for a job "
                             "of one opening (a glob ending with * takes those too)")
    parser.add_argument("--skip", action="append", default=[], metavar="GLOB",
                        help="leave out the jobs this glob matches (as --only; may be repeated)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiply time limits")
    parser.add_argument("--no-report", action="store_true")
    parser.add_argument("--pages-only", action="store_true",
                        help="only write the pages of the trees already built (no search)")
    args = parser.parse_args()
    folder = Path(args.trees)
    if args.pages_only:
        return pages(folder)
    folder.mkdir(parents=True, exist_ok=True)  # moo writes only into folders that exist
    jobs = chosen(JOBS, args.only, args.skip)
    if not jobs:
        parser.error(f"no job is named by --only {args.only!r} without --skip "
                     f"{args.skip!r}: a job's name is 'game objective guesses', then "
                     "'first CODE' for one opening's (end a glob with * to take those too)")
    failures = 0
    bar = tqdm(jobs, desc="trees", unit="tree")
    for job in bar:
        game, objective, guesses, limit = job[:4]
        bar.set_postfix_str(job_name(job))
        path = job_file(folder, job)
        start = time.monotonic()
        build = [sys.executable, "-m", "optimizer", "build", game, "--objective", objective,
                 "--guesses", guesses, "--time-limit", str(limit * args.time_scale),
                 "-o", str(path)]
        if len(job) > 4:  # one opening: the checkpoint's facts are about every opening
            build += ["--first", job[4]]
        else:
            checkpoint = CHECKPOINTS.get((game, objective, guesses))
            if checkpoint:
                build += ["--checkpoint", str(folder / checkpoint)]
            build += OPTIONS.get((game, objective, guesses), [])
        status = subprocess.call(build)
        stopped = status == Exit.STOPPED  # the time limit came first: the best tree was written
        if status in (Exit.FINISHED, Exit.STOPPED):
            status = subprocess.call([sys.executable, "-m", "optimizer", "verify", str(path)])
        verdict = "FAILED" if status else "ok, stopped by its time limit" if stopped else "ok"
        tqdm.write(f"{path}: {verdict} "
                   f"({time.monotonic() - start:.0f} s)")
        failures += status != 0
    report = None if args.no_report else report_command(folder, jobs)
    if report:
        failures += subprocess.call(report)
    failures += pages(folder)
    return 1 if failures else 0


def chosen(jobs: list[tuple], only: str, skip: list[str]) -> list[tuple]:
    """The jobs whose 'game objective guesses' (with 'first CODE' for one opening's) match
    ``only`` and none of ``skip``: a batch run without one game's jobs (Battleship's take 45
    minutes of time limits), or one tree again without the tree of its best opening."""
    return [job for job in jobs if fnmatch.fnmatch(job_name(job), only)
            and not any(fnmatch.fnmatch(job_name(job), glob) for glob in skip)]


def report_command(folder: Path, jobs: list[tuple]) -> list[str] | None:
    """The report of every game after a whole batch; after some jobs, of their default games
    only (the others' sections are kept), since each game's greedy builds cost minutes. None:
    the jobs are of no game the report covers."""
    command = [sys.executable, "scripts/report.py", "--trees", str(folder)]
    if len(jobs) == len(JOBS):
        return command
    games = [game for game in dict.fromkeys(job[0] for job in jobs) if game in DEFAULT_GAMES]
    return command + ["--games", *games] if games else None


def job_name(job: tuple) -> str:
    """'game objective guesses', then 'first CODE' for a job of one opening."""
    return " ".join(job[:3]) + (f" first {job[4]}" if len(job) > 4 else "")


def pages(folder: Path) -> int:
    """A page for every tree of JOBS found in ``folder``, and the index; 1 on any problem."""
    trees = [job_file(folder, job) for job in JOBS]
    present = [path for path in trees if path.is_file()]
    problems = write_pages(present, folder / PAGES)
    problems += [f"{path}: missing" for path in trees if not path.is_file()]
    for problem in problems:
        print(f"pages: {problem}", file=sys.stderr)
    print(f"pages: {len(present) - len(problems)} pages and index.html -> {folder / PAGES}",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
