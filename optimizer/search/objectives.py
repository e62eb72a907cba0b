"""What the commands ask of the exact search, assembled in one place: the objectives (height,
total, their combinations, depth limits) and one run's solver, engine, checkpoint and time limit
(``Search``), whose ``build`` returns the objective's tree, replayed once and checked
(``build.checked``) so that a search bug is never written as a result. Each step of an objective
returns what it found (a ``Step``), and ``build`` combines them; the greedy trees the searches
start from are in ``strategies.py``, and what a stopped build writes in ``stopped.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ..formats.checkpoint import Checkpoint
from ..objective import LAST_FIRST, Objective, cost_value
from ..tree import Node, Tree, checked, replay
from .engine import open_engine
from .height import HeightSearch
from .observer import QUIET, Observer
from .polish import better_tree
from .request import Request
from .root import STOPPED_EARLY, Outcome
from .solver import KERNELS, LOCAL, NodeSolver
from .stopped import best_in_hand
from .strategies import greedy, height_incumbent, total_incumbent
from .total import TotalSearch


@dataclass
class Step:
    """What one step of an objective found: its search's outcome, the best tree in hand should a
    signal stop the run (``fallback``; None: the first-consistent tree), and what the tree's meta
    records of it."""

    out: Outcome
    fallback: Outcome | None = None
    meta: dict = field(default_factory=dict)

    def then(self, later: Step) -> Step:
        """This step followed by ``later``: its outcome, both steps' meta."""
        return Step(later.out, later.fallback or self.fallback, {**self.meta, **later.meta})


