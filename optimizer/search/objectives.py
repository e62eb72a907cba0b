"""What the commands ask of the exact search, assembled in one place: the objectives (height,
total, their combinations, depth limits), the greedy trees they start from, one run's solver,
engine, checkpoint and time limit (``Search``), and the tree written at the end, replayed first so
that a search bug is never written as a result.
"""

from __future__ import annotations

import time

from ..formats.checkpoint import Checkpoint
from ..games import Game
from ..kernels.bundles import DCAP
from ..objective import Objective, cost_value
from ..tree import Node, Tree, height_and_total, replay
from .engine import engine_plan, open_engine
from .height import HeightSearch
from .rollout import improve
from .root import STOPPED_EARLY, Outcome
from .solver import KERNELS, NodeSolver
from .strategies import STRATEGIES, grow_tree
from .total import TotalSearch

# --- greedy starting points --------------------------------------------------------------------
# Tried in order for the first upper bound of a least-total search: the first that fits the
# depth limit is taken (first-consistent is built first of all, as the tree to write should the
# search be stopped before anything better exists).
TOTAL_INCUMBENTS = ("entropy", "expected-size", "minimax", "most-parts")
HEIGHT_INCUMBENTS = ("minimax", "expected-size")


def _greedy(game: Game, name: str, guesses: str,
            deadline: float | None = None) -> tuple[int, int, Node]:
    """(height, total, root) of one greedy strategy's tree; TimeoutError past ``deadline``."""
    mode = "consistent" if name == "first-consistent" else guesses
    depths: dict[int, int] = {}
    root = grow_tree(game, STRATEGIES[name](game, 0), mode, deadline, depths)
    return (*height_and_total(depths), root)


def total_incumbent(game: Game, guesses: str, depth: int, deadline: float | None = None,
                    start=(None, None)):
    """(total, root) of a quick greedy tree within ``depth``: the better of ``start`` and the
    first of TOTAL_INCUMBENTS whose tree fits the limit (none is built past ``deadline``); a tree
    the exact search must beat or tie, and what it writes if stopped early."""
    best = start
    for name in TOTAL_INCUMBENTS:
        try:
            height, total, root = _greedy(game, name, guesses, deadline)
        except TimeoutError:
            break
        if height <= depth:
            if best[0] is None or total < best[0]:
                best = (total, root)
            break  # one good heuristic within the limit is enough
    return best


def height_incumbent(game: Game, guesses: str, deadline: float | None = None):
    """(height, root) of the lowest greedy tree (ties: lower total), the starting point of the
    least-height search."""
    best, best_key = (None, None), None
    for name in HEIGHT_INCUMBENTS:
        try:
            height, total, root = _greedy(game, name, guesses, deadline)
        except TimeoutError:
            break
        if best_key is None or (height, total) < best_key:
            best, best_key = (height, root), (height, total)
    return best


