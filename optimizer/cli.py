"""Command line: ``moo info|build|verify|play|prove|compare|page``.

Heavy modules (numba kernels, searches) are imported inside the commands that need them, so that
``moo play`` and ``moo verify`` start instantly.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time

# Before numpy is first imported: no linear algebra is done here, and OpenBLAS starting one
# thread per core cost 0.05 s of every command (a third of `moo info`). A value set by the
# user is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import orjson  # noqa: E402

from .command import FINISHED, STOPPED, add_search_options, levels, seed  # noqa: E402
from .command import seconds as positive_seconds  # noqa: E402
from .games import GameError, parse_game  # noqa: E402
from .tree import (  # noqa: E402
    TreeError,
    TreeFileError,
    check_output,
    printable,
    read_tree,
    verify,
)

# Options that name a file a command writes: each is checked (check_output) before any work.
OUTPUT_OPTIONS = {"output": "-o", "checkpoint": "--checkpoint", "plot": "--plot"}
# Options that name files a command reads (a folder: its *.json files, as `compare --trees`
# reads them). No output may be one of them, nor another output of the same command; only
# --checkpoint is by design read and extended by one run, and is its own input.
INPUT_OPTIONS = {"file": "FILE", "files": "FILE", "trees": "--trees",
                 "checkpoint": "--checkpoint"}


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(next((a for a in argv if not a.startswith("-")), None))
    args = parser.parse_args(argv)
    args.started = started
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        check_files(args)
        return int(args.run(args) or 0)
    except (GameError, TreeError, ValueError) as exc:
        return _error(exc)
    except OSError as exc:  # at write time, after the checks: a full disk, a lost mount
        return _error(f"{exc.filename}: {exc.strerror}" if exc.filename else exc)
    except MemoryError:
        return _error("out of memory: the memory available to this process is too small")
    except KeyboardInterrupt:
        print("moo: interrupted", file=sys.stderr)
        return 130


def check_files(args: argparse.Namespace) -> None:
    """Before any work: each output a place ``write_atomic`` can write (check_output), and no
    output the same file as an input or another output of the command (compared as files:
    links, hard links and other spellings of one path count as the same), so that writing it
    never destroys what the command reads or writes."""
    outputs = [(flag, getattr(args, dest)) for dest, flag in OUTPUT_OPTIONS.items()
               if getattr(args, dest, None) is not None]
    for _, path in outputs:
        check_output(path)
    named = list(outputs)
    for dest, label in INPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if value is None or (dest in OUTPUT_OPTIONS and (label, value) in outputs):
            continue  # absent, or an output already named (--checkpoint: its own input)
        for path in value if isinstance(value, list) else [value]:
            named += [(label, p) for p in _read_files(path)]
    for i, (flag, path) in enumerate(outputs):
        for label, other in named[:i] + named[i + 1:]:
            if _same_file(path, other):
                role = ("which this run reads and extends" if label == "--checkpoint" else
                        "which this command also writes" if (label, other) in outputs else
                        "which this command reads")
                raise ValueError(
                    f"{flag} {printable(path)}: the same file as {label} {printable(other)}, "
                    f"{role}: writing one would destroy the other (name another file)")


def _read_files(path: str) -> list[str]:
    """The files an input option names: the file, or a folder's *.json files."""
    from pathlib import Path

    if os.path.isdir(path):
        return sorted(str(p) for p in Path(path).glob("*.json"))
    return [path]


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same file on disk (hard links, symbolic links),
    or, for files not there yet, the same place once links are followed."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _error(what) -> int:
    """One line on standard error, exit status 2."""
    print(f"moo: error: {printable(what)}", file=sys.stderr)
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
    import atexit

    atexit.register(_leave)  # registered first: runs last, after every other exit handler
    # The cycle collector's youngest generation collected every 10000 new objects, not 700:
    # importing numba and loading its kernels create some 10^6 objects, and collecting every
    # 700 cost 0.14 s of a small game's build, against 0.05 s so.
    gc.set_threshold(10_000, 10, 10)
    status = main()
    _STATUS.append(status)
    raise SystemExit(status)