# --- one run -----------------------------------------------------------------------------------
class Search:
    """One run of the exact search for ``request``: a solver, the engine its jobs run on, the
    checkpoint file and the deadline (a time.monotonic() value), reporting to ``observer``. A
    context manager: the engine (and any workers it started) is closed whatever ends the run."""

    def __init__(self, request: Request, observer: Observer = QUIET,
                 solver: NodeSolver | None = None):
        game = request.game
        request.check_engine()  # EngineError before any work
        self.request, self.observer = request, observer
        self.game, self.guesses, self.lookahead = game, request.guesses, request.lookahead
        self.improve, self.gap = request.improve, request.gap
        self.deadline = request.deadline()
        self.opening = request.opening()
        self.checkpoint = None
        if request.checkpoint:
            self.checkpoint = Checkpoint(request.checkpoint, game, self.guesses)
            self.checkpoint.check()
        self.solver = solver or NodeSolver(game, self.guesses, table_bits=request.table_bits)
        self.engine = open_engine(self.solver, request.workers, request.scheduler, self.deadline)
        self._ready: set[str] = set()
        # Facts taken from the checkpoint without checking them, summed over every search of
        # this run (a first-guess class refuted at a height, or its least cost bounded or
        # settled): what the claims of the trees it writes rest on besides its own search.
        self.facts_taken = 0
        self.least_height = 0  # the game's least height, once a search here proved it
        self.improved: dict = {}  # cost -> what --improve made of the tree to beat (meta)

    def __enter__(self) -> Search:
        return self

    def __exit__(self, error_type, *exc) -> None:
        self.close(finished=error_type is None)

    def close(self, finished: bool = True) -> None:
        """``finished``: the run ended as runs do (a result, a time limit, a signal said), not
        by an error (bad input found late, such as --gap on a height objective), which leaves
        no checkpoint file that was not there."""
        try:
            if self.checkpoint is not None:
                self.checkpoint.close(create=finished)
        finally:
            self.engine.close()

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Compile or load the kernels of these searches (solver.KERNELS, and solver.LOCAL when
        named) here, then load the searches' on the workers (set-up, not search time), each
        once; compiling is said on stderr unless the run is quiet."""
        todo = tuple(k for k in kernels if k not in self._ready)
        if todo:
            self.solver.warm_up(todo, announce=self.observer.shows)
            self.engine.ready(tuple(k for k in todo if k not in LOCAL))
            self._ready.update(todo)

    def height_search(self) -> HeightSearch:
        return HeightSearch(self.solver, self.engine, self.deadline, self.observer,
                            self.checkpoint, self.opening)

    def total_search(self, cost: str = "total", gap: float = 0.0) -> TotalSearch:
        search = TotalSearch(self.solver, self.engine, self.deadline, self.observer,
                             self.checkpoint, self.opening)
        search.cost, search.lookahead, search.gap = cost, self.lookahead, gap
        search.least_height = self.least_height
        return search

    def min_height(self, incumbent=(None, None)) -> Outcome:
        self.ready(("height",))
        out = self.height_search().min_height(incumbent)
        self.facts_taken += out.taken
        if out.optimal:
            self.least_height = out.value
        return out

    def min_total(self, depth: int, upper: int | None = None, incumbent: Node | None = None,
                  cost: str = "total", gap: float = 0.0) -> Outcome:
        """Least cost within ``depth`` (kernels.bundles.COSTS); ``incumbent``: a tree to beat,
        ``upper`` its cost; ``gap``: percent, the least total proven only within it of the
        best tree (--gap: the objective's own total search, never a search that needs the
        exact value, such as total,height's least height at the least total)."""
        # The height kernels only where something calls them: the rollouts (a tree's fit within
        # a depth limit); loading them for nothing was a tenth of a small game's command.
        rollouts = bool(self.improve) and cost == "total"
        self.ready(("total",) + ("lookahead",) * bool(self.lookahead)
                   + ("height", "rollout") * rollouts)
        if self.improve:
            upper, incumbent = self._improved(depth, upper, incumbent, cost)
        out = self.total_search(cost, gap).min_total(depth, upper, incumbent)
        self.facts_taken += out.taken + out.parts_taken
        return out

    def _improved(self, depth: int, upper: int | None, incumbent: Node | None,
                  cost: str) -> tuple[int | None, Node | None]:
        """--improve: a better tree to beat (polish.better_tree) than the best in hand, within
        its seconds and the time limit. A better tree from the checkpoint is polished, without
        rollouts: the runs that found it had theirs."""
        seconds = self.improve
        if self.deadline is not None:
            seconds = min(seconds, max(0.0, self.deadline - time.monotonic()))
        held, start = incumbent, time.monotonic()
        if self.checkpoint is not None:
            upper, incumbent = self.checkpoint.better_incumbent(cost, depth, upper, incumbent)
        before = upper
        upper, incumbent, settled = better_tree(self.solver, self.engine, depth, upper,
                                                incumbent, cost, seconds, self.observer,
                                                rollouts=incumbent is held)
        self.improved[cost] = {"from": _plain(cost, before), "to": _plain(cost, upper),
                               "seconds": round(time.monotonic() - start, 3)}
        if settled and self.checkpoint is not None and len(
                self.solver.representatives([incumbent.guess], [])) == 1:  # a class's own
            # every part of the opening searched exactly: its class is settled
            self.checkpoint.record_total(cost, incumbent.guess, depth, upper, exact=True)
            self.checkpoint.flush()
            limit = f"within {depth}" if depth < self.game.n_secrets else "with no depth limit"
            self.observer.note(f"exact subtrees: {self.game.format_code(incumbent.guess)} "
                               f"costs exactly {upper} {limit}")
        return upper, incumbent

    def fewest_deepest(self, depth: int, start: Node,
                       lexicographic: bool = True) -> tuple[Outcome, Outcome | None]:
        """Among trees of height at most ``depth``, the fewest secrets solved with exactly
        ``depth`` guesses (that count alone, the "deep" cost), then, when ``lexicographic``, the
        least total among such trees (the "deepest" cost), each starting from the best tree
        known (``start`` is within ``depth``). Returns (the count's search, the total's or
        None)."""
        replayed = replay(Tree(self.game, start, "", self.guesses))
        count = self.min_total(depth, cost_value("deep", depth, replayed), start, "deep")
        if not lexicographic or not count.optimal:
            return count, None
        tree = start
        if count.root is not None:
            tree = count.root
            replayed = replay(Tree(self.game, tree, "", self.guesses))
        both = self.min_total(depth, cost_value("deepest", depth, replayed), tree, "deepest")
        return count, both

    # --- objectives ----------------------------------------------------------------------------
    def build(self, objective: str | None = None) -> Tree:
        """The tree of an exact objective (the request's by default), checked, marked optimal
        only when the search completed; when stopped early (time limit, signal), the best tree
        found, ``meta.stopped`` set."""
        obj = Objective.parse(objective or self.request.objective)
        if obj.components == ("height",) and (self.lookahead or self.improve):
            raise ValueError("--lookahead and --improve apply to least-cost objectives (total, "
                             "deepest and their combinations), not to height alone")
        if self.gap and "total" not in (obj.first, obj.tie):
            raise ValueError("--gap applies to objectives with a least total (total, total@K, "
                             "height,total, total,height), not to "
                             f"{obj.name}")
        taken_before = self.facts_taken
        depth = obj.depth or self.game.n_secrets
        if "deepest" not in obj.components:  # no sound tree needs more guesses than secrets:
            depth = min(depth, self.game.n_secrets)  # total@50 of 27 is the total's own facts
        first = self._first_consistent(obj, depth)  # what to write if stopped before better
        path = {"height": self._height_first, "deepest": self._deepest_first}.get(
            obj.first, self._total_first)
        try:
            step = path(obj, depth, first)
        except KeyboardInterrupt:  # between searches: write the best there is
            step = Step(_stopped(first))
        self.observer.finished()
        out = step.out
        if out.root is None and out.stopped:  # stopped before the search found a tree
            held = step.fallback or first  # a bound on the same component: the better one
            out = _stopped(replace(held, lower_bound=max(held.lower_bound, out.lower_bound)))
        if out.stopped:
            out = best_in_hand(self, obj, depth, out)
        if out.root is None:
            raise ValueError(f"{self.game.spec}: {'; '.join(out.notes) or 'no tree found'}")
        meta: dict = {"program": "moo-optimizer", "guesses": self.guesses}
        if self.checkpoint is not None:
            meta["checkpoint"] = str(self.checkpoint.path)
        meta.update(step.meta)
        if self.improved:
            meta["improve"] = dict(self.improved)
        if out.stopped:
            meta["stopped"] = True
        if self.checkpoint is not None:  # the tree's provenance (provenance.checkpoint_facts)
            meta["checkpoint_facts"] = self.facts_taken - taken_before
        return self._tree(obj, out, meta)

    def _height_first(self, obj: Objective, depth: int, first: Outcome) -> Step:
        out = self.min_height(self._height_start())
        step = Step(out, meta={"height_search": out.effort()})
        if obj.tie is None or not out.optimal:
            return step
        held = Outcome(out.value, out.root, False, out.value)
        try:
            if obj.tie == "deepest":
                return step.then(self._deepest(out.value, out.root, out.value))
            start = self.cost_of("total", out.value, out.root), out.root
            total = self.min_total(out.value, *self.total_start(out.value, start),
                                   gap=self.gap)
            meta = {"total_search": total.effort()}
            if not total.optimal:  # the height is proven; the tie-break is not
                meta["total_lower_bound"] = int(total.lower_bound)
                total.lower_bound = out.value
            return step.then(Step(total, held, meta))
        except KeyboardInterrupt:
            return Step(_stopped(held), held, step.meta)

    def _deepest_first(self, obj: Objective, depth: int, first: Outcome) -> Step:
        """deepest@K: a tree within K to start from (the first-consistent tree, or else the least
        height search's), then the fewest at depth K and the least total."""
        start, step = first.root, Step(first)
        if start is None:
            low = self.min_height(self._height_start())
            step = Step(low, meta={"height_search": low.effort()})
            if low.stopped and low.lower_bound <= depth:  # a signal or the time limit
                if low.root is not None and low.value > depth:
                    low.root = None  # too tall to stand for deepest@K
                # the bound is on the height: a least height of K puts a secret at depth K
                low.lower_bound = int(low.lower_bound == depth)
                return Step(_stopped(low), meta=step.meta)
            if low.root is None or low.value > depth:
                if low.lower_bound > depth:  # proven, stopped or not
                    low.stopped, low.notes = False, [f"no tree of height {depth} or less exists"]
                low.root = None
                return step
            start = low.root
        held = Outcome(0, start, False, 0)
        try:
            return step.then(self._deepest(depth, start, None))
        except KeyboardInterrupt:
            return Step(_stopped(held), held, step.meta)

    def _deepest(self, depth: int, start: Node, height: int | None) -> Step:
        """The fewest secrets at ``depth`` then the least total (value 2^22 x count + total), the
        count proven first. ``height``: the proven least height when it is the first component
        (height,deepest), which is then the tree's lower bound when not all is proven."""
        count, both = self.fewest_deepest(depth, start)
        meta = {"deep_search": count.effort()}
        if both is not None:
            meta["deepest_search"] = both.effort()
        out = both if both is not None else count
        if count.optimal:
            meta["deepest_proven"] = count.value
        elif count.lower_bound is not None:
            meta["deepest_lower_bound"] = int(count.lower_bound)
        if both is None or not both.optimal:
            out = _stopped(out) if out.stopped else out
            if out.root is None or both is None:
                out.root = count.root if count.root is not None else start
            out.optimal = False
            out.lower_bound = height if height is not None else count.lower_bound
        return Step(out, Outcome(0, start, False, 0), meta)

    def _total_first(self, obj: Objective, depth: int, first: Outcome) -> Step:
        out = self.min_total(depth, *self.total_start(
            depth, (first.value, first.root) if first.root else (None, None)), gap=self.gap)
        step = Step(out, meta={"total_search": out.effort()})
        if obj.tie == "height" and out.optimal:
            out = self._least_height_at_total(out)
            step = step.then(Step(out, meta={"height_search": out.effort()}))
        return step

    def _height_start(self) -> tuple:
        """(height, root) of the lowest greedy tree: what the least-height search must beat."""
        return height_incumbent(self.game, self.guesses, self.deadline, self.opening)

    def total_start(self, depth: int, start: tuple = (None, None)) -> tuple:
        """(total, root) for a least-total search within ``depth`` to beat: ``start`` or a
        better greedy tree. A game searched as one job finds its optimum as quickly without the
        greedy tree (the same nodes on Mastermind 4x6, moo 10,11,12 and Bulls and Cows 4 of 7),
        so it is not built there; searched by classes, every job starts from the best bound."""
        if self.total_search(gap=self.gap).whole_game():
            return start
        return total_incumbent(self.game, self.guesses, depth, self.deadline, start,
                               self.opening)

    def cost_of(self, cost: str, depth: int, root: Node) -> int:
        """What a least-cost search of ``cost`` within ``depth`` counts for the tree ``root``."""
        return cost_value(cost, depth, replay(Tree(self.game, root, "", self.guesses)))

    def _first_consistent(self, obj: Objective, depth: int) -> Outcome:
        """Seed 000's tree (quick for every game), with the counting bound of the objective's
        first component: what is written if the run is stopped before anything better exists."""
        height, total, root = greedy(self.game, "first-consistent", self.guesses,
                                     opening=self.opening)
        s, n = self.solver, self.game.n_secrets
        if obj.first == "deepest":
            return Outcome(0, root if height <= depth else None, False, 0)
        if obj.first == "height":
            return Outcome(height, root, False, s.counting_height(n))
        lower = s.counting(n, depth)
        return Outcome(total, root if height <= depth else None, False, lower)

    def _least_height_at_total(self, best: Outcome) -> Outcome:
        """Among trees of least total, one of least height: raise the depth limit from the least
        height until a tree within it reaches the unlimited least total."""
        least = self.min_height(self._height_start())
        if not least.optimal:
            return Outcome(best.value, best.root, False, best.lower_bound, least.nodes,
                           least.seconds, least.notes, least.stopped)
        depth = least.value
        while True:
            out = self.min_total(depth, best.value)
            if out.optimal and out.value == best.value:
                return out
            if out.stopped:
                return Outcome(best.value, best.root, False, best.lower_bound, out.nodes,
                               out.seconds, out.notes, True)
            depth += 1

    def _tree(self, obj: Objective, out: Outcome, meta: dict) -> Tree:
        tree = Tree(game=self.game, root=out.root, objective=obj.name, guesses=self.guesses,
                    optimal=out.optimal, meta=meta)
        if self.opening is not None:  # proven among the trees opening so, not over all trees
            meta["opening"] = {"guess": self.game.format_code(self.opening),
                               "optimal": out.optimal}
            if not out.optimal:
                meta["opening"]["lower_bound"] = int(out.lower_bound)
            tree.optimal = False
        elif not out.optimal:
            tree.lower_bound = int(out.lower_bound)
        if not out.optimal:
            return checked(tree)
        return checked(tree, lambda replayed: claimed(obj, replayed), out.value)


def claimed(obj: Objective, replayed) -> int | None:
    """The value of ``obj`` that a replayed tree has (what an optimal search claims)."""
    value = replayed.height if obj.first == "height" and not obj.tie else None
    if obj.first == "total" or obj.tie == "total":
        value = replayed.total
    if "deepest" in obj.components:
        value = cost_value("deepest", obj.depth or replayed.height, replayed)
    return value


def _stopped(out: Outcome) -> Outcome:
    out.optimal, out.stopped = False, True
    if STOPPED_EARLY not in out.notes:
        out.notes.append(STOPPED_EARLY)
    return out


def _plain(cost: str, value: int | None):
    """A cost as a reader takes it: deepest's value packs the count at the depth limit above
    the total (objective.LAST_FIRST), which the file gives as the two numbers."""
    if cost != "deepest" or value is None:
        return value
    deep, total = divmod(int(value), LAST_FIRST)
    return {"deepest": deep, "total": total}
