"""``moo verify``: replay every secret through a stored tree and hold its claims against the
replay; ``--recheck`` runs the exact search again for small games."""

from __future__ import annotations

import argparse
import time

import orjson

from ..formats.tree_file import TreeFileError, read_tree
from ..provenance import checkpoint_facts, opening_note, proof, provenance_note, resting, verify
from ..tree import TreeError, printable
from .status import Exit

# --recheck runs the exact search again: seconds for Mastermind 4x6 (1296 codes) and moo
# 10,11,12, minutes or more for the larger games, which `moo prove` and `moo build` are for.
RECHECK_MAX_CODES = 1296


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--recheck", action="store_true",
                        help=f"also run the exact search for the file's objective (games of "
                             f"at most {RECHECK_MAX_CODES} codes) and compare it with the "
                             "file's claims")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar during --recheck's search")


def run(args: argparse.Namespace) -> Exit:
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
        return Exit.FAILED
    if args.recheck:
        _check_recheck(tree)  # refused before any work
    result = verify(tree)
    recheck = _recheck(tree, result, args.quiet) if args.recheck and not result.defects else None
    if recheck:
        result.defects += recheck["defects"]
    ok = not result.defects
    if args.json:
        out = {"file": args.file, "game": tree.game.spec, "ok": ok, **result.as_json()}
        out["average"] = round(result.average, 6)
        out["defects"] = result.defects
        out["proof"] = proof(tree, result)  # of the optimality claim (provenance.proof)
        out["checkpoint_facts"] = checkpoint_facts(tree)
        if recheck:
            out["recheck"] = {k: v for k, v in recheck.items() if k != "defects"}
        print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return Exit.FINISHED if ok else Exit.FAILED
    print(f"{printable(args.file)}: {tree.game.spec}, objective {printable(tree.objective)}, "
          f"{tree.guesses} guesses")
    if not ok:
        print("DEFECTS:")
        for defect in result.defects:
            print(f"  - {printable(defect)}")
        return Exit.FAILED
    hist = ", ".join(f"{k}: {v}" for k, v in sorted(result.histogram.items()))
    print(f"secrets {result.secrets}, height {result.height}, total {result.total}, "
          f"average {result.average:.4f}")
    print(f"histogram (guesses: secrets) {hist}")
    print("OK: every secret is solved and the stored stats match")
    claim = _claim_line(tree, result)
    if claim:
        print(claim)
    if claim and not recheck and opening_note(tree) is None:  # replaying cannot check the
        print(f"  (the file's claim, from the search that wrote it: not re-proved here; "  # proof
              f"{_reproved_by(tree)} re-proves it)")
    if recheck:
        print(f"RECHECK OK: {recheck['summary']}")
    return Exit.FINISHED


def _reproved_by(tree) -> str:
    """What re-proves a stored claim of this tree: --recheck on a small game, else the build
    that wrote it."""
    import shlex

    if tree.game.n_codes <= RECHECK_MAX_CODES:
        return "--recheck"
    game = tree.game.spec if tree.game.spec != "words" else "words:ANSWERS,GUESSES"
    mode = "" if tree.guesses == "any" else f" --guesses {tree.guesses}"
    return f"`moo build {shlex.quote(game)} --objective {shlex.quote(tree.objective)}{mode}`"


def _claim_line(tree, result) -> str:
    """What a sound tree claims and what the claim rests on: ``optimal: proven`` (by the search
    that wrote it), ``optimal: proven, resting on N checkpoint facts`` (taken unchecked from an
    earlier run's file: replaying the tree cannot re-check them), or the proven bounds."""
    from ..objective import bound_note

    taken = checkpoint_facts(tree)
    note = f" ({provenance_note(tree)})" if taken else ""
    opening = opening_note(tree)
    if opening is not None:
        proven, among = opening
        if proven:
            return (f"optimal {among} ({printable(tree.objective)}): claimed by the search that "
                    "wrote it (a search of one opening; no optimum over every opening)")
        bound = tree.meta["opening"].get("lower_bound")
        return f"not proven optimal {among}" + (f"; lower bound {bound}" if bound else "")
    if tree.optimal:
        return f"optimal ({printable(tree.objective)}): {proof(tree, result)}{note}"
    if tree.lower_bound is not None:
        return f"not proven optimal; {resting('proven', taken)}: {bound_note(tree)}{note}"
    return ""


