"""``moo prove GAME --height K``: checks the claim "K guesses is the optimal worst case";
``moo prove GAME --height K --deepest N``: the claim "among trees of height K, the fewest secrets
needing all K guesses is N".

Both halves come from one exhaustive least-height search: a tree of height K is built and replayed
over every secret, and the search that found no tree of height K - 1 considered every guess class
at every node (symmetry, partition and table pruning only skip guesses proven equivalent). Root
classes taken from a checkpoint file are claims of earlier runs, not checked by this one: the
summary counts them apart and never calls them exhaustive search.
"""

from __future__ import annotations

import time
from collections import Counter

import orjson

from ..games import parse_game
from ..games.base import GUESS_MODES, counted
from ..provenance import resting
from ..tree import printable
from .options import GAME_HELP, GUESSES_HELP, add_search_options, whole_number
from .status import Exit


def configure(parser) -> None:
    parser.add_argument("game", help=GAME_HELP)
    parser.add_argument("--height", type=_height, required=True,
                        help="the claimed optimal height K")
    parser.add_argument("--deepest", type=_secrets, default=None, metavar="N",
                        help="claim instead: among trees of height K, at least N secrets need "
                             "all K guesses, and a tree with exactly N exists")
    parser.add_argument("--guesses", choices=GUESS_MODES, default="any", help=GUESSES_HELP)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-o", "--output", help="also write the tree of the optimal height")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="record each refuted first guess here, and skip those already "
                             "recorded: a long proof done over several runs")
    add_search_options(parser)


def _height(text: str) -> int:
    return whole_number(text, 1, "guesses")


def _secrets(text: str) -> int:
    return whole_number(text, 0, "secrets")


def prove_height(spec: str, claim: int, guesses: str = "any", workers: int | None = None,
                 progress: bool = True, output: str | None = None,
                 checkpoint: str | None = None, time_limit: float | None = None,
                 scheduler: str | None = None, started: float | None = None,
                 table_bits: int | None = None) -> dict:
    """Search the least height and return what was shown about the claim ("finished": False
    when a time limit or a signal ended the search first). ``started``: the time.monotonic() of
    the command's start, from which the time limit counts."""
    from ..formats.tree_file import write_tree
    from ..search.strategies import height_incumbent
    from ..tree import Tree, checked

    if claim < 1:
        raise ValueError("--height must be at least 1")
    start = started if started is not None else time.monotonic()
    game = parse_game(spec)
    with _search(game, guesses, progress, time_limit=time_limit, started=start,
                 workers=workers, scheduler=scheduler, checkpoint=checkpoint,
                 table_bits=table_bits) as search:
        log = search.checkpoint
        before = len(log.refuted) if log else 0
        incumbent = height_incumbent(game, guesses, search.deadline)
        search.ready(("height",))
        setup = time.monotonic() - start
        found = search.min_height(incumbent)
        where = search.engine.where
    result = {
        "game": game.spec,
        "guesses": guesses,
        "claim": claim,
        "finished": found.optimal,
        "optimum": found.value if found.optimal else None,
        "lower_bound": found.lower_bound,
        "best_height": found.value if found.root is not None else None,
        "setup_seconds": round(setup, 3),
        "search_seconds": round(found.seconds, 3),
        "nodes": found.nodes,
        "engine": where,
        # the depth that was refuted last: its classes searched now and taken from the file
        "classes_searched": found.searched,
        "classes_taken": found.taken,
        # what the proof rests on besides this run's search (provenance.checkpoint_facts)
        "checkpoint_facts": found.taken,
    }
    if log is not None:
        heights = Counter(entry["height"] for entry in log.refuted.values())
        result["checkpoint"] = {"file": str(log.path), "refuted_before": before,
                                "refuted_now": len(log.refuted),
                                # a class refuted within h guesses counts towards claims of h + 1
                                "refuted_by_height": {str(h): n for h, n in sorted(
                                    heights.items(), reverse=True)},
                                "corrected": log.corrections}  # facts of the file found false
    if not found.optimal:
        if output and found.root is not None:  # the best tree in hand, with the bound proven
            _write_stopped(game, guesses, found, output, result, log)
        return result
    optimum = found.value
    tree = checked(Tree(game=game, root=found.root, objective="height", guesses=guesses,
                        optimal=True), lambda replayed: replayed.height, optimum)
    check = tree.replayed
    result["tree"] = {"height": check.height, "total": check.total,
                      "replay_defects": len(check.defects)}
    if output:
        tree.meta = _height_meta(result, found, log, proof=f"height {optimum - 1} impossible")
        write_tree(tree, output)
        result["tree"]["file"] = output
    result["achievable"] = optimum <= claim
    result["lower_impossible"] = optimum >= claim
    result["holds"] = optimum == claim
    result["proof"] = resting("proven", found.taken) if result["holds"] else "not proven"
    return result


