"""What a tree file claims (optimal, a lower bound, the bounds in ``meta``, an opening) held
against its replay, and what each claim rests on: a proof of this program's own, or facts taken
unchecked from a checkpoint file."""

from __future__ import annotations

from .objective import CONSISTENT_ONLY, EXACT_NAMES, HEURISTICS, exact_objective
from .tree import Replay, Tree, is_int, printable, repeated_guess, replay


def verify(tree: Tree) -> Replay:
    """Replay, then hold every claim the file makes against what the replay shows: the stats,
    and the lower bound and optimality claims (a claim that contradicts the tree is a defect)."""
    result = replay(tree)
    repeated = repeated_guess(tree)
    if repeated is not None:  # the cause: what the replay finds on that path follows from it
        result.defects = [repeated]
    elif not result.defects:
        result.defects += _stats_defects(tree, result) + _claim_defects(tree, result)
    return result


def _stats_defects(tree: Tree, result: Replay) -> list[str]:
    stated = tree.stats
    if stated is None:  # a tree built in memory: its stats are the replay's
        return []
    defects = [f"stats: unknown key {printable(repr(key))[:40]}" for key in stated
               if key not in ("secrets", "height", "total", "histogram")]
    for key in ("secrets", "height", "total"):
        if key not in stated:
            defects.append(f"stats.{key}: missing")
        elif not is_int(stated[key]):
            defects.append(f"stats.{key}: {printable(repr(stated[key]))[:40]} must be an "
                           "integer (a JSON number without a fraction or exponent)")
        elif stated[key] != getattr(result, key):
            defects.append(f"stats.{key} says {printable(repr(stated[key]))[:40]}, a replay "
                           f"gives {getattr(result, key)}")
    histogram = stated.get("histogram")
    if histogram is None:
        defects.append("stats.histogram: missing")
    elif not (isinstance(histogram, dict) and all(map(is_int, histogram.values()))
              and histogram == result.as_json()["histogram"]):
        defects.append("stats.histogram differs from what a replay gives")
    return defects


def _claim_defects(tree: Tree, result: Replay) -> list[str]:
    """Claims that the tree itself refutes. The objective's first component is what
    ``lower_bound`` bounds: no tree can beat a true lower bound, this one included. Only an
    exact objective has an optimum to claim: a greedy strategy's tree proves nothing."""
    defects = []
    objective = exact_objective(tree.objective)
    lower = tree.lower_bound
    if objective is None and tree.objective not in CONSISTENT_ONLY + HEURISTICS:
        defects.append(f"objective: {printable(repr(tree.objective))[:60]} is neither an exact "
                       f"objective ({EXACT_NAMES}) nor a greedy strategy's name "
                       f"({', '.join(CONSISTENT_ONLY + HEURISTICS)})")
    elif objective is None and tree.optimal:
        defects.append(f"\"optimal\": true, but {printable(repr(tree.objective))[:60]} is not an "
                       f"exact objective ({EXACT_NAMES}): a greedy strategy is not a search "
                       "and proves no optimum")
    if lower is not None:
        if tree.optimal:
            defects.append("lower_bound: stated together with \"optimal\": true (a lower bound "
                           "is stated only where optimality is not proven)")
        if lower < 0:
            defects.append(f"lower_bound: {lower} is negative")
        if objective is not None:
            own = objective.figure(objective.first, result)
            if lower > own:
                defects.append(f"lower_bound: {lower} claims that no tree has a {objective.first} "
                               f"below it, but this tree's {objective.first} is {own}")
    if objective is not None and objective.depth is not None and result.height > objective.depth:
        defects.append(f"objective: {objective.name} allows height {objective.depth}, but the "
                       f"tree's height is {result.height}")
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    if tree.optimal and meta.get("stopped") is True:  # what a stopped build writes of itself
        defects.append("\"optimal\": true, but meta.stopped says the search was stopped "
                       "before it finished (a stopped search proves no optimum)")
    unfinished = [key for key, value in meta.items() if tree.optimal and key.endswith("_search")
                  and isinstance(value, dict) and value.get("optimal") is False]
    defects += [f"\"optimal\": true, but meta.{printable(key)[:40]}.optimal says that search "
                "did not finish (an unfinished search proves no optimum)" for key in unfinished]
    return (defects + _opening_defects(tree, result) + _meta_bound_defects(tree, result)
            + _provenance_defects(tree))


