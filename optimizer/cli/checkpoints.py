"""``moo checkpoint show|merge|verify``: the checkpoint files of long searches.

- ``show FILE``: what the file claims, per objective (status 1 if its facts contradict each
  other).
- ``merge A B ... -o C``: the union of the facts of runs on several machines; facts that
  contradict each other are an error (nothing is written). A tree file among them (of the same
  game and guess mode) is a tree found elsewhere, e.g. by ``--first``: it becomes the best tree
  within its height when it beats the one there, so a shared search starts from it.
- ``verify FILE [--sample K] [--seed S]``: re-prove the claims (all, or K drawn at random) with
  this program's own exhaustive search and name any that does not hold.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from ..objective import cost_text
from ..tree import printable
from .options import add_search_options, seed, whole_number
from .status import Exit


def configure(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="what a checkpoint file claims")
    show.add_argument("file")
    merge = sub.add_parser("merge", help="the union of several files' facts (tree files too: "
                                         "a better tree to start from)")
    merge.add_argument("files", nargs="+", metavar="FILE")
    merge.add_argument("-o", "--output", required=True, help="the merged file to write")
    verify = sub.add_parser("verify", help="re-prove a file's claims by exhaustive search")
    verify.add_argument("file")
    verify.add_argument("--sample", type=sample_size, default=None, metavar="K",
                        help="check K claims drawn at random, K at least 1 (default: all)")
    verify.add_argument("--seed", type=seed, default=None,
                        help="seed of the draw of --sample (0 to 2**64 - 1; default 0)")
    verify.add_argument("--quiet", action="store_true", help="no progress bar")
    add_search_options(verify)


def sample_size(text: str) -> int:
    """--sample K: a whole number of claims, at least 1, in ASCII digits (a sample of none would
    report that every claim holds after checking none)."""
    return whole_number(text, 1, "claims")


def run(args) -> Exit:
    return {"show": show, "merge": merge, "verify": verify}[args.action](args)


def show(args) -> Exit:
    from ..formats.checkpoint import Checkpoint
    from ..formats.facts import pace_text

    log = Checkpoint.read(args.file)
    game = log.game
    print(f"{args.file}: {game.spec}, {log.guesses} guesses")
    heights: dict[int, int] = {}
    for entry in log.refuted.values():
        heights[entry["height"]] = heights.get(entry["height"], 0) + 1
    for height, count in sorted(heights.items()):
        print(f"  height: {count} first-guess class{'es' if count != 1 else ''} claimed refuted "
              f"within {height} guesses")
    first = {int(g) for g in game.first_guesses()}
    if log.guesses == "consistent":  # a run's openings are then the secrets only
        first = {g for g in first if g < game.n_secrets}
    for (cost, depth), facts in sorted(log.totals.items()):
        limit = "no depth limit" if depth >= game.n_secrets else f"within {depth} guesses"
        exact = [e["exact"] for e in facts.classes.values() if "exact" in e]
        bounds = [e["at_least"] for e in facts.classes.values() if "at_least" in e]
        print(f"  {cost}, {limit}: {len(exact)} class{'es' if len(exact) != 1 else ''} with an "
              f"exact least {cost}"
              + (f" (least {cost_text(cost, min(exact))})" if exact else "")
              + f", {len(bounds)} with a lower bound"
              + (f" (least {cost_text(cost, min(bounds))})" if bounds else ""))
        class_bounds = [log.total_lower_bound(cost, g, depth) for g in first]
        print("    " + _class_floor(cost, class_bounds))
        own = facts.incumbent or (None, None)
        value, root = log.better_incumbent(cost, depth, *own)  # another limit's, if better
        if root is not None:
            elsewhere = "" if facts.incumbent is not None and root is facts.incumbent[1] else \
                " (found with another depth limit; it is within this one)"
            print(f"    best tree: {cost_text(cost, value)}, opening "
                  f"{game.format_code(root.guess)}; checked by replay{elsewhere}")
        if facts.parts:
            exact = sum(1 for e in facts.parts.values() if "exact" in e)
            classes = len({p[0] for p in facts.parts})
            print(f"    facts below the first guess: {len(facts.parts)} in {classes} classes not "
                  f"settled ({exact} exact with their trees, checked by replay; "
                  f"{len(facts.parts) - exact} lower bounds)")
        if facts.estimate is not None:
            left = facts.estimate
            print(f"    work left when last written: {left['classes']} first-guess classes, "
                  f"about {left['core_hours']} core-hours at {pace_text(left)}")
        for goal in sorted({e.get("goal") for e in facts.spent.values()},
                           key=lambda g: -1 if g is None else g):
            cpu, settled, runs = facts.spent_in_all(goal)
            spread = _spread(facts.runs_of(goal))
            what = "settled" if goal is None else \
                f"lifted to at least {cost_text(cost, goal)} (--gap)"
            print(f"    work spent: {cpu / 3600:.2f} CPU hours ({cpu:.0f} s) of search in {runs} "
                  f"run{'s' if runs != 1 else ''} on record, {settled} class"
                  f"{'es' if settled != 1 else ''} {what}{_paces(spread)}")
            if goal is not None and settled:  # the file's estimate is the exact runs' only
                below = sum(1 for b in class_bounds if b < goal)
                if not below:
                    print("      no first-guess class is below it on file: the goal is reached")
                    continue
                print(f"      {below} first-guess class{'es' if below != 1 else ''} still below "
                      f"it on file, about {below * cpu / settled / 3600:.2f} core-hours at "
                      f"their mean pace{_slowest(spread, below, cpu / settled)}")
    if not heights and not log.totals:
        print("  no facts yet")
    return _consistent(log, args.file)


def _consistent(log, path: str) -> Exit:
    """Facts that contradict each other, which a build or proof refuses: said after the facts
    (which may show the false one), with status 1, as a defect."""
    from ..formats.checkpoint_io import CheckpointError

    try:
        log.check()
    except CheckpointError as exc:
        print(f"  DEFECT: {exc}: a build or proof refuses this file; `moo checkpoint verify "
              f"{printable(path)}` re-proves each fact and names the false ones")
        return Exit.FAILED
    return Exit.FINISHED


def _class_floor(cost: str, bounds: list[int]) -> str:
    """How many of the first-guess classes the file bounds (``bounds``: each class's strongest
    fact, 0 for none; for the total, facts within more guesses count too), and the least of
    those bounds. A run bounds every class itself as well (counting, lookahead) and keeps the
    higher of the two, so the bound it prints is at least the least of these and of its own for
    the rest."""
    values = [v for v in bounds if v > 0]
    floor = f"least {cost_text(cost, min(values))}" if values else "none"
    more = " (facts within more guesses included)" if cost == "total" else ""
    rest = len(bounds) - len(values)
    return (f"class bounds on file: {len(values)} of {len(bounds)} first-guess classes, "
            f"{floor}{more}" + (f"; none for the other {rest}" if rest else ""))


def _spread(runs: list[dict]) -> tuple[float, float] | None:
    """The runs' own paces, least and most, when they differ: how far the mean that sets the
    estimate is from what the classes taken last cost. A --gap run takes the lowest bounds
    first, so the classes left tend to cost more (Battleship's --gap 1 runs: 32 CPU seconds a
    class at first, 239 in the sixth)."""
    each = [e["cpu_seconds"] / e["classes"] for e in runs if e["classes"]]
    if len(each) < 2 or f"{min(each):.1f}" == f"{max(each):.1f}":
        return None
    return min(each), max(each)


def _paces(spread: tuple[float, float] | None) -> str:
    return f"; by run, {spread[0]:.1f} to {spread[1]:.1f} CPU seconds a class" if spread else ""


def _slowest(spread: tuple[float, float] | None, classes: int, mean: float) -> str:
    """The hours of ``classes`` at the slowest run's pace when above ``mean`` (which counts the
    CPU seconds of runs that lifted no class as well)."""
    if not spread or spread[1] <= mean:
        return ""
    return f", {classes * spread[1] / 3600:.2f} at the slowest run's"


def _checkpoints(paths: list[str]) -> dict:
    """The checkpoints among ``paths`` by path, each file read once; the rest name the tree
    format (trees to add)."""
    from ..formats.checkpoint import Checkpoint
    from ..formats.checkpoint_io import read_json
    from ..formats.tree_file import FORMAT

    logs = {}
    for path in paths:
        data = read_json(Path(path))
        if data.get("format") != FORMAT:
            logs[path] = Checkpoint.read(path, data)
    return logs


def merge(args) -> Exit:
    from ..formats.checkpoint import Checkpoint
    from ..formats.checkpoint_io import CheckpointError
    from ..formats.tree_file import read_tree

    logs = _checkpoints(args.files)
    if logs:
        first = next(iter(logs.values()))
    elif Path(args.output).exists():  # trees added to the output itself
        first = Checkpoint.read(args.output)
    else:
        raise CheckpointError("merge: give at least one checkpoint file, or an existing one as "
                              "-o (tree files join one)")
    # An existing output is merged into, as one more run sharing it: its facts stay, and a run
    # writing it meanwhile loses nothing (the write is Checkpoint.save's, under the file's
    # lock, after taking in what was written since it was read).
    try:
        merged = Checkpoint(args.output, first.game, first.guesses)
    except CheckpointError as exc:
        raise CheckpointError(f"{exc}; nothing written (an existing output is "
                              "merged into, so it must be a checkpoint of the same game)") from None
    # The trees after every checkpoint file: each is checked against all the facts merged
    # (one that is not the new best is not checked again).
    for path in sorted(args.files, key=lambda path: path not in logs):
        try:
            if path in logs:
                merged.merge(logs[path])
            else:
                merged.add_tree(read_tree(path))
        except CheckpointError as exc:
            raise CheckpointError(f"{path}: {exc}") from None
    merged.save()
    print(f"{args.output}: {len(merged.refuted)} height refutations, "
          f"{sum(len(f.classes) for f in merged.totals.values())} total facts, "
          f"{sum(len(f.parts) for f in merged.totals.values())} below the first guess, from "
          f"{len(args.files)} file{'s' if len(args.files) != 1 else ''}")
    return Exit.FINISHED


def verify(args) -> Exit:
    """Every claim re-proved: a refuted height by searching for a tree of that height opening
    with the guess, a total by the least-total search of the trees opening with it."""
    from ..formats.checkpoint import Checkpoint
    from ..formats.checkpoint_fields import CheckpointError, CheckpointFileError
    from ..search.claims import check_claim, check_part
    from ..search.objectives import Search
    from ..search.observer import Observer
    from ..search.request import Request

    if args.seed is not None and args.sample is None:
        raise ValueError("--seed is the seed of --sample's draw: give it with --sample K")
    try:
        log = Checkpoint.read(args.file)
    except CheckpointFileError:
        raise
    except CheckpointError as exc:  # read, and found malformed: a defect, as `moo verify` says
        print(f"DEFECT: {printable(exc)}")
        return Exit.FAILED
    game = log.game
    claims = [("height", g, e["height"], "refuted") for g, e in sorted(log.refuted.items())]
    for (cost, depth), facts in sorted(log.totals.items()):
        claims += [(cost, g, depth, e) for g, e in sorted(facts.classes.items())]
        claims += [(("part", cost), p, depth, e) for p, e in sorted(facts.parts.items())]
    request = Request(game, guesses=log.guesses, time_limit=args.time_limit,
                      started=args.started, workers=args.workers, scheduler=args.scheduler,
                      table_bits=args.table_bits)
    request.check_engine()  # bad settings are refused in any case
    if not claims:  # nothing checked is not "every claim holds"
        print(f"{args.file}: no claims to check ({game.spec}, {log.guesses} guesses)")
        return Exit.FINISHED
    held = len(claims)
    if args.sample is not None and args.sample < len(claims):
        claims = random.Random(args.seed or 0).sample(claims, args.sample)
    false: list[str] = []
    checked = 0
    with Search(request) as search:
        search.ready()
        bar = Observer(quiet=args.quiet).bar(claims, desc="claims", unit="claim")
        for kind, guess, depth, entry in bar:
            if search.deadline is not None and time.monotonic() >= search.deadline:
                break
            if isinstance(kind, tuple):
                holds, text = check_part(search, kind[1], guess, depth, entry)
            else:
                holds, text = check_claim(search, kind, guess, depth, entry)
            if holds is None:
                break  # stopped: the claim was not decided
            checked += 1
            if not holds:
                false.append(text)
                bar.write(f"FALSE: {text}")
    drawn = f" drawn at random from its {held}" if len(claims) < held else ""
    print(f"{args.file}: {checked} of {len(claims)} claims{drawn} checked by exhaustive search, "
          f"{checked - len(false)} hold ({game.spec}, {log.guesses} guesses)")
    for text in false:
        print(f"  does not hold: {text}")
    if false:
        return Exit.FAILED
    if checked < len(claims):
        print(f"  stopped early: {len(claims) - checked} claims not checked")
        return Exit.STOPPED
    print("OK: every claim checked holds")
    return Exit.FINISHED