# --- one run -----------------------------------------------------------------------------------
class Search:
    """One run of the exact search: a solver, the engine its jobs run on, the checkpoint file and
    the deadline (a time.monotonic() value). A context manager: the engine (and any workers it
    started) is closed whatever ends the run."""

    def __init__(self, game: Game, guesses: str = "any", *, workers: int | None = None,
                 scheduler: str | None = None, deadline: float | None = None,
                 progress: bool = True, checkpoint: str | None = None,
                 solver: NodeSolver | None = None, lookahead: int = 0, improve: float = 0):
        if lookahead < 0:
            raise ValueError("--lookahead must be 0 or more levels")
        if improve < 0:
            raise ValueError("--improve must be 0 or more seconds")
        engine_plan(game, workers, scheduler)  # EngineError before any work
        self.game, self.guesses, self.lookahead = game, guesses, lookahead
        self.improve = improve
        self.deadline, self.progress = deadline, progress
        self.checkpoint = Checkpoint(checkpoint, game, guesses) if checkpoint else None
        if self.checkpoint is not None:
            self.checkpoint.check()
        self.solver = solver or NodeSolver(game, guesses)
        self.engine = open_engine(self.solver, workers, scheduler, deadline)
        self._ready: set[str] = set()
        # Facts taken from the checkpoint without checking them, summed over every search of
        # this run (a first-guess class refuted at a height, or its least cost bounded or
        # settled): what the claims of the trees it writes rest on besides its own search.
        self.facts_taken = 0

    def __enter__(self) -> Search:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.engine.close()

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Compile or load the kernels of these searches (solver.KERNELS) here, then load them on
        the workers (set-up, not search time), each once; compiling is said on stderr unless the
        run is quiet."""
        todo = tuple(k for k in kernels if k not in self._ready)
        if todo:
            self.solver.warm_up(todo, announce=self.progress)
            self.engine.ready(todo)
            self._ready.update(todo)

    def _args(self) -> dict:
        return dict(deadline=self.deadline, progress=self.progress, checkpoint=self.checkpoint)

    def min_height(self, incumbent=(None, None)) -> Outcome:
        self.ready(("height",))
        out = HeightSearch(self.solver, self.engine, **self._args()).min_height(incumbent)
        self.facts_taken += out.taken
        return out

    def min_total(self, depth: int, upper: int | None = None, incumbent: Node | None = None,
                  cost: str = "total") -> Outcome:
        """Least cost within ``depth`` (kernels.bundles.COSTS); ``incumbent``: a tree to beat,
        ``upper`` its cost."""
        # The height kernels only where something calls them: the rollouts (a tree's fit within
        # a depth limit); loading them for nothing was a tenth of a small game's command.
        improving = bool(self.improve) and cost == "total"
        self.ready(("total",) + ("lookahead",) * bool(self.lookahead) + ("height",) * improving)
        if improving:
            seconds = self.improve
            if self.deadline is not None:
                seconds = min(seconds, max(0.0, self.deadline - time.monotonic()))
            s = self.solver
            bound = int(s.bounds.LB[s.branches, self.game.n_codes, min(depth, DCAP)])
            upper, incumbent = improve(s, upper, incumbent, depth, seconds, bound, self.progress)
        out = self._total_search(cost).min_total(depth, upper, incumbent)
        self.facts_taken += out.taken
        return out

    def _total_search(self, cost: str = "total") -> TotalSearch:
        search = TotalSearch(self.solver, self.engine, **self._args())
        search.cost, search.lookahead = cost, self.lookahead
        return search

    def fewest_deepest(self, depth: int, start: Node, meta: dict,
                       lexicographic: bool = True) -> tuple[Outcome, Outcome | None]:
        """Among trees of height at most ``depth``, the fewest secrets solved with exactly
        ``depth`` guesses (that count alone, the "deep" cost), then, when ``lexicographic``, the
        least total among such trees (the "deepest" cost), each starting from the best tree
        known (``start`` is within ``depth``). Returns (the count's search, the total's or
        None)."""
        replayed = replay(Tree(self.game, start, "", self.guesses))
        count = self.min_total(depth, cost_value("deep", depth, replayed), start, "deep")
        meta["deep_search"] = count.effort()
        if not lexicographic or not count.optimal:
            return count, None
        tree = count.root if count.root is not None else start
        replayed = replay(Tree(self.game, tree, "", self.guesses))
        both = self.min_total(depth, cost_value("deepest", depth, replayed), tree, "deepest")
        meta["deepest_search"] = both.effort()
        return count, both

    # --- objectives ----------------------------------------------------------------------------
    def build(self, objective: str) -> Tree:
        """The tree of an exact objective, marked optimal only when the search completed; when
        stopped early (time limit, signal), the best tree found, ``meta.stopped`` set."""
        obj = Objective.parse(objective)
        if obj.components == ("height",) and (self.lookahead or self.improve):
            raise ValueError("--lookahead and --improve apply to least-cost objectives (total, "
                             "deepest and their combinations), not to height alone")
        meta: dict = {"program": "moo-optimizer", "guesses": self.guesses}
        if self.checkpoint is not None:
            meta["checkpoint"] = str(self.checkpoint.path)
        taken_before = self.facts_taken
        depth = obj.depth or self.game.n_codes
        best = [self._first_consistent(obj, depth)]  # what to write if stopped before better
        try:
            if obj.first == "height":
                out = self._height_first(obj, meta, best)
            elif obj.first == "deepest":
                out = self._deepest_first(obj, depth, meta, best)
            else:
                out = self._total_first(obj, depth, meta, best)
        except KeyboardInterrupt:  # between searches: write the best there is
            out = _stopped(best[-1])
        if out.root is None and out.stopped:  # stopped before the search found a tree
            out = _stopped(best[-1])
        if out.root is None:
            raise ValueError(f"{self.game.spec}: {'; '.join(out.notes) or 'no tree found'}")
        if out.stopped:
            meta["stopped"] = True
        if self.checkpoint is not None:  # the tree's provenance (tree.checkpoint_facts)
            meta["checkpoint_facts"] = self.facts_taken - taken_before
        return self._tree(obj, out, meta)

    def _height_first(self, obj: Objective, meta: dict, best: list) -> Outcome:
        out = self.min_height(height_incumbent(self.game, self.guesses, self.deadline))
        meta["height_search"] = out.effort()
        if obj.tie is None or not out.optimal:
            return out
        best.append(Outcome(out.value, out.root, False, out.value))
        if obj.tie == "deepest":
            return self._deepest(out.value, out.root, meta, best, out.value)
        start = _total_of(self.game, self.guesses, out.root), out.root
        total = self.min_total(out.value, *self.total_start(out.value, start))
        meta["total_search"] = total.effort()
        if not total.optimal:  # the height is proven; the tie-break is not
            meta["total_lower_bound"] = int(total.lower_bound)
            total.lower_bound = out.value
        return total

    def _deepest_first(self, obj: Objective, depth: int, meta: dict, best: list) -> Outcome:
        """deepest@K: a tree within K to start from (the first-consistent tree, or else the least
        height search's), then the fewest at depth K and the least total."""
        start = best[0].root
        if start is None:
            low = self.min_height(height_incumbent(self.game, self.guesses, self.deadline))
            meta["height_search"] = low.effort()
            if low.root is None or low.value > depth:
                if low.optimal:
                    low.notes.append(f"no tree of height {depth} or less exists")
                low.root = None
                return low
            start = low.root
        best.append(Outcome(0, start, False, 0))
        return self._deepest(depth, start, meta, best, None)

    def _deepest(self, depth: int, start: Node, meta: dict, best: list,
                 height: int | None) -> Outcome:
        """The fewest secrets at ``depth`` then the least total (value 2^22 x count + total), the
        count proven first. ``height``: the proven least height when it is the first component
        (height,deepest), which is then the tree's lower bound when not all is proven."""
        count, both = self.fewest_deepest(depth, start, meta)
        out = both if both is not None else count
        if count.optimal:
            meta["deepest_proven"] = count.value
        elif count.lower_bound is not None:
            meta["deepest_lower_bound"] = int(count.lower_bound)
        if both is None or not both.optimal:
            if count.root is not None:
                best.append(Outcome(0, count.root, False, 0))
            out = _stopped(out) if out.stopped else out
            if out.root is None or both is None:
                out.root = best[-1].root
            out.optimal = False
            out.lower_bound = height if height is not None else count.lower_bound
        return out

    def _total_first(self, obj: Objective, depth: int, meta: dict, best: list) -> Outcome:
        first = best[0]
        out = self.min_total(depth, *self.total_start(
            depth, (first.value, first.root) if first.root else (None, None)))
        meta["total_search"] = out.effort()
        if obj.tie == "height" and out.optimal:
            out = self._least_height_at_total(out)
            meta["height_search"] = out.effort()
        return out

    def total_start(self, depth: int, start: tuple = (None, None)) -> tuple:
        """(total, root) for a least-total search within ``depth`` to beat: ``start`` or a
        better greedy tree. A game searched as one job finds its optimum as quickly without the
        greedy tree (the same nodes on Mastermind 4x6, moo 10,11,12 and Bulls and Cows 4 of 7),
        so it is not built there; searched by classes, every job starts from the best bound."""
        if self._total_search().whole_game():
            return start
        return total_incumbent(self.game, self.guesses, depth, self.deadline, start)

    def _first_consistent(self, obj: Objective, depth: int) -> Outcome:
        """Seed 000's tree (quick for every game), with the counting bound of the objective's
        first component: what is written if the run is stopped before anything better exists."""
        height, total, root = _greedy(self.game, "first-consistent", self.guesses)
        s, n = self.solver, self.game.n_codes
        if obj.first == "deepest":
            return Outcome(0, root if height <= depth else None, False, 0)
        if obj.first == "height":
            lower = 1
            while s.bounds.M[s.branches, min(lower, DCAP)] < n:
                lower += 1
            return Outcome(height, root, False, lower)
        lower = int(s.bounds.LB[s.branches, n, min(depth, DCAP)])
        return Outcome(total, root if height <= depth else None, False, lower)

    def _least_height_at_total(self, best: Outcome) -> Outcome:
        """Among trees of least total, one of least height: raise the depth limit from the least
        height until a tree within it reaches the unlimited least total."""
        least = self.min_height(height_incumbent(self.game, self.guesses, self.deadline))
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
        if not out.optimal:
            tree.lower_bound = int(out.lower_bound)
        replayed = replay(tree)
        if replayed.defects:  # a search bug must never be written as a result
            raise RuntimeError("the search built a defective tree: " + replayed.defects[0])
        claimed = replayed.height if obj.first == "height" and not obj.tie else None
        if obj.first == "total" or obj.tie == "total":
            claimed = replayed.total
        if "deepest" in obj.components:
            claimed = cost_value("deepest", obj.depth or replayed.height, replayed)
        if out.optimal and claimed != out.value:
            raise RuntimeError(f"the search claimed {out.value} but its tree replays to {claimed}")
        tree.replayed = replayed  # checked: the file is written from this replay
        return tree


def _stopped(out: Outcome) -> Outcome:
    out.optimal, out.stopped = False, True
    if STOPPED_EARLY not in out.notes:
        out.notes.append(STOPPED_EARLY)
    return out


def _total_of(game: Game, guesses: str, root: Node) -> int:
    return replay(Tree(game=game, root=root, objective="", guesses=guesses)).total


def build_exact(game: Game, objective: str, guesses: str = "any",
                time_limit: float | None = None, workers: int | None = None,
                progress: bool = True, checkpoint: str | None = None,
                scheduler: str | None = None, lookahead: int = 0, improve: float = 0) -> Tree:
    """One exact build with its own run (tests and scripts; the command line uses Search)."""
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    with Search(game, guesses, workers=workers, scheduler=scheduler, deadline=deadline,
                progress=progress, checkpoint=checkpoint, lookahead=lookahead,
                improve=improve) as search:
        return search.build(objective)