def opening_note(tree: Tree) -> tuple[bool, str] | None:
    """(whether proven, "among trees opening with CODE") of a tree built with --first (a
    well-formed ``meta.opening``); None for any other tree. What build, verify and compare
    say of such a tree's claim."""
    opening = tree.meta.get("opening") if isinstance(tree.meta, dict) else None
    if not isinstance(opening, dict) or not isinstance(opening.get("optimal"), bool):
        return None
    return opening["optimal"], f"among trees opening with {printable(opening.get('guess'))}"


def _opening_defects(tree: Tree, result: Replay) -> list[str]:
    """``meta.opening`` (moo build --first): the tree opens with that code, claims no global
    optimum, and its value is not below a lower bound it states."""
    opening = tree.meta.get("opening")
    if opening is None:
        return []
    if not isinstance(opening, dict) or not isinstance(opening.get("guess"), str) or \
            not isinstance(opening.get("optimal"), bool):
        return ["meta.opening: an object {\"guess\": CODE, \"optimal\": true or false}"]
    defects = []
    root = tree.game.format_code(tree.root.guess)
    if opening["guess"] != root:
        defects.append(f"meta.opening: the tree opens with {root}, not "
                       f"{printable(opening['guess'])}")
    if tree.optimal:
        defects.append("meta.opening: a search of one opening proves no optimum over every "
                       "opening (\"optimal\" must be false)")
    lower, objective = opening.get("lower_bound"), exact_objective(tree.objective)
    if is_int(lower) and objective is not None and lower > objective.figure(
            objective.first, result):
        defects.append(f"meta.opening.lower_bound: {lower} is above this tree's "
                       f"{objective.first}")
    return defects


# Bounds the searches write into ``meta`` (objectives.Search; shown by objective.bound_note): a
# lower bound, or the proven value, of the objective's second component among the trees whose
# first component is the proven one.
META_BOUNDS = {"total_lower_bound": ("total", ">="), "deepest_proven": ("deepest", "="),
               "deepest_lower_bound": ("deepest", ">=")}


def _meta_bound_defects(tree: Tree, result: Replay) -> list[str]:
    """A bound in ``meta`` above this tree's own figure, where the tree is one of the trees the
    bound speaks of: ``total_lower_bound`` of a height,total tree bounds the trees of the least
    height (``lower_bound``, or the tree's own height when it is claimed optimal); the deepest
    count (at depth K of deepest@K, else the least height) the trees within that depth."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    defects = [f"meta.{key}: {printable(repr(meta[key]))[:40]} is not a whole number >= 0"
               for key in META_BOUNDS if key in meta
               and not (is_int(meta[key]) and meta[key] >= 0)]
    objective = exact_objective(tree.objective)
    if objective is None or defects:
        return defects
    least = tree.lower_bound if tree.lower_bound is not None else (
        result.height if tree.optimal else None)  # the proven least height, when first
    for key, (name, op) in META_BOUNDS.items():
        applies = objective.tie == "total" if name == "total" else name in objective.components
        if key not in meta or not applies:
            continue
        if name == "total":  # height,total: the least total among trees of the least height
            scope, own = least, result.total
        else:  # the fewest secrets solved with exactly K guesses among trees within K
            scope = objective.depth or least
            own = result.histogram.get(scope, 0) if scope is not None else 0
        if scope is None or result.height > scope:
            continue
        if op == "=" and tree.optimal and meta[key] < own:  # the optimum is this tree's own
            defects.append(f"meta.{key}: {meta[key]} says the fewest secrets solved with "
                           f"exactly {scope} guesses is {meta[key]}, but this tree, claimed "
                           f"optimal, has {own}")
        if meta[key] <= own:
            continue
        defects.append(f"meta.{key}: {meta[key]} claims that no tree of height {scope} or less "
                       f"has a {name} below it (\"{name} {op} {meta[key]}\"), but this tree "
                       f"(height {result.height}) has {own}")
    return defects


# --- what an optimality claim rests on -------------------------------------------------------
PROVEN = "proven"
NOT_PROVEN = "not proven"


def checkpoint_facts(tree: Tree) -> int:
    """How many facts the tree's claims (``optimal``, ``lower_bound``, the bounds in ``meta``)
    took unchecked from a checkpoint file: ``meta.checkpoint_facts``, written by every exact
    build given a checkpoint. Trees written before that record existed count the first-guess
    classes their searches took (``classes_from_checkpoint`` of ``meta.*_search``, or of
    ``meta`` itself for ``moo prove -o``); the larger of the two counts is taken."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    record = meta.get("checkpoint_facts")
    record = record if is_int(record) and record >= 0 else 0
    return max(record, _searches_took(meta))