def _check_recheck(tree) -> None:
    """--recheck only where the exact search is feasible: an exact objective, a small game."""
    from ..objective import EXACT_NAMES, exact_objective

    if exact_objective(tree.objective) is None:
        raise ValueError(f"--recheck: objective {printable(repr(tree.objective))[:60]} is not an "
                         f"exact objective ({EXACT_NAMES}): there is no optimum to recompute")
    if tree.game.n_codes > RECHECK_MAX_CODES:
        raise ValueError(f"--recheck: {tree.game.spec} has {tree.game.n_codes} codes; the exact "
                         f"search is rerun only for games of at most {RECHECK_MAX_CODES} codes "
                         "(use moo prove or moo build for larger ones)")


def _recheck(tree, result, quiet: bool = False) -> dict:
    """Run the exact search for the file's objective and hold the file's claims against it:
    ``optimal: true`` needs the tree's value to be the optimum; ``lower_bound`` must not exceed
    the optimum's first component."""
    from ..objective import exact_objective

    objective = exact_objective(tree.objective)
    start = time.perf_counter()
    optimum = _optimum(tree, objective, quiet)
    seconds = time.perf_counter() - start
    own = objective.value(result)
    names = ",".join(objective.components)
    shown = _values(optimum)
    defects = []
    if tree.optimal and own != optimum:
        defects.append(f"optimal: true, but the exact search finds {names} {shown} and this "
                       f"tree has {_values(own)}")
    if own < optimum:
        defects.append(f"the tree ({_values(own)}) beats the exact search's optimum "
                       f"({shown}): the search or the replay is wrong")
    if tree.lower_bound is not None and tree.lower_bound > optimum[0]:
        defects.append(f"lower_bound: {tree.lower_bound} is above the optimum {objective.first} "
                       f"{optimum[0]} found by the exact search")
    opening = _recheck_opening(tree, objective, own, quiet)
    defects += opening["defects"]
    if tree.optimal:
        summary = f"the exact search confirms the optimum {names} {shown}"
    elif own == optimum:
        summary = f"the tree is in fact optimal: the exact search finds {names} {shown}"
    else:
        summary = (f"the exact search finds {names} {shown}; the file claims no optimality and "
                   "its lower bound holds")
    summary += opening["summary"]
    return {"objective": objective.name, "optimum": list(optimum), "tree": list(own),
            "seconds": round(seconds, 3), "summary": summary, "defects": defects}


def _recheck_opening(tree, objective, own: tuple[int, ...], quiet: bool) -> dict:
    """A tree built with --first claims its value among the trees opening with its root's
    guess (``meta.opening``): the exact search of that opening holds the claim, and the
    opening's lower bound, as the whole search holds ``optimal`` and ``lower_bound``."""
    from ..provenance import opening_note

    if opening_note(tree) is None:
        return {"defects": [], "summary": ""}
    claim = tree.meta["opening"]
    code = tree.game.format_code(tree.root.guess)
    optimum = _optimum(tree, objective, quiet, first=code)
    shown = _values(optimum)
    names = ",".join(objective.components)
    defects = []
    if claim["optimal"] and own != optimum:
        defects.append(f"meta.opening: optimal among trees opening with {code}, but the exact "
                       f"search of that opening finds {names} {shown} and this tree has "
                       f"{_values(own)}")
    lower = claim.get("lower_bound")
    if isinstance(lower, int) and lower > optimum[0]:
        defects.append(f"meta.opening.lower_bound: {lower} is above that opening's optimum "
                       f"{objective.first} {optimum[0]}")
    return {"defects": defects,
            "summary": f"; opening with {code}, the exact search finds {names} {shown}"}


def _optimum(tree, objective, quiet: bool, first: str | None = None) -> tuple[int, ...]:
    """The optimum of ``objective`` for the tree's game and guess mode (``first``: among the
    trees opening with that code), by the exact search; a search that did not finish (a
    signal) is an error, never an optimum to hold a claim against."""
    from ..search.build import build
    from ..search.observer import Observer
    from ..search.request import Request

    best = build(Request(tree.game, objective.name, guesses=tree.guesses, first=first),
                 Observer(quiet=quiet))
    finished = best.optimal if first is None else \
        best.meta.get("opening", {}).get("optimal") is True
    if not finished:
        what = f"for {objective.name}" if first is None else f"of the opening {first}"
        raise ValueError(f"--recheck: the exact search {what} did not finish")
    return objective.value(best.replayed)


def _values(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values))