def _write_stopped(game, guesses: str, found, output: str, result: dict, log) -> None:
    """``prove -o`` stopped early: the tree found so far, not optimal, its proven lower bound
    and ``meta.stopped`` written (as a stopped build writes its tree)."""
    from ..formats.tree_file import write_tree
    from ..tree import Tree, checked

    lower = found.lower_bound if 0 < found.lower_bound <= found.value else None
    tree = checked(Tree(game=game, root=found.root, objective="height", guesses=guesses,
                        optimal=False, lower_bound=lower))
    tree.meta = _height_meta(result, found, log, stopped=True)
    write_tree(tree, output)
    result["tree"] = {"height": tree.replayed.height, "total": tree.replayed.total,
                      "file": output}


def _height_meta(result: dict, found, log, **first) -> dict:
    """What a height proof's tree records of its search (``first``: what it proved, or that it
    stopped), and of the checkpoint facts it took (provenance.checkpoint_facts)."""
    meta = {"program": "moo-optimizer", **first, "build_seconds": result["search_seconds"],
            "nodes": result["nodes"]}
    if found.taken:
        meta["classes_from_checkpoint"] = found.taken
    if log is not None:
        meta["checkpoint"] = str(log.path)
        meta["checkpoint_facts"] = found.taken
    return meta


def prove_deepest(spec: str, height: int, claim: int, guesses: str = "any",
                  workers: int | None = None, progress: bool = True, output: str | None = None,
                  checkpoint: str | None = None, time_limit: float | None = None,
                  scheduler: str | None = None, started: float | None = None,
                  table_bits: int | None = None) -> dict:
    """Search the fewest secrets solved with exactly ``height`` guesses among trees of height at
    most ``height`` and return what was shown about the claim that it is ``claim``."""
    from ..formats.tree_file import write_tree
    from ..objective import cost_value
    from ..search.strategies import height_incumbent
    from ..tree import Tree, checked

    if height < 1 or claim < 0:
        raise ValueError("--height must be at least 1 and --deepest at least 0")
    start = started if started is not None else time.monotonic()
    game = parse_game(spec)
    with _search(game, guesses, progress, time_limit=time_limit, started=start,
                 workers=workers, scheduler=scheduler, checkpoint=checkpoint,
                 table_bits=table_bits) as search:
        incumbent = height_incumbent(game, guesses, search.deadline)
        search.ready(("height", "total"))
        setup = time.monotonic() - start
        low = search.min_height(incumbent)
        found = low
        if low.optimal and low.value <= height:
            found, _ = search.fewest_deepest(height, low.root, lexicographic=False)
        where = search.engine.where
    result = {
        "game": game.spec, "guesses": guesses, "height": height, "claim": claim,
        "finished": found.optimal, "least_height": low.value if low.optimal else None,
        "optimum": found.value if found.optimal and found is not low else None,
        "lower_bound": found.lower_bound if found is not low else None,
        "setup_seconds": round(setup, 3), "search_seconds": round(low.seconds + (
            found.seconds if found is not low else 0), 3),
        "nodes": low.nodes + (found.nodes if found is not low else 0), "engine": where,
        "classes_searched": found.searched, "classes_taken": found.taken,
        "checkpoint_facts": found.taken,
    }
    if search.checkpoint is not None:  # the file's facts this run found false, corrected
        result["checkpoint"] = {"file": checkpoint, "corrected": search.checkpoint.corrections}
    if not found.optimal:
        return result
    if found is low:  # the least height is above the claim's: no tree of that height at all
        result.update(optimum=None, holds=False, achievable=False, lower_impossible=False)
        return result
    tree = checked(Tree(game=game, root=found.root, objective=f"deepest@{height}",
                        guesses=guesses), lambda replayed: cost_value(
        "deep", height, replayed) if replayed.height <= height else None, found.value)
    check = tree.replayed
    deepest = cost_value("deep", height, check)
    result["tree"] = {"height": check.height, "total": check.total, "deepest": deepest}
    if output:
        tree.meta = {"program": "moo-optimizer", "proof": f"fewer than {deepest} secrets at "
                     f"depth {height} impossible", "deep_search": found.effort()}
        if checkpoint:
            tree.meta.update(checkpoint=checkpoint, checkpoint_facts=found.taken)
        write_tree(tree, output)
        result["tree"]["file"] = output
    result["achievable"] = found.value <= claim
    result["lower_impossible"] = found.value >= claim
    result["holds"] = found.value == claim
    result["proof"] = resting("proven", found.taken) if result["holds"] else "not proven"
    return result


