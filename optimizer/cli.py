"""Command line: ``moo info|build|verify|play|prove|compare|page``.

Heavy modules (numba kernels, searches) are imported inside the commands that need them, so that
``moo play`` and ``moo verify`` start instantly.
"""

from __future__ import annotations

import argparse
import sys
import time

import orjson

from .command import FINISHED, STOPPED, add_search_options
from .games import GameError, parse_game
from .tree import TreeError, TreeFileError, read_tree, verify


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    parser = _parser()
    args = parser.parse_args(argv)
    args.started = started
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except (GameError, TreeError, ValueError) as exc:
        print(f"moo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("moo: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a file that cannot be written, a cluster that cannot be reached
        print(f"moo: error: {exc}", file=sys.stderr)
        return 2


def entry() -> None:
    """Console entry point: `moo ... | head` ends quietly instead of with a traceback."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # A long run in the background (nohup, a batch system) gets no Ctrl-C, and shells start
    # background jobs with SIGINT ignored: `kill PID` (SIGTERM) is its interruption, and a closed
    # terminal (SIGHUP) another; each ends a search as Ctrl-C does: the best tree found so far
    # (or the proof's summary) is still written.
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupted)
    raise SystemExit(main())


def _interrupted(signum, frame) -> None:
    raise KeyboardInterrupt


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="moo", description="Optimal decision trees for code-breaking games."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    info = sub.add_parser("info", help="codes, feedback classes and symmetry of a game")
    info.add_argument("game", help="e.g. bulls-cows, mastermind:4x6, moo:10,11,12, battleship")
    info.set_defaults(run=cmd_info)

    build = sub.add_parser("build", help="build a decision tree and write it as JSON")
    build.add_argument("game")
    how = build.add_mutually_exclusive_group()
    how.add_argument(
        "--strategy",
        help="a greedy strategy: first-consistent, random-consistent, minimax, expected-size, "
        "entropy, most-parts",
    )
    how.add_argument(
        "--objective",
        help="exact search: height, total, height,total, total,height, total@K",
    )
    build.add_argument("--guesses", choices=("any", "consistent"), default="any")
    build.add_argument("--seed", type=int, default=0, help="seed of random strategies")
    build.add_argument("--checkpoint", metavar="FILE", default=None,
                       help="exact objectives: facts about first guesses from earlier runs "
                            "(refuted heights, least totals, the best tree); this run adds its "
                            "own, so a long search goes on where it stopped")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    add_search_options(build)
    build.add_argument("-o", "--output", required=True, help="tree file to write")
    build.set_defaults(run=cmd_build)

    ver = sub.add_parser("verify", help="replay every secret through a stored tree")
    ver.add_argument("file")
    ver.add_argument("--json", action="store_true", help="print the result as JSON")
    ver.set_defaults(run=cmd_verify)

    # Commands that live in their own modules: each module has configure(subparser) and run(args).
    for name, module, text in (
        ("play", "player", "play a stored tree against a person, or be the code maker"),
        ("prove", "prove", "prove that K guesses are the optimal worst case of a game"),
        ("compare", "compare", "every strategy and stored tree of a game side by side"),
        ("checkpoint", "checkpoints", "show, merge or verify checkpoint files of long searches"),
        ("page", "page", "write one HTML file that plays a stored tree in a browser"),
    ):
        _plug(sub, name, module, text)
    return parser


def _plug(sub, name: str, module: str, text: str) -> None:
    import importlib

    try:
        mod = importlib.import_module(f".{module}", __package__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.{module}":
            raise
        return  # not part of this installation
    command = sub.add_parser(name, help=text, description=text)
    mod.configure(command)
    command.set_defaults(run=mod.run)


def cmd_info(args) -> int:
    import numpy as np

    from .search.solver import root_classes

    game = parse_game(args.game)
    start = time.perf_counter()
    matrix = game.feedback_matrix()
    seconds = time.perf_counter() - start
    values = np.unique(matrix)
    sym = game.symmetry()
    print(f"game:             {game.spec}")
    print(f"codes:            {game.n_codes} ({game.code_rule()})")
    print(f"example codes:    {game.format_code(0)}, {game.format_code(game.n_codes - 1)}")
    print(f"feedback:         {' '.join(game.feedback_names)}")
    print(
        f"feedback classes: {len(values)}: "
        + ", ".join(game.format_feedback(int(v)) for v in values)
    )
    print(f"symmetry:         {sym.description}")
    print(f"first-guess classes: {len(root_classes(game))}")
    print(f"feedback matrix:  {game.n_codes} x {game.n_codes} built in {seconds:.2f} s")
    return 0


def cmd_build(args) -> int:
    from .search.build import build_tree
    from .tree import write_tree

    game = parse_game(args.game)
    if not args.strategy and not args.objective:
        args.strategy = "first-consistent"
    if args.objective is not None:
        tree = _build_exact(game, args)
    else:
        tree = build_tree(game, strategy=args.strategy, guesses=args.guesses, seed=args.seed,
                          checkpoint=args.checkpoint)
    tree.meta.setdefault("build_seconds", round(time.monotonic() - args.started, 3))
    stats = write_tree(tree, args.output)
    stopped = bool(tree.meta.get("stopped"))
    label = "optimal" if tree.optimal else "stopped early, not proven optimal" if stopped else (
        "not proven optimal")
    print(
        f"{game.spec} {tree.objective} ({tree.guesses} guesses, {label}): "
        f"height {stats['height']}, "
        f"total {stats['total']}, average {stats['total'] / stats['secrets']:.4f} "
        f"-> {args.output}"
    )
    if tree.lower_bound is not None and not tree.optimal:
        print(f"proven lower bound of the {tree.objective.split(',')[0].split('@')[0]}: "
              f"{tree.lower_bound}")
    taken = sum(search.get("classes_from_checkpoint", 0) for key, search in tree.meta.items()
                if key.endswith("_search"))
    if taken:
        print(f"taken from {args.checkpoint}: {taken} first-guess classes settled by earlier "
              "runs (claims this run did not check; `moo checkpoint verify` re-proves them)")
    return STOPPED if stopped else FINISHED


def _build_exact(game, args):
    from .search.objectives import Search

    deadline = args.started + args.time_limit if args.time_limit is not None else None
    with Search(game, args.guesses, workers=args.workers, scheduler=args.scheduler,
                deadline=deadline, progress=not args.quiet,
                checkpoint=args.checkpoint) as search:
        return search.build(args.objective)


def cmd_verify(args) -> int:
    try:
        tree = read_tree(args.file)
    except TreeFileError:
        raise
    except TreeError as exc:  # the file is there but holds no valid tree: a defect
        if args.json:
            out = {"file": args.file, "ok": False, "defects": [str(exc)]}
            print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        else:
            print(f"DEFECT: {exc}")
        return 1
    result = verify(tree)
    ok = not result.defects
    if args.json:
        out = {"file": args.file, "game": tree.game.spec, "ok": ok, **result.as_json()}
        out["average"] = round(result.average, 6)
        out["defects"] = result.defects
        print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return 0 if ok else 1
    print(f"{args.file}: {tree.game.spec}, objective {tree.objective}, {tree.guesses} guesses")
    if not ok:
        print("DEFECTS:")
        for defect in result.defects:
            print(f"  - {defect}")
        return 1
    hist = ", ".join(f"{k}: {v}" for k, v in sorted(result.histogram.items()))
    print(f"secrets {result.secrets}, height {result.height}, total {result.total}, "
          f"average {result.average:.4f}")
    print(f"histogram (guesses: secrets) {hist}")
    print("OK: every secret is solved and the stored stats match")
    return 0
