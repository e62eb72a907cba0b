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
    python scripts/bench_class.py battleship --best 22856 --sample 16 --record \
        --checkpoint trees/battleship-4x8x3.checkpoint.json  # the work left, from a sample
    python scripts/bench_class.py battleship --best 22856 --list 4 --table-bits 24 \
        --facts trees/battleship-4x8x3.checkpoint.json   # the classes with larger tables

--sample draws classes at random among those the checkpoint leaves below the cut-off: their
mean cost, times the classes left, estimates the work left without the bias of the run's own
pace (a run takes the classes in a fixed order, and the mean of those settled so far need not
be that of the rest). --record writes what each class proves into the --checkpoint file, with
the CPU seconds spent, as a run would (a run on the same file meanwhile is safe: each write
merges the other's facts), so that the sample's work is not lost; a sample's spending is marked
"drawn", and from 10 such classes the runs' estimate of the work left takes their mean as its
pace (search/progress.py).

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

import numpy as np

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
    parser.add_argument("--table-bits", type=int, help="as moo build's --table-bits")
    parser.add_argument("--sample", type=int, metavar="K",
                        help="K classes drawn at random among those the checkpoint leaves open "
                             "(--checkpoint or --facts), and the work left estimated from them")
    parser.add_argument("--seed", type=int, default=0, help="of --sample's draw")
    parser.add_argument("--record", action="store_true",
                        help="write what each class proves into the --checkpoint file")
    parser.add_argument("--facts", metavar="FILE",
                        help="a checkpoint each class starts from, as a resumed run would: read "
                             "afresh for each class, so that every class (and each revision "
                             "compared) meets the same facts; never written")
    args = parser.parse_args()
    check_args(parser, args)
    game = parse_game(args.game)
    solver = NodeSolver(game, "any", table_bits=args.table_bits)
    solver.warm_up(("total",))
    engine = open_engine(solver, args.workers)
    search = TotalSearch(solver, engine)
    depth = game.n_codes
    best = args.best
    if best < 1:
        best = int(best * search.min_total(depth).value)
    best = int(best)
    classes = {g: parts for g, parts in search.root_classes()}
    log = None
    if args.checkpoint or args.facts:
        log = (Checkpoint(args.checkpoint, game, "any") if args.checkpoint else
               Checkpoint(None, game, "any", data=read_json(Path(args.facts))))
    bounds = {}
    if args.list or args.sample:
        bounds = {g: b for b, g, _ in search.first_classes(depth)}
        if log is not None:
            bounds = {g: max(b, log.total_lower_bound("total", g, depth))
                      for g, b in bounds.items()}
    chosen = [game.parse_code(text) for text in args.first]
    open_ = sorted(g for g in bounds if bounds[g] < best)
    if args.list:
        chosen += sorted((g for g in open_ if g not in chosen), key=lambda g: bounds[g])[:args.list]
    drawn = set()
    if args.sample:  # among the open classes not chosen otherwise: the estimate's are only these
        pool = [g for g in open_ if g not in chosen]
        draw = np.random.default_rng(args.seed).permutation(len(pool))[:args.sample]
        drawn = {pool[i] for i in draw}
        chosen += sorted(drawn)
    chosen = chosen or sorted(classes)
    where = Path(sys.modules["optimizer"].__file__).parent
    print(f"{args.game}: {len(chosen)} classes against {best}, engine {engine.where}, tables "
          f"of 2^{solver.key.table_bits} slots, {os.cpu_count()} cores; optimizer in {where}",
          flush=True)
    if args.record:
        search.checkpoint = log
    total_seconds, cpus, drawn_best = 0.0, {}, best
    for guess in chosen:
        if args.facts:
            search.checkpoint = Checkpoint(None, game, "any", data=read_json(Path(args.facts)))
        search.deadline = None if args.limit is None else time.monotonic() + args.limit
        nodes, start, cpu = search.nodes, time.perf_counter(), time.process_time()
        settled = False
        try:
            value, root = search.class_total(guess, classes[guess], depth, best)
            what = f"{'exact' if root is not None else 'at least'} {value}"
            settled = True
        except TimeoutError:
            what = "stopped"
        seconds = time.perf_counter() - start
        total_seconds += seconds
        cpus[guess] = (time.process_time() - cpu, settled)
        print(f"{game.format_code(guess)}: {what}, {seconds:.2f} s, "
              f"{cpus[guess][0]:.1f} CPU s, {search.nodes - nodes} nodes", flush=True)
        if args.record:
            if settled:
                best = record(log, guess, depth, best, value, root)
            log.record_spent("total", depth, cpus[guess][0], int(settled), drawn=bool(drawn))
            log.flush()
    print(f"all: {total_seconds:.2f} s", flush=True)
    if drawn:
        print(estimate(len(open_), [cpus[g][0] for g in sorted(drawn)], drawn_best, args.seed,
                       sum(not cpus[g][1] for g in drawn)), flush=True)
    engine.close()


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.sample and not (args.checkpoint or args.facts):
        parser.error("--sample draws among the classes a checkpoint leaves: give "
                     "--checkpoint or --facts")
    if args.record and not args.checkpoint:
        parser.error("--record writes into the --checkpoint file: give one")
    if args.record and args.sample and (args.first or args.list):
        parser.error("--record with --sample records the classes drawn at random, the pace of "
                     "the runs' estimate: draw them alone, without --first or --list")
    if args.record and args.facts:
        parser.error("--record writes the classes' facts into --checkpoint, which --facts "
                     "would hide: give one of them")


def record(log: Checkpoint, guess: int, depth: int, best: int, value: int, root) -> int:
    """A settled class into the checkpoint, as a run records it; the cost to beat after it (a
    class below ``best`` is the better tree)."""
    if root is not None and value < best:
        log.record_incumbent("total", depth, value, root)
        best = value
    log.record_total("total", guess, depth, value, exact=root is not None)
    return best


def estimate(left: int, cpus: list[float], best: int, seed: int, stopped: int) -> str:
    """The work left: the classes open when drawn times the sample's mean CPU seconds, with a
    90% bootstrap interval of that mean (a class's cost varies a hundredfold). A class stopped
    by --limit counts what it spent, so the estimate is then low."""
    sample = np.array(cpus)
    means = np.random.default_rng(seed).choice(sample, (10_000, len(sample))).mean(axis=1)
    low, high = np.percentile(means, [5, 95])
    hours = left / 3600
    return (f"left: {left} classes below {best} when drawn; the mean of {len(sample)} drawn at "
            f"random: {sample.mean():.1f} CPU s a class (90% bootstrap interval {low:.1f}-"
            f"{high:.1f}), so about {sample.mean() * hours:.1f} core-hours "
            f"({low * hours:.1f}-{high * hours:.1f})"
            + (f"; {stopped} stopped by --limit, counted at what they spent: more" if stopped
               else ""))


if __name__ == "__main__":
    main()