_STATUS: list[int] = []  # main's exit status, once it has returned


def _leave() -> None:
    """The process's last step once ``main`` has returned: after Python has joined its threads
    and run every other exit handler, end without the interpreter's teardown, which frees every
    object one at a time: 0.1-0.2 s once numba and LLVM are loaded, a sixth of a small game's
    build. The output streams are flushed first; should that fail (or ``main`` not have
    returned), the exit is left to Python, which reports it as usual. Exit handlers registered
    after this one (Dask's, multiprocessing's, weakref.finalize's, engine._remove_launcher)
    have run: none is registered before ``entry`` starts."""
    if not _STATUS:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: started with that stream closed
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(_STATUS[0])


def _interrupted(signum, frame) -> None:
    """Ctrl-C, kill or hang-up: KeyboardInterrupt in the main thread. Python swallows an
    exception raised inside a gc callback (Dask's scheduler installs one in this process) or a
    finalizer (``__del__``: llvmlite frees compiled modules so), so a signal that lands there is
    delivered again a moment later instead of being lost."""
    if _where_swallowed(frame):
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    import signal

    raise KeyboardInterrupt(signal.Signals(signum).name)  # named in `moo play --json`'s last line


def _where_swallowed(frame) -> bool:
    """Whether an exception raised in ``frame`` would be printed and dropped by Python: the
    frame runs inside a gc callback or a ``__del__`` method."""
    codes = {getattr(getattr(cb, "__func__", cb), "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        if frame.f_code in codes or frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _parser(command: str | None = "") -> argparse.ArgumentParser:
    """The parser; of the commands that live in their own modules, only ``command``'s is
    imported and configured (the others are listed, for the help), unless it is "" (all)."""
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
        help="exact search: height, total, height,total, total,height, total@K, "
             "height,deepest, deepest@K",
    )
    build.add_argument("--guesses", choices=("any", "consistent"), default="any")
    build.add_argument("--seed", type=seed, default=0,
                       help="seed of random strategies (0 to 2**64 - 1)")
    build.add_argument("--checkpoint", metavar="FILE", default=None,
                       help="exact objectives: facts about first guesses from earlier runs "
                            "(refuted heights, least totals, the best tree); this run adds its "
                            "own, so a long search goes on where it stopped")
    build.add_argument("--lookahead", type=levels, default=0, metavar="K",
                       help="least-cost objectives: before the search, raise every first "
                            "guess's lower bound by the lookahead bound K guesses deep, lowest "
                            "first (for games too large to finish: a proven bound, and a gap)")
    build.add_argument("--improve", type=positive_seconds, default=0.0, metavar="SECONDS",
                       help="least-total objectives: before the search, spend up to this long "
                            "improving the greedy tree by rollouts (a better tree to beat)")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    add_search_options(build)
    build.add_argument("-o", "--output", required=True, help="tree file to write")
    build.set_defaults(run=cmd_build)

    ver = sub.add_parser("verify", help="replay every secret through a stored tree")
    ver.add_argument("file")
    ver.add_argument("--json", action="store_true", help="print the result as JSON")
    ver.add_argument("--recheck", action="store_true",
                     help=f"also run the exact search for the file's objective (games of at "
                          f"most {RECHECK_MAX_CODES} codes) and compare it with the file's claims")
    ver.set_defaults(run=cmd_verify)

    # Commands that live in their own modules: each module has configure(subparser) and run(args).
    for name, module, text in (
        ("play", "player", "play a stored tree against a person, or be the code maker"),
        ("prove", "prove", "prove that K guesses are the optimal worst case of a game"),
        ("compare", "compare", "every strategy and stored tree of a game side by side"),
        ("checkpoint", "checkpoints", "show, merge or verify checkpoint files of long searches"),
        ("page", "page", "write one HTML file that plays a stored tree in a browser"),
    ):
        _plug(sub, name, module, text, command in ("", name))
    return parser


def _plug(sub, name: str, module: str, text: str, load: bool = True) -> None:
    """Add the command of ``module`` (configure and run); ``load`` False: listed only, its
    module not imported (a command imports the modules of others for nothing: 0.03 s)."""
    import importlib
    import importlib.util

    if not load:
        if importlib.util.find_spec(f"{__package__}.{module}") is not None:
            sub.add_parser(name, help=text, description=text)
        return
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
    """The game's facts by numpy alone, no kernel loaded: the first-guess classes from its
    symmetry group, the feedback classes from the rows of one guess per class (every pair maps
    by a symmetry to a pair whose guess is one of them), never the whole matrix."""
    game = parse_game(args.game)
    start = time.perf_counter()
    first = game.first_guesses()
    values = game.feedback_classes(first)
    seconds = time.perf_counter() - start
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
    print(f"first-guess classes: {len(first)}")
    print(f"computed in:      {seconds:.2f} s (one guess per first-guess class; no feedback "
          "matrix)")
    return 0


def cmd_build(args) -> int:
    from .objective import bound_note
    from .search.build import build
    from .search.observer import Observer
    from .search.request import Request
    from .tree import checkpoint_facts, resting, write_tree

    game = parse_game(args.game)
    tree = build(Request(
        game, objective=args.objective, strategy=args.strategy, guesses=args.guesses,
        seed=args.seed, time_limit=args.time_limit, started=args.started, workers=args.workers,
        scheduler=args.scheduler, checkpoint=args.checkpoint, lookahead=args.lookahead,
        improve=args.improve), Observer(quiet=args.quiet))
    tree.meta.setdefault("build_seconds", round(time.monotonic() - args.started, 3))
    stats = write_tree(tree, args.output)
    stopped = bool(tree.meta.get("stopped"))
    taken = checkpoint_facts(tree)
    label = resting("optimal", taken) if tree.optimal else (
        "stopped early, not proven optimal" if stopped else "not proven optimal")
    print(
        f"{game.spec} {tree.objective} ({tree.guesses} guesses, {label}): "
        f"height {stats['height']}, "
        f"total {stats['total']}, average {stats['total'] / stats['secrets']:.4f} "
        f"-> {printable(args.output)}"
    )
    if tree.lower_bound is not None and not tree.optimal:
        print(resting(f"proven: {bound_note(tree)}", taken))
    if taken:
        print(f"taken from {printable(args.checkpoint)}: {taken} facts about first guesses "
              "settled by earlier runs (claims this run did not check; `moo checkpoint verify` "
              "re-proves them; the tree's meta.checkpoint_facts records the count)")
    return STOPPED if stopped else FINISHED


# --recheck runs the exact search again: seconds for Mastermind 4x6 (1296 codes) and moo
# 10,11,12, minutes or more for the larger games, which `moo prove` and `moo build` are for.
RECHECK_MAX_CODES = 1296


def cmd_verify(args) -> int:
    from .tree import checkpoint_facts, proof

    try:
        tree = read_tree(args.file)
    except TreeFileError:
        raise
    except TreeError as exc:  # the file is there but holds no valid tree: a defect
        if args.json:
            out = {"file": args.file, "ok": False, "defects": [str(exc)]}
            print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        else:
            print(f"DEFECT: {printable(exc)}")
        return 1
    if args.recheck:
        _check_recheck(tree)  # refused before any work
    result = verify(tree)
    recheck = _recheck(tree, result) if args.recheck and not result.defects else None
    if recheck:
        result.defects += recheck["defects"]
    ok = not result.defects
    if args.json:
        out = {"file": args.file, "game": tree.game.spec, "ok": ok, **result.as_json()}
        out["average"] = round(result.average, 6)
        out["defects"] = result.defects
        out["proof"] = proof(tree, result)  # of the optimality claim (tree.proof)
        out["checkpoint_facts"] = checkpoint_facts(tree)
        if recheck:
            out["recheck"] = {k: v for k, v in recheck.items() if k != "defects"}
        print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return 0 if ok else 1
    print(f"{printable(args.file)}: {tree.game.spec}, objective {printable(tree.objective)}, "
          f"{tree.guesses} guesses")
    if not ok:
        print("DEFECTS:")
        for defect in result.defects:
            print(f"  - {printable(defect)}")
        return 1
    hist = ", ".join(f"{k}: {v}" for k, v in sorted(result.histogram.items()))
    print(f"secrets {result.secrets}, height {result.height}, total {result.total}, "
          f"average {result.average:.4f}")
    print(f"histogram (guesses: secrets) {hist}")
    print("OK: every secret is solved and the stored stats match")
    claim = _claim_line(tree, result)
    if claim:
        print(claim)
    if recheck:
        print(f"RECHECK OK: {recheck['summary']}")
    return 0


def _claim_line(tree, result) -> str:
    """What a sound tree claims and what the claim rests on: ``optimal: proven`` (by the search
    that wrote it), ``optimal: proven, resting on N checkpoint facts`` (taken unchecked from an
    earlier run's file: replaying the tree cannot re-check them), or the proven bounds."""
    from .objective import bound_note
    from .tree import checkpoint_facts, proof, provenance_note, resting

    taken = checkpoint_facts(tree)
    note = f" ({provenance_note(tree)})" if taken else ""
    if tree.optimal:
        return f"optimal ({printable(tree.objective)}): {proof(tree, result)}{note}"
    if tree.lower_bound is not None:
        return f"not proven optimal; {resting('proven', taken)}: {bound_note(tree)}{note}"
    return ""


def _check_recheck(tree) -> None:
    """--recheck only where the exact search is feasible: an exact objective, a small game."""
    from .objective import exact_objective

    if exact_objective(tree.objective) is None:
        raise ValueError(f"--recheck: objective {printable(repr(tree.objective))[:60]} is not an "
                         "exact objective (height, total, height,total, total,height, total@K, "
                         "height,deepest, deepest@K): there is no optimum to recompute")
    if tree.game.n_codes > RECHECK_MAX_CODES:
        raise ValueError(f"--recheck: {tree.game.spec} has {tree.game.n_codes} codes; the exact "
                         f"search is rerun only for games of at most {RECHECK_MAX_CODES} codes "
                         "(use moo prove or moo build for larger ones)")


def _recheck(tree, result) -> dict:
    """Run the exact search for the file's objective and hold the file's claims against it:
    ``optimal: true`` needs the tree's value to be the optimum; ``lower_bound`` must not exceed
    the optimum's first component."""
    from .objective import exact_objective
    from .search.build import build
    from .search.observer import Observer
    from .search.request import Request

    objective = exact_objective(tree.objective)
    start = time.perf_counter()
    best = build(Request(tree.game, objective.name, guesses=tree.guesses), Observer())
    seconds = time.perf_counter() - start
    if not best.optimal:
        raise ValueError(f"--recheck: the exact search for {objective.name} did not finish")
    optimum = objective.value(best.replayed)
    own = objective.value(result)
    names = ",".join(objective.components)
    shown = ", ".join(map(str, optimum))
    defects = []
    if tree.optimal and own != optimum:
        defects.append(f"optimal: true, but the exact search finds {names} {shown} and this "
                       f"tree has {', '.join(map(str, own))}")
    if own < optimum:
        defects.append(f"the tree ({', '.join(map(str, own))}) beats the exact search's optimum "
                       f"({shown}): the search or the replay is wrong")
    if tree.lower_bound is not None and tree.lower_bound > optimum[0]:
        defects.append(f"lower_bound: {tree.lower_bound} is above the optimum {objective.first} "
                       f"{optimum[0]} found by the exact search")
    if tree.optimal:
        summary = f"the exact search confirms the optimum {names} {shown}"
    elif own == optimum:
        summary = f"the tree is in fact optimal: the exact search finds {names} {shown}"
    else:
        summary = (f"the exact search finds {names} {shown}; the file claims no optimality and "
                   "its lower bound holds")
    return {"objective": objective.name, "optimum": list(optimum), "tree": list(own),
            "seconds": round(seconds, 3), "summary": summary, "defects": defects}
