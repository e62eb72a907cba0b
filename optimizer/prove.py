"""``moo prove GAME --height K``: checks the claim "K guesses is the optimal worst case".

Both halves come from one exhaustive least-height search: a tree of height K is built and replayed
over every secret, and the search that found no tree of height K - 1 considered every guess class
at every node (symmetry, partition and table pruning only skip guesses proven equivalent).
"""

from __future__ import annotations

import time

import orjson

from .games import parse_game


def configure(parser) -> None:
    parser.add_argument("game")
    parser.add_argument("--height", type=int, required=True, help="the claimed optimal height K")
    parser.add_argument("--guesses", choices=("any", "consistent"), default="any")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: 2)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-o", "--output", help="also write the tree of the optimal height")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="record each refuted first guess here, and skip those already "
                             "recorded: a long proof done over several runs")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="stop after this long (with --checkpoint, run again to go on)")


def prove_height(spec: str, claim: int, guesses: str = "any", workers: int | None = None,
                 progress: bool = True, output: str | None = None,
                 checkpoint: str | None = None, time_limit: float | None = None) -> dict:
    """Search the least height and return what was shown about the claim ("finished": False
    when the time limit ended the search first)."""
    from .search.build import height_incumbent
    from .search.checkpoint import Checkpoint
    from .search.driver import Driver
    from .search.exact import Solver
    from .tree import Tree, replay, write_tree

    if claim < 1:
        raise ValueError("--height must be at least 1")
    game = parse_game(spec)
    start = time.monotonic()
    log = Checkpoint(checkpoint, game, guesses) if checkpoint else None
    solver = Solver(game, guesses)
    setup = time.monotonic() - start
    driver = Driver(solver, workers=workers, progress=progress, time_limit=time_limit,
                    checkpoint=log)
    resumed = len(log.refuted) if log else 0
    try:
        found = driver.min_height(height_incumbent(game, guesses))
    finally:
        driver.close()
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
    }
    if log is not None:
        result["checkpoint"] = {"file": str(log.path), "refuted_before": resumed,
                                "refuted_now": len(log.refuted)}
    if not found.optimal:
        if time_limit is None:
            raise RuntimeError("the least-height search did not finish")
        return result
    optimum = found.value
    if found.root is not None:
        tree = Tree(game=game, root=found.root, objective="height", guesses=guesses,
                    optimal=True)
        check = replay(tree)
        result["tree"] = {"height": check.height, "total": check.total,
                          "replay_defects": len(check.defects)}
        if check.defects or check.height != optimum:
            raise RuntimeError("the search built a defective tree: " + "; ".join(check.defects))
        if output:
            tree.meta = {"program": "moo-optimizer", "proof": f"height {optimum - 1} impossible",
                         "build_seconds": result["search_seconds"], "nodes": result["nodes"]}
            write_tree(tree, output)
            result["tree"]["file"] = output
    result["achievable"] = optimum <= claim
    result["lower_impossible"] = optimum >= claim
    result["holds"] = optimum == claim
    return result


def run(args) -> int:
    result = prove_height(args.game, args.height, args.guesses, args.workers,
                          progress=not (args.quiet or args.json), output=args.output,
                          checkpoint=args.checkpoint, time_limit=args.time_limit)
    if args.json:
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
        return 2 if not result["finished"] else 0 if result["holds"] else 1
    if not result["finished"]:
        return _unfinished(result)
    k, opt = result["claim"], result["optimum"]
    print(f"claim: {result['game']} ({result['guesses']} guesses) needs exactly {k} guesses "
          "in the worst case")
    tree = result.get("tree")
    if result["achievable"]:
        print(f"  [yes] height {k} is enough: a tree of height {tree['height']} was built and "
              f"replayed over every secret (total {tree['total']})")
    else:
        print(f"  [no]  height {k} is not enough: no strategy solves every secret in {k}")
    if result["lower_impossible"]:
        print(f"  [yes] height {k - 1} is impossible: exhaustive search found no strategy "
              f"solving every secret in {k - 1}")
    else:
        print(f"  [no]  height {k - 1} is possible: the optimum is {opt}")
    print(f"  search: {result['nodes']} nodes in {result['search_seconds']:.2f} s "
          f"(+ {result['setup_seconds']:.2f} s set-up)")
    if tree and tree.get("file"):
        print(f"  tree of height {tree['height']} written to {tree['file']}")
    if result["holds"]:
        print(f"PROVEN: the optimal worst case is {k}")
        return 0
    print(f"CLAIM FAILS: the optimal worst case is {opt}")
    return 1


def _unfinished(result: dict) -> int:
    """The time limit came first: what is known so far (exit status 2)."""
    print(f"UNFINISHED: {result['game']} ({result['guesses']} guesses) after "
          f"{result['search_seconds']:.0f} s, {result['nodes']} nodes")
    if result["best_height"] is not None:
        print(f"  a tree of height {result['best_height']} was found")
    print(f"  proven: no strategy solves every secret in {result['lower_bound'] - 1}")
    log = result.get("checkpoint")
    if log:
        print(f"  first guesses refuted so far: {log['refuted_now']} "
              f"({log['refuted_now'] - log['refuted_before']} in this run), kept in "
              f"{log['file']}; run the same command again to go on")
    return 2
