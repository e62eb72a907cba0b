"""Decision trees in memory: the model (``Node``, ``Tree``), replay and verification of every
secret, and the provenance of an optimality claim (what it rests on). The file format is in
``optimizer.formats.tree_file``. Nothing here needs numba, so the player starts instantly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .games import Game
from .objective import exact_objective


class TreeError(ValueError):
    """A tree file that cannot be read or does not describe a valid strategy."""


def printable(text: object) -> str:
    """``text`` (from a file, or quoting one) made safe for a terminal: control characters,
    escape sequences and other invisible characters are shown as Python escapes (``\\x1b``)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


@dataclass
class Node:
    guess: int
    next: dict[int, Node] = field(default_factory=dict)


@dataclass
class Tree:
    game: Game
    root: Node
    objective: str
    guesses: str = "any"
    optimal: bool = False
    lower_bound: int | None = None
    meta: dict = field(default_factory=dict)
    stats: dict | None = None  # as stored in a file; ``replay`` gives the true figures
    # This tree's own replay, kept by the search that built and checked it (Search._tree):
    # writing it takes the figures from there instead of replaying the tree a second time.
    replayed: Replay | None = field(default=None, repr=False, compare=False)


def is_int(value) -> bool:
    return type(value) is int  # JSON true, false and 1.0 are not whole numbers here


# --- replay ----------------------------------------------------------------------------------
def height_and_total(histogram: dict[int, int]) -> tuple[int, int]:
    """(height, total) of a tree from its secrets solved per depth."""
    return (max(histogram) if histogram else 0), sum(k * v for k, v in histogram.items())


