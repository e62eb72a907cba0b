"""The facts of a checkpoint in memory: what is known of the least cost within one depth limit
(``TotalFacts``), and the flat view of all of a file's facts under one key each, by which runs
sharing one file merge what they changed (a three-way merge against the file they last read).
Reading and writing the file are in ``checkpoint_io``; the facts the searches use, ``checkpoint``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..tree import Node

SPENT = "spent "  # the flat key of a run's spending: this and the run's id


@dataclass
class TotalFacts:
    """What is known of the least total within one depth limit."""

    classes: dict[int, dict] = field(default_factory=dict)  # guess -> {"exact"|"at_least": v}
    incumbent: tuple[int, Node] | None = None  # (total, root) of the best tree found
    # path (guess, feedback id, guess, ...) -> {"exact": v, "tree": Node} | {"at_least": v}
    parts: dict[tuple[int, ...], dict] = field(default_factory=dict)
    estimate: dict | None = None  # the work left, as the last run to write it measured it
    # run id -> {"cpu_seconds": s, "classes": n} (and "goal": g, a --gap run's, or "drawn": true,
    # a run's that settled classes drawn at random): the CPU seconds of search each run spent and
    # the classes it settled (lifted to g), summed over the runs of one kind into their pace
    # (``spent_in_all``, ``drawn``)
    spent: dict[str, dict] = field(default_factory=dict)

    def best(self) -> int | None:
        """The best tree's cost, when one is on file."""
        return self.incumbent[0] if self.incumbent is not None else None

    def runs_of(self, goal: int | None = None) -> list[dict]:
        """The spending of every run on record that settled classes against the best (``goal``
        None), or with --gap lifted them to ``goal``: two paces that are not to be mixed (a
        class lifted to a goal below the best costs less)."""
        return [e for e in self.spent.values() if e.get("goal") == goal]

    def spent_in_all(self, goal: int | None = None) -> tuple[float, int, int]:
        """(CPU seconds, classes settled, runs) summed over ``runs_of(goal)``."""
        runs = self.runs_of(goal)
        return (sum(e["cpu_seconds"] for e in runs), sum(e["classes"] for e in runs),
                len(runs))

    def drawn(self) -> tuple[float, int]:
        """(CPU seconds, classes) of the runs that settled classes drawn at random among those
        open: their mean is the pace of the classes left without the order's bias (a run takes
        the classes by bound, then code, and their cost follows the code)."""
        runs = [e for e in self.spent.values() if e.get("drawn")]
        return sum(e["cpu_seconds"] for e in runs), sum(e["classes"] for e in runs)

    def set_part(self, path: tuple[int, ...], value: int, tree: Node | None) -> bool:
        """Keep a part's exact value (``tree``: its strategy) or bound unless the one known is
        as strong; whether it changed. A part's exact value makes its openings' facts moot (a
        bound does not: the next search of the part starts from its openings' bounds)."""
        old = self.parts.get(path)
        if old is not None and ("exact" in old or (
                tree is None and old["at_least"] >= value)):
            return False
        self.parts[path] = {"exact": int(value), "tree": tree} if tree is not None else {
            "at_least": int(value)}
        if len(path) % 2 == 0 and tree is not None:
            self.drop_below(path)
        return True

    def drop_below(self, prefix: tuple[int, ...]) -> bool:
        """Forget the part facts below ``prefix`` (itself excluded); whether any was."""
        n, prefix = len(prefix), tuple(prefix)
        return self._drop(lambda path: len(path) > n and path[:n] == prefix)

    def drop_classes(self, guesses: set[int]) -> bool:
        """Forget the part facts of the classes opening with ``guesses``, in one pass; whether
        any was."""
        return self._drop(lambda path: path[0] in guesses)

    def _drop(self, gone) -> bool:
        """Forget the part facts whose path ``gone(path)`` holds; whether any was."""
        paths = [path for path in self.parts if gone(path)]
        for path in paths:
            del self.parts[path]
        return bool(paths)


def pace_text(left: dict, done: str = "settled") -> str:
    """The pace an estimate (``search.progress.Pace.left``) rests on, as people read it
    (``done``: what the runs did to a class, "lifted to the goal" for --gap runs)."""
    each = f"{left['seconds_per_class']} CPU seconds a class"
    if "drawn" in left:
        return f"{each} (the mean of {left['drawn']} classes drawn at random among those open)"
    if "classes_settled" not in left:  # written before the record of every run's spending
        return f"{each} (the pace of the run that wrote it)"
    runs, settled = left["runs"], left["classes_settled"]
    return (f"{each} (the mean of {settled} class{'es' if settled != 1 else ''} {done} in "
            f"{runs} run{'s' if runs != 1 else ''})")


