"""``moo build``: a decision tree by a greedy strategy or an exact search, written as JSON."""

from __future__ import annotations

import argparse
import sys
import time

from ..games import parse_game
from ..games.base import GUESS_MODES
from ..objective import EXACT_NAMES
from ..provenance import checkpoint_facts, opening_note, resting
from ..tree import printable
from .options import GAME_HELP, GUESSES_HELP, add_search_options, levels, percent, seed
from .options import seconds as positive_seconds
from .signals import hold_signals, release_signals
from .status import Exit


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=GAME_HELP)
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--strategy",
        help="a greedy strategy: first-consistent, random-consistent, minimax, expected-size, "
        "entropy, most-parts",
    )
    how.add_argument(
        "--objective",
        help=f"exact search: {EXACT_NAMES}",
    )
    parser.add_argument("--guesses", choices=GUESS_MODES, default="any", help=GUESSES_HELP)
    parser.add_argument("--seed", type=seed, default=None,
                        help="seed of the random strategy, random-consistent (0 to 2**64 - 1; "
                             "default 0)")
    parser.add_argument("--checkpoint", metavar="FILE", default=None,
                        help="exact objectives: facts about first guesses from earlier runs "
                             "(refuted heights, least totals, the best tree); this run adds its "
                             "own, so a long search goes on where it stopped")
    parser.add_argument("--lookahead", type=levels, default=0, metavar="K",
                        help="least-cost objectives: before the search, raise every first "
                             "guess's lower bound by the lookahead bound K guesses deep, lowest "
                             "first (for games too large to finish: a proven bound, and a gap)")
    parser.add_argument("--improve", type=positive_seconds, default=0.0, metavar="SECONDS",
                        help="least-cost objectives: before each least-cost search, spend up "
                             "to this long on a better tree to beat: rollouts from the greedy "
                             "tree (the total only, up to half of it, and not when the "
                             "checkpoint holds a better tree), then exact subtrees in "
                             "the best tree in hand, the checkpoint's included, smallest first")
    parser.add_argument("--gap", type=percent, default=0.0, metavar="PERCENT",
                        help="least-total objectives: prove only that the best tree is within "
                             "PERCENT of the optimum (every first guess shown to cost at least "
                             "the best total / (1 + PERCENT/100), or a better tree found), far "
                             "less work than proving it optimal; the tree is then not marked "
                             "optimal and its lower bound is written")
    parser.add_argument("--first", metavar="CODE", default=None,
                        help="exact objectives: the best trees opening with this code (how "
                             "openings are ranked); the tree's meta.opening says what is proven")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_search_options(parser)
    parser.add_argument("-o", "--output", required=True, help="tree file to write")


def run(args: argparse.Namespace) -> Exit:
    from ..search.build import build
    from ..search.observer import Observer
    from ..search.request import Request

    game = parse_game(args.game)
    if args.seed is not None and not (args.strategy or "").startswith("random"):
        raise ValueError("--seed is the seed of the random strategy (--strategy "
                         "random-consistent); the other strategies and the exact objectives "
                         "draw nothing")
    try:
        tree = build(Request(
            game, objective=args.objective, strategy=args.strategy, guesses=args.guesses,
            seed=args.seed or 0, time_limit=args.time_limit, started=args.started,
            workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
            lookahead=args.lookahead, improve=args.improve, first=args.first, gap=args.gap,
            table_bits=args.table_bits),
            Observer(quiet=args.quiet, on_finished=hold_signals))
        status = _report(game, tree, args)
    finally:
        late = release_signals()
    if late:  # a search stopped by a first signal had finished too, at that signal
        when = ("after the search had stopped" if status == Exit.STOPPED
                else "after the search had finished")
        print(f"moo: {late[0]} came {when}; the tree above is whole and written",
              file=sys.stderr)
    return status


def _gap_note(tree, stats: dict, bound: int | None = None) -> str:
    """With --gap: how far the tree's total is above the total's proven bound (``bound``:
    the one among the trees of one opening, else the tree's own)."""
    from ..objective import proven_bounds

    search = tree.meta.get("total_search")
    if not isinstance(search, dict) or not search.get("gap_percent"):
        return ""
    if bound is None:
        bound = next((v for name, _, v in proven_bounds(tree) if name == "total"), None)
    if not bound:
        return ""
    gap = 100 * (stats["total"] - bound) / bound
    return f"; the tree is {gap:.2f}% above it (--gap {search['gap_percent']:g})"


def _report(game, tree, args) -> Exit:
    """Write the tree and say what it is and what it rests on."""
    from ..formats.facts import pace_text
    from ..formats.tree_file import write_tree
    from ..objective import bound_note, exact_objective

    tree.meta.setdefault("build_seconds", round(time.monotonic() - args.started, 3))
    stats = write_tree(tree, args.output)
    stopped = bool(tree.meta.get("stopped"))
    taken = checkpoint_facts(tree)
    label = resting("optimal", taken) if tree.optimal else (
        "stopped early, not proven optimal" if stopped else "not proven optimal")
    opening = opening_note(tree)
    if opening is not None:
        proven, among = opening
        label = f"optimal {among}" if proven else f"{label} {among}"
    print(
        f"{game.spec} {tree.objective} ({tree.guesses} guesses, {label}): "
        f"height {stats['height']}, "
        f"total {stats['total']}, average {stats['total'] / stats['secrets']:.4f} "
        f"-> {printable(args.output)}"
    )
    if tree.lower_bound is not None and not tree.optimal:
        print(resting(f"proven: {bound_note(tree)}{_gap_note(tree, stats)}", taken))
    elif opening is not None and not opening[0]:  # the bound is the opening's (meta.opening)
        bound = tree.meta["opening"]["lower_bound"]
        first = exact_objective(tree.objective).first  # what the opening's bound bounds
        gap = _gap_note(tree, stats, bound) if first == "total" else ""
        print(f"proven {opening[1]}: {first} >= {bound}{gap}")
    left = next((v["work_left"] for v in tree.meta.values()
                 if isinstance(v, dict) and v.get("work_left")), None)
    if stopped and left:
        gap = tree.meta.get("total_search", {}).get("gap_percent")
        below = "the goal of --gap" if gap else "the best total"
        done = "lifted to the goal" if gap else "settled"
        own = left.get("this_run")
        mine = (f"; this run: {own['seconds_per_class']} CPU seconds a class over its "
                f"{own['classes']}" if own else "")
        print(f"left: {left['classes']} first-guess classes below {below}, about "
              f"{left['core_hours']} core-hours at {pace_text(left, done)}{mine}")
    if taken:
        print(f"taken from {printable(args.checkpoint)}: {taken} "
              f"fact{'s' if taken != 1 else ''} about first guesses "
              "and the parts below them settled by earlier runs (claims this run did not "
              "check; `moo checkpoint verify` re-proves them; the tree's "
              "meta.checkpoint_facts records the count)")
    return Exit.STOPPED if stopped else Exit.FINISHED

