"""The batch run (`make trees`): regenerate every committed tree in trees/, verify each by
replaying every secret, then rebuild the comparison report (trees/README.md).

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

from optimizer.tree import tree_filename

# (game, objective, guesses, time limit in seconds)
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
    # Open problems: searched within a time limit; the best tree and its proven lower bound are
    # written when the search does not finish (see the README for how far each got).
    ("battleship:4x8x3", "height", "any", 300),
    ("battleship:4x8x3", "height,total", "any", 300),
    ("battleship:4x8x3", "total", "any", 600),
    ("mastermind:4x10", "height,total", "any", 300),
    ("mastermind:4x10", "total", "any", 600),
]

# Height searches too long for one run keep their refuted first guesses here (moo prove
# --checkpoint); the batch run reads them and adds what its own time limit allows.
CHECKPOINTS = {("battleship:4x8x3", "any"): "battleship-4x8x3.height-checkpoint.json"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="trees", help="output folder")
    parser.add_argument("--only", default="*", help="glob over 'game objective guesses'")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiply time limits")
    parser.add_argument("--no-report", action="store_true")
    args = parser.parse_args()
    folder = Path(args.trees)
    folder.mkdir(parents=True, exist_ok=True)  # moo writes only into folders that exist
    jobs = [j for j in JOBS if fnmatch.fnmatch(" ".join(j[:3]), args.only)]
    failures = 0
    bar = tqdm(jobs, desc="trees", unit="tree")
    for game, objective, guesses, limit in bar:
        bar.set_postfix_str(f"{game} {objective} {guesses}")
        path = folder / tree_filename(game, objective, guesses)
        start = time.monotonic()
        build = [sys.executable, "-m", "optimizer", "build", game, "--objective", objective,
                 "--guesses", guesses, "--time-limit", str(limit * args.time_scale),
                 "-o", str(path)]
        checkpoint = CHECKPOINTS.get((game, guesses))
        if checkpoint and objective.startswith("height"):
            build += ["--checkpoint", str(folder / checkpoint)]
        status = subprocess.call(build)
        if status == 0:
            status = subprocess.call([sys.executable, "-m", "optimizer", "verify", str(path)])
        tqdm.write(f"{path}: {'ok' if status == 0 else 'FAILED'} "
                   f"({time.monotonic() - start:.0f} s)")
        failures += status != 0
    if not args.no_report:
        failures += subprocess.call([sys.executable, "scripts/report.py", "--trees", str(folder)])
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