def _searches_took(meta: dict) -> int:
    """Facts (first-guess classes, parts below them) the searches recorded in ``meta`` say they
    took from a checkpoint."""
    keys = ("classes_from_checkpoint", "parts_from_checkpoint")
    counts = [meta.get(k) for k in keys] + [
        value.get(k) for value in meta.values() if isinstance(value, dict) for k in keys]
    return sum(count for count in counts if is_int(count) and count > 0)


def _provenance_defects(tree: Tree) -> list[str]:
    """A provenance record that is malformed, or counts fewer facts than the searches recorded
    beside it say they took."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    if "checkpoint_facts" not in meta:
        return []
    record = meta["checkpoint_facts"]
    if not (is_int(record) and record >= 0):
        return [f"meta.checkpoint_facts: {printable(repr(record))[:40]} is not a whole number "
                ">= 0"]
    took = _searches_took(meta)
    if record < took:
        return [f"meta.checkpoint_facts: {record}, but the searches recorded in meta took {took} "
                "first-guess classes from a checkpoint"]
    return []


def proof(tree: Tree, result: Replay | None = None) -> str:
    """What the tree's optimality claim is: ``"proven"``, ``"proven, resting on N checkpoint
    facts"`` (facts of an earlier run taken unchecked: the proof holds if they do), or ``"not
    proven"`` (no claim, or a claim ``verify`` finds defective). ``result``: the tree's
    ``replay`` or ``verify`` (a replay is made when not given)."""
    if not tree.optimal:
        return NOT_PROVEN
    result = result if result is not None else replay(tree)
    if (result.defects or repeated_guess(tree) is not None or _stats_defects(tree, result)
            or _claim_defects(tree, result)):
        return NOT_PROVEN
    return resting(PROVEN, checkpoint_facts(tree))


def resting(claim: str, facts: int) -> str:
    """``claim`` with what it rests on: ``proven, resting on 3 checkpoint facts``."""
    if not facts:
        return claim
    return f"{claim}, resting on {facts} checkpoint fact{'s' if facts != 1 else ''}"


def provenance_note(tree: Tree, name_only: bool = False) -> str:
    """Where the facts of ``checkpoint_facts`` come from and how to check them, for people
    (empty when there are none): the file as ``meta.checkpoint`` records it (``name_only``: its
    name without the folders, for a page read elsewhere)."""
    if not checkpoint_facts(tree):
        return ""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    where = meta.get("checkpoint")
    if name_only and isinstance(where, str):
        where = where.replace("\\", "/").rsplit("/", 1)[-1]
    source = f"taken from {printable(where)[:200]}" if isinstance(where, str) and where else (
        "taken from a checkpoint file")
    return f"{source}, not re-checked: `moo checkpoint verify` re-proves them"
