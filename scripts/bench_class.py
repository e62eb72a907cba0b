"""Time the settling of first-guess classes of a least-total search against a cut-off (a tree in
hand): what each class of a whole-game proof costs. Runs the optimizer found on PYTHONPATH, so
two revisions compare by running this script with each one's tree in turn.

    python scripts/bench_class.py battleship --best 22870 --first "A1 D1 E3" --limit 600
    python scripts/bench_class.py battleship --best 22870 --list 10 \
        --checkpoint trees/battleship-4x8x3.checkpoint.json        # the classes next in line
    python scripts/bench_class.py bulls-cows:4x7 --best 0.98       # every class, cut-off at 98%
                                                                   # of the least total
    python scripts/bench_class.py battleship --best 22856 --first "A2 D4 E2" \
        --facts trees/battleship-4x8x3.checkpoint.json   # as a resumed run meets the class

Prints, per class: its value (exact, or a bound proven >= the cut-off), seconds, CPU seconds
of this process (its worker threads), nodes of the finished jobs; the kernels are loaded, and
the facts read, before the clock starts.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from optimizer.formats.checkpoint import Checkpoint
from optimizer.formats.checkpoint_fields import read_json
from optimizer.games import parse_game
from optimizer.search.engine import open_engine
from optimizer.search.solver import NodeSolver
from optimizer.search.total import TotalSearch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--best", type=float, required=True,
                        help="the cost to beat; below 1: that share of the least total (found "
                             "first by a search, not timed)")
    parser.add_argument("--first", action="append", default=[],
                        help="a class's first guess (repeat; default: every class)")
    parser.add_argument("--list", type=int, metavar="K",
                        help="the K classes of lowest bound (the checkpoint's or the facts', "
                             "else counting)")
    parser.add_argument("--checkpoint",
                        help="a checkpoint whose class bounds order --list (default: the --facts "
                             "file)")
    parser.add_argument("--limit", type=float, help="seconds per class, at most")
    parser.add_argument("--workers", type=int, help="as moo's --workers (default: as moo chooses)")
    parser.add_argument("--facts", metavar="FILE",
                        help="a checkpoint each class starts from, as a resumed run would: read "
                             "afresh for each class, so that every class (and each revision "
                             "compared) meets the same facts; never written")
    args = parser.parse_args()
    game = parse_game(args.game)
    solver = NodeSolver(game, "any")
    solver.warm_up(("total",))
    engine = open_engine(solver, args.workers)
    search = TotalSearch(solver, engine)
    depth = game.n_codes
    best = args.best
    if best < 1:
        best = int(best * search.min_total(depth).value)
    best = int(best)
    classes = {g: parts for g, parts in search.root_classes()}
    chosen = [game.parse_code(text) for text in args.first]
    if args.list:
        bounds = {g: b for b, g, _ in search.first_classes(depth)}
        if args.checkpoint or args.facts:
            log = (Checkpoint(args.checkpoint, game, "any") if args.checkpoint else
                   Checkpoint(None, game, "any", data=read_json(Path(args.facts))))
            bounds = {g: max(b, log.total_lower_bound("total", g, depth))
                      for g, b in bounds.items()}
        chosen += sorted((g for g in bounds if bounds[g] < best and g not in chosen),
                         key=lambda g: bounds[g])[:args.list]
    chosen = chosen or sorted(classes)
    print(f"{args.game}: {len(chosen)} classes against {best}, engine {engine.where}, "
          f"{os.cpu_count()} cores; optimizer in {Path(sys.modules['optimizer'].__file__).parent}",
          flush=True)
    total_seconds = 0.0
    for guess in chosen:
        if args.facts:
            search.checkpoint = Checkpoint(None, game, "any", data=read_json(Path(args.facts)))
        search.deadline = None if args.limit is None else time.monotonic() + args.limit
        nodes, start, cpu = search.nodes, time.perf_counter(), time.process_time()
        try:
            value, root = search.class_total(guess, classes[guess], depth, best)
            what = f"{'exact' if root is not None else 'at least'} {value}"
        except TimeoutError:
            what = "stopped"
        seconds = time.perf_counter() - start
        total_seconds += seconds
        print(f"{game.format_code(guess)}: {what}, {seconds:.2f} s, "
              f"{time.process_time() - cpu:.1f} CPU s, {search.nodes - nodes} nodes", flush=True)
    print(f"all: {total_seconds:.2f} s", flush=True)
    engine.close()


if __name__ == "__main__":
    main()