@dataclass
class Replay:
    secrets: int
    height: int
    total: int
    histogram: dict[int, int]
    defects: list[str]

    @property
    def average(self) -> float:
        return self.total / self.secrets if self.secrets else 0.0

    def as_json(self) -> dict:
        return {
            "secrets": self.secrets,
            "height": self.height,
            "total": self.total,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


def replay(tree: Tree, max_defects: int = 20, secrets: list[int] | None = None,
           hints: tuple = ()) -> Replay:
    """Send every secret through the tree, node by node; list every way it fails. ``secrets``
    and ``hints``: a subtree's, the secrets that reach it and the (guess, feedback) pairs above
    it (a checkpoint's part facts), its depths counted from its own root."""
    game = tree.game
    defects: list[str] = []
    histogram: dict[int, int] = {}
    if tree.guesses == "hard" and not game.has_hard_mode:
        defects.append(f"guesses: 'hard', but {game.spec} has no hard mode (word games do)")
    everyone = list(range(game.n_secrets)) if secrets is None else list(secrets)
    hard = tree.guesses == "hard"
    # (node, secrets that reach it, depth, place, the (guess, feedback) pairs above it); a place
    # is None or (its parent's, feedback), written out for a defect only (checkpoint loads)
    stack = [(tree.root, everyone, 1, None, tuple(hints) if hard else ())]
    while stack and len(defects) < max_defects:
        node, secrets, depth, place, hints = stack.pop()
        if depth > game.n_secrets:
            defects.append(f"{_place_text(game, place)}: deeper than the number of codes (a "
                           "loop of useless guesses)")
            continue
        if tree.guesses == "consistent" and node.guess not in secrets:
            defects.append(
                f"{_place_text(game, place)}: guess {game.format_code(node.guess)} is not "
                "consistent with the feedback so far, but the tree says guesses are "
                "'consistent'"
            )
        if hard and game.has_hard_mode and not all(
                game.keeps_hints(g, f, node.guess) for g, f in hints):
            defects.append(f"{_place_text(game, place)}: guess {game.format_code(node.guess)} "
                           "drops a hint an earlier answer revealed, but the tree says guesses "
                           "are 'hard'")
        parts: dict[int, list[int]] = {}
        for s in secrets:
            if s == node.guess:
                histogram[depth] = histogram.get(depth, 0) + 1
            else:
                parts.setdefault(game.feedback(node.guess, s), []).append(s)
        for fid, part in parts.items():
            child = node.next.get(fid)
            if child is None:
                defects.append(
                    f"{_place_text(game, (place, fid))}: missing; {len(part)} secret(s) such "
                    f"as {game.format_code(part[0])} give this feedback"
                )
                continue
            stack.append((child, part, depth + 1, (place, fid),
                          hints + ((node.guess, fid),) if hard else ()))
        for fid in node.next:
            if fid not in parts:
                defects.append(
                    f"{_place_text(game, (place, fid))}: no remaining secret gives this feedback"
                )
    solved = sum(histogram.values())
    if solved != len(everyone) and not defects:
        defects.append(f"only {solved} of {len(everyone)} secrets are solved")
    height, total = height_and_total(histogram)
    return Replay(
        secrets=solved,
        height=height,
        total=total,
        histogram=histogram,
        defects=defects,
    )


def _place_text(game: Game, place: tuple | None) -> str:
    """A replay's place (None, or (the parent's place, feedback)) as ``_path_text`` writes it."""
    steps = []
    while place is not None:
        place, fid = place
        steps.insert(0, fid)
    return _path_text(game, steps)


def _path_text(game: Game, steps: list[int]) -> str:
    """``root.next['..'].next['..']``: the node the feedback ``steps`` lead to from the root."""
    return "root" + "".join(f".next[{game.format_feedback(f)!r}]" for f in steps)


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


def repeated_guess(tree: Tree) -> str | None:
    """Where the tree makes a guess again that a node above it made, or None. Such a guess
    never wins (the earlier one did not) and tells nothing (it gets the same feedback again), so
    a chain of them is a game that makes no progress (issue 28: a file repeating one guess
    hundreds deep). Without repeats a path holds at most one node per code, so every game ends.
    One pass over the nodes: 2-5 ms for the committed 5040- and 10000-code trees, a fifth of
    reading them."""
    game = tree.game
    stack = [(tree.root, 0, -1)]  # (node, depth, feedback that leads to it)
    guesses: list[int] = []  # the guesses on the path to the node, and the feedback to each
    feedback: list[int] = []
    while stack:
        node, depth, fid = stack.pop()
        del guesses[depth:], feedback[depth:]
        if node.guess in guesses:
            place = _path_text(game, feedback[1:] + [fid])
            return (f"{place}: guesses {game.format_code(node.guess)} again, as a node above it "
                    "did: a repeated guess tells nothing, so a game on this path would make no "
                    "progress (a defective tree file)")
        guesses.append(node.guess)
        feedback.append(fid)
        stack.extend([(child, depth + 1, f) for f, child in node.next.items()])
    return None


def _stats_defects(tree: Tree, result: Replay) -> list[str]:
    stated = tree.stats
    if stated is None:  # a tree built in memory: its stats are the replay's
        return []
    defects = [f"stats: unknown key {printable(repr(key))[:40]}" for key in stated
               if key not in ("secrets", "height", "total", "histogram")]
    for key in ("secrets", "height", "total"):
        if key not in stated:
            defects.append(f"stats.{key}: missing")
        elif not is_int(stated[key]) or stated[key] != getattr(result, key):
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
    if objective is None and tree.optimal:
        defects.append(f"\"optimal\": true, but {printable(repr(tree.objective))[:60]} is not an "
                       "exact objective (height, total, their pairs, total@K, height,deepest, "
                       "deepest@K): a greedy strategy is not a search and proves no optimum")
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
        if scope is None or result.height > scope or meta[key] <= own:
            continue
        defects.append(f"meta.{key}: {meta[key]} claims that no tree of height {scope} or less "
                       f"has a {name} below it (\"{name} {op} {meta[key]}\"), but this tree "
                       f"(height {result.height}) has {own}")
    return defects


# --- provenance: what an optimality claim rests on ---------------------------------------------
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


def checked(tree: Tree, claim=None, value: int | None = None) -> Tree:
    """``tree`` replayed once over every secret, the replay kept as ``tree.replayed`` (the file is
    written from it); RuntimeError for a defect or, when ``claim`` (Replay -> int) is given, a
    replayed value other than ``value``: a search bug is never written as a result."""
    replayed = replay(tree)
    if replayed.defects:
        raise RuntimeError("the search built a defective tree: " + "; ".join(replayed.defects))
    if claim is not None and claim(replayed) != value:
        raise RuntimeError(f"the search claimed {value} but its tree replays to "
                           f"{claim(replayed)}")
    tree.replayed = replayed
    return tree