def _search(game, guesses: str, progress: bool, **options):
    """The search both proofs run (``options``: Request's), one place for what they share."""
    from ..search.objectives import Search
    from ..search.observer import Observer
    from ..search.request import Request

    return Search(Request(game, guesses=guesses, **options), Observer(quiet=not progress))


def _search_options(args) -> dict:
    """The command line's search options as both proofs take them: one list, so that an option
    added reaches both."""
    return {"workers": args.workers, "checkpoint": args.checkpoint,
            "time_limit": args.time_limit, "scheduler": args.scheduler,
            "started": args.started, "table_bits": args.table_bits}


def run(args) -> Exit:
    if args.deepest is not None:
        return _run_deepest(args)
    result = prove_height(args.game, args.height, args.guesses,
                          progress=not (args.quiet or args.json), output=args.output,
                          **_search_options(args))
    if args.json:
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
        if not result["finished"]:
            return Exit.STOPPED
        return Exit.FINISHED if result["holds"] else Exit.FAILED
    if not result["finished"]:
        return _unfinished(result)
    k, opt = result["claim"], result["optimum"]
    print(f"claim: {result['game']} ({result['guesses']} guesses) needs exactly "
          f"{counted(k, 'guess')} in the worst case")
    tree = result.get("tree")
    _judged(result["achievable"],
            lambda: f"height {k} is enough: a tree of height {tree['height']} was built and "
                    f"replayed over every secret (total {tree['total']})",
            lambda: f"height {k} is not enough: {_why_not(result, k)}")
    _judged(result["lower_impossible"],
            lambda: f"height {k - 1} is impossible: {_why_not(result, k - 1)}",
            lambda: f"height {k - 1} is possible: the optimum is {opt}")
    _search_line(result)
    if tree and tree.get("file"):
        print(f"  tree of height {tree['height']} written to {tree['file']}")
    taken = result["checkpoint_facts"]
    if result["holds"]:
        if taken:
            print(f"{resting('PROVEN', taken)}: {taken} first-guess classes taken from "
                  f"{printable(result['checkpoint']['file'])} as refuted (not checked by this "
                  f"run; `moo checkpoint verify` re-proves them): the optimal worst case is {k}")
        else:
            print(f"PROVEN: the optimal worst case is {k}")
        return Exit.FINISHED
    # too low a claim fails by the refutation of opt - 1, which may rest on the file's facts
    print(f"{resting('CLAIM FAILS', taken if k < opt else 0)}: the optimal worst case is {opt}")
    return Exit.FAILED