def claimed(entry: dict) -> int:
    """A class or part fact's value: its exact value, or the bound it claims."""
    return entry["exact"] if "exact" in entry else entry["at_least"]


def claim_text(entry: dict) -> str:
    """A class or part fact as a message says it: ``exactly 73`` or ``at least 70``."""
    return f"exactly {entry['exact']}" if "exact" in entry else f"at least {entry['at_least']}"


def levels_done(entry: dict) -> int:
    """How many levels of the lookahead bound a class fact finished: ``lookahead``, less one
    when ``cut`` (the job stopped at its cut-off, its level not finished)."""
    return entry.get("lookahead", 0) - bool(entry.get("cut"))


def strength(entry: dict) -> tuple[int, int]:
    """What makes one class bound stronger than another: its value, then the levels done."""
    return entry["at_least"], levels_done(entry)


def settles(entry: dict, best: int | None = None) -> bool:
    """Whether a class fact ends its class's search (an exact value, or a bound a cut-off
    against the best tree proved), so that its part facts say nothing more; a lookahead bound
    does not, nor a bound below ``best`` (the best tree's cost, when on file: a --gap run's,
    which lifted the class to its goal only)."""
    if "exact" in entry:
        return True
    return "lookahead" not in entry and (best is None or entry["at_least"] >= best)


def flatten(refuted: dict, totals: dict) -> dict:
    """Every fact under one key: ("height", guess) -> entry, (cost, depth, guess) -> entry,
    (cost, depth, path) -> a part's entry, (cost, depth, None) -> the incumbent,
    (cost, depth, "estimate") -> the estimate, (cost, depth, SPENT + run id) -> a run's spending."""
    facts: dict = {("height", g): e for g, e in refuted.items()}
    for (cost, depth), known in totals.items():
        facts.update({(cost, depth, g): e for g, e in known.classes.items()})
        facts.update({(cost, depth, p): e for p, e in known.parts.items()})
        if known.incumbent is not None:
            facts[(cost, depth, None)] = known.incumbent
        if known.estimate is not None:
            facts[(cost, depth, "estimate")] = known.estimate
        facts.update({(cost, depth, SPENT + run): e for run, e in known.spent.items()})
    return facts


def unflatten(facts: dict) -> tuple[dict, dict]:
    """(refuted heights by guess, TotalFacts by (cost, depth)) of ``flatten``'s view."""
    refuted: dict = {}
    totals: dict = {}
    for key, value in facts.items():
        if key[0] == "height":
            refuted[key[1]] = value
            continue
        known = totals.setdefault(key[:2], TotalFacts())
        if key[2] is None:
            known.incumbent = value
        elif key[2] == "estimate":
            known.estimate = value
        elif isinstance(key[2], str):
            known.spent[key[2].removeprefix(SPENT)] = value
        elif isinstance(key[2], tuple):
            known.parts[key[2]] = value
        else:
            known.classes[key[2]] = value
    return refuted, totals


def three_way(mine: dict, base: dict, theirs: dict, stronger: Callable) -> dict:
    """Merge two runs' flat facts against the state both started from: a fact only they
    changed (or removed, as a run does with a fact it found false) is theirs, one only this run
    changed is this run's, one both changed is ``stronger(key, mine, theirs)``."""
    merged = {}
    for key in mine.keys() | theirs.keys():
        m, b, d = mine.get(key), base.get(key), theirs.get(key)
        if same(d, b):
            value = m  # they did not change it: this run's (None: this run removed it)
        elif same(m, b):
            value = d  # only they changed it (None: they removed it)
        elif m is None or d is None:
            value = d if m is None else m  # one removed, the other changed: the change
        else:
            value = stronger(key, m, d)
        if value is not None:
            merged[key] = value
    return merged


def same(a, b) -> bool:
    """One fact, as far as merging is concerned (incumbents: the same value; None: none)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] == b[0]
    if isinstance(a, dict) and isinstance(b, dict) and "tree" in a:  # a part's: its value
        return {k: v for k, v in a.items() if k != "tree"} == {
            k: v for k, v in b.items() if k != "tree"}
    return a == b