def _run_deepest(args) -> Exit:
    result = prove_deepest(args.game, args.height, args.deepest, args.guesses,
                           progress=not (args.quiet or args.json), output=args.output,
                           **_search_options(args))
    if args.json:
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    k, n, opt = result["height"], result["claim"], result["optimum"]
    if not result["finished"]:
        if not args.json:
            print(f"UNFINISHED: {result['game']} ({result['guesses']} guesses) after "
                  f"{result['search_seconds']:.0f} s, {result['nodes']} nodes; proven so far: "
                  f"at least {result['lower_bound'] or 0} secrets need {counted(k, 'guess')}")
        return Exit.STOPPED
    if args.json:
        return Exit.FINISHED if result["holds"] else Exit.FAILED
    print(f"claim: {result['game']} ({result['guesses']} guesses): among trees of height {k}, "
          f"the fewest secrets needing all {counted(k, 'guess')} is {n}")
    if opt is None:
        print(f"CLAIM FAILS: no tree has height {k}; the least height is "
              f"{result['least_height']}")
        return Exit.FAILED
    tree = result["tree"]
    built = (f"a tree of height {tree['height']} with {counted(opt, 'secret')} at depth {k} was "
             f"built and replayed over every secret (total {tree['total']})")
    how = (f"counting alone rules out fewer than {opt} (no search needed)"
           if not result["classes_searched"] and not result["classes_taken"] else
           f"exhaustive search found none with fewer than {opt}") + (
        "" if not result["classes_taken"] else
        f", with {result['classes_taken']} first-guess classes taken from "
        f"{result['checkpoint']['file']} (not checked by this run)")
    _judged(result["achievable"], lambda: f"{n} or fewer is achievable: {built}",
            lambda: f"{n} or fewer is not achievable: {how}")
    _judged(result["lower_impossible"], lambda: f"fewer than {n} is impossible: {how}",
            lambda: f"fewer than {n} is possible: {built}")
    _search_line(result)
    if tree.get("file"):
        print(f"  tree written to {tree['file']}")
    if result["holds"]:
        taken = result["checkpoint_facts"]
        rests = f" ({taken} first-guess classes taken from the checkpoint, not checked by this " \
            "run; `moo checkpoint verify` re-proves them)" if taken else ""
        print(f"{resting('PROVEN', taken)}{rests}: among trees of height {k}, the fewest secrets "
              f"needing {counted(k, 'guess')} is {n}")
        return Exit.FINISHED
    print(f"CLAIM FAILS: the fewest is {opt}")
    return Exit.FAILED


def _judged(holds: bool, yes, no) -> None:
    """One half of a claim, marked: ``yes()`` when it holds, else ``no()`` (each text made only
    when shown: the other may name a tree that does not exist)."""
    print(f"  [yes] {yes()}" if holds else f"  [no]  {no()}")


def _search_line(result: dict) -> None:
    print(f"  search: {result['nodes']} nodes in {result['search_seconds']:.2f} s "
          f"(+ {result['setup_seconds']:.2f} s set-up) on {result['engine']}")


def _why_not(result: dict, height: int) -> str:
    """Why ``height`` (at most the least height less one) is impossible: the proof is of the
    least height less one, which rules out every lower one."""
    least = result["optimum"] - 1
    how = _how_refuted(result, least)
    return how if height == least else f"even height {least} is impossible: {how}"


def _how_refuted(result: dict, height: int) -> str:
    """Who refuted ``height``, the least height less one: this run's exhaustive search, the
    checkpoint file, or both."""
    searched, taken = result["classes_searched"], result["classes_taken"]
    if not taken and not searched:  # the counting bound: no class was even looked at
        return (f"counting alone rules it out: whatever the opening, the feedbacks cannot tell "
                f"the secrets apart within {counted(height, 'guess')} (no search needed)")
    if not taken:
        return f"exhaustive search found no strategy solving every secret in {height}"
    log = result["checkpoint"]["file"]
    if not searched:
        return (f"all {taken} first-guess classes not ruled out by counting are listed as "
                f"refuted in {log}; this run searched none of them")
    return (f"{searched} first-guess classes refuted by exhaustive search now, {taken} taken "
            f"as refuted from {log}")


def _unfinished(result: dict) -> Exit:
    """Stopped early (a time limit or a signal): what is known so far."""
    print(f"UNFINISHED: {result['game']} ({result['guesses']} guesses) after "
          f"{result['search_seconds']:.0f} s, {result['nodes']} nodes")
    if result["best_height"] is not None:
        written = result.get("tree", {}).get("file")
        print(f"  a tree of height {result['best_height']} was found"
              + (f", written to {printable(written)} (not proven optimal)" if written else ""))
    print(f"  proven: no strategy solves every secret in {result['lower_bound'] - 1}")
    log = result.get("checkpoint")
    if log:
        within = ", ".join(f"{count} within {height} guess{'es' * (height != '1')}"
                           for height, count in log["refuted_by_height"].items())
        print(f"  first guesses refuted so far: {within or 'none'} "
              f"({log['refuted_now'] - log['refuted_before']} in this run), kept in "
              f"{log['file']}; run the same command again to go on")
    return Exit.STOPPED
