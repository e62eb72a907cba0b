"""The least total of a whole game within a depth, on an engine: branch and bound over the root
classes in the order of their one-step bound.

- Each root class is settled by root_class.RootClass: its parts are jobs, raised in shares of
  what they miss to beat the best total found so far, the largest part maybe one job per guess.
- Every settled class is recorded in the checkpoint (its exact least total, or the lower bound
  proven against the incumbent), and every better tree as the incumbent: a search stopped for any
  reason goes on from there, here or on another machine.
"""

from __future__ import annotations

import math
import time
from collections import deque
from fractions import Fraction

from ..kernels.bundles import INF
from ..objective import cost_text
from ..tree import Node
from .engine import MANY_CLASSES, Inline, Stopped
from .jobs import _counted, total_part
from .openings import OpeningJobs
from .progress import Board, Pace
from .root import STOPPED_EARLY, Outcome, RootSearch
from .root_bounds import raise_bounds
from .root_class import Refuted, RootClass
from .solver import NodeSolver


class TotalSearch(RootSearch):
    """``cost``: what is minimised (kernels.bundles.COSTS): the total, or the secrets at the
    last level allowed (then the total: "deepest"; alone: "deep")."""

    cost = "total"
    lookahead = 0  # levels of the lookahead bound raised at the root before the search
    gap = 0.0  # percent: classes need only be shown to cost at least ``goal(best)`` (--gap)
    least_height = 0  # the game's least height, when proven (0: not known)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.taken: set[int] = set()  # classes whose facts came from the checkpoint
        self.parts_taken: set[tuple] = set()  # paths of the facts below the root taken from it
        self.board = Board(self.bar, self.shown, [0])  # what min_total shows beside its bar

    def min_total(self, depth: int, upper: int | None = None,
                  incumbent: Node | None = None) -> Outcome:
        """Least cost within ``depth``. ``upper``/``incumbent``: a known tree to beat (or tie)."""
        start, counted = time.monotonic(), self.nodes
        self.taken, self.parts_taken = set(), set()
        classes = self.first_classes(depth)
        log = self.checkpoint
        if log is not None:
            upper, incumbent = log.better_incumbent(self.cost, depth, upper, incumbent)
            if incumbent is not None:
                log.record_incumbent(self.cost, depth, upper, incumbent)
                log.tree_in_hand(incumbent, depth, self.cost, depth, upper)
        # A tree in hand need only be beaten; a value without one must be reached (ties count).
        best = int(INF) if upper is None else upper if incumbent is not None else upper + 1
        if log is not None:
            classes = self._known_bounds(classes, depth, best)
        out = Outcome(upper or 0, incumbent, False, 0, gap=self.gap)
        if self.lookahead and depth >= 3:
            try:
                classes = self.raise_bounds(classes, depth, best)
            except (KeyboardInterrupt, TimeoutError):
                out.stopped = True
                out.notes.append(STOPPED_EARLY)
                out.nodes = self.nodes - counted
                out.seconds = time.monotonic() - start
                out.taken, out.parts_taken = self._still_taken(depth), len(self.parts_taken)
                out.lower_bound = min((c[0] for c in classes), default=int(INF))
                if out.value:
                    out.lower_bound = min(out.lower_bound, out.value)
                return out
        classes.sort(key=lambda c: c[0])
        proven = [c[0] for c in classes]  # lower bound per class, raised as it is settled
        bar = self.bar = self.observer.bar(total=sum(len(c[2]) for c in classes),
                                           desc=f"{self.cost}: root parts", unit="part")
        self.board = Board(bar, self.shown, proven, best,
                           out.value if out.root is not None else None)
        goal = self.goal(best)
        guesses = [c[1] for c in classes]
        pace = Pace([c[0] for c in classes], goal, self.spent(),  # sorted above
                    log.spent_so_far(self.cost, depth, self._kind(goal)) if log is not None
                    else (0.0, 0, 1), None if log is None else
                    lambda i: log.total_lower_bound(self.cost, guesses[i], depth),
                    log.drawn_so_far(self.cost, depth) if log is not None
                    and self._kind(goal) is None else (0.0, 0))
        try:
            if self.whole_game():
                value, root = self.game_total(depth, best)
                out.searched = len(classes)
                if root is not None and value < best:
                    out.value, out.root = value, root
                proven[:] = [max(value, best)] * len(proven)
                classes = []
            self._settle_classes(classes, depth, best, out, pace)
        except (KeyboardInterrupt, TimeoutError):
            out.stopped = True
            out.notes.append(STOPPED_EARLY)
        finally:
            bar.close()
            self._record_now(pace, depth)
        out.nodes = self.nodes - counted
        out.seconds = time.monotonic() - start
        out.taken, out.parts_taken = self._still_taken(depth), len(self.parts_taken)
        out.lower_bound = min(proven) if proven else int(INF)
        if out.stopped:
            out.lower_bound = min(out.lower_bound, out.value or out.lower_bound)
            own = pace.own()
            out.work_left = pace.left if pace.left is None or own is None else {
                **pace.left, "this_run": own}
            return out
        if out.root is None:
            out.notes.append(f"no tree of height {depth} or less exists")
            return out
        if self.gap and out.lower_bound < out.value:  # some class shown to reach the goal only
            out.notes.append(f"proven within {self.gap:g}% (--gap), not optimal")
            return out
        out.optimal, out.lower_bound = True, out.value
        return out

    def goal(self, best: int) -> int:
        """What a class must be shown to cost at least: ``best``, the cost in hand, or with
        --gap the least value within the gap of it, ceil(best / (1 + gap/100)) (each class at
        least that: the best is at most the gap above the optimum)."""
        if not self.gap or best >= INF:
            return best
        return math.ceil(Fraction(best) / (1 + Fraction(self.gap) / 100))

    def _settle_classes(self, classes: list, depth: int, best: int, out: Outcome,
                        pace: Pace) -> None:
        """Settle the classes (sorted by bound) against the best cost in hand, which each better
        tree lowers: a class is searched whole as one job when there are many (openings.py), by
        parts otherwise or when its job outruns the cap or its parts have facts on file. The
        incumbent, the board and the checkpoint follow each class settled.

        Classes by parts run side by side, as many as there are workers, sharing them (each
        class's steps, RootClass.steps, submit jobs while fewer than the workers run): one
        class at a time left a worker idle at the end of each of its passes and while this
        thread ranked the next class's guesses (Battleship, --gap 1.5, 300 s: 9 classes
        settled against 8, 4.6% more CPU searching)."""
        log, board, bar = self.checkpoint, self.board, self.bar
        whole = OpeningJobs(self, depth, total_opening) if len(classes) >= MANY_CLASSES \
            else None
        todo = deque(range(len(classes)))
        by_parts: deque[int] = deque()  # classes to search by parts, not yet begun
        active: dict = {}  # class index -> (its RootClass, its steps), waiting on its jobs
        skipped: list[int] = []  # classes their bound settled, never searched

        def at_once() -> int:
            """Classes side by side: one while there is no tree to beat (each would solve
            every part exactly)."""
            return 1 if best >= INF else max(1, self.engine.workers)

        def room() -> bool:
            return sum(len(cls.jobs) for cls, _ in active.values()) < self.engine.workers

        def settled(index: int, value: int, root: Node | None) -> None:
            nonlocal best
            guess = classes[index][1]
            out.searched += 1
            if root is not None and value < best:
                old_goal, goal = self.goal(best), self.goal(value)
                best = out.value = board.best = board.value = value
                out.root = root
                if log is not None:
                    log.record_incumbent(self.cost, depth, value, root)
                    if self.gap and goal != old_goal:  # the goal fell: the pace is that of
                        # the runs of the new goal (this one's record moves there)
                        pace.before = log.spent_so_far(self.cost, depth, self._kind(goal))
                for cls, _ in active.values():  # a lower cut-off for the classes still on
                    if cls.best < INF:  # (one with no tree to beat solves every part)
                        cls.best = min(cls.best, goal)
            running = len(by_parts) + len(active) + (len(whole.running) if whole is not None
                                                     else 0)
            board.estimate = pace.update(self.goal(best), todo[0] if todo else len(classes),
                                         running, self.spent())
            board.settle(max(value, best) if not self.gap else value, index)  # drawn: after
            self._record_pace(pace, depth)
            if log is not None:
                log.record_total(self.cost, guess, depth, value, exact=root is not None)

        def feed() -> None:
            while todo and len(by_parts) + len(active) < at_once() and (whole is None
                                                                         or whole.room()):
                index = todo[0]
                bound, guess, parts = classes[index]
                if bound >= self.goal(best):  # this class and every later one are done
                    bar.update(sum(len(classes[i][2]) for i in todo))
                    skipped.extend(todo)
                    todo.clear()
                    return
                known = 0 if log is None else log.total_lower_bound(self.cost, guess, depth)
                if known >= self.goal(best):
                    todo.popleft()
                    board.settle(known, index)
                    self.took(guess, depth)
                    bar.update(len(parts))
                elif whole is None or not whole.on or self._has_part_facts(guess, parts, depth):
                    by_parts.append(todo.popleft())
                elif by_parts or active:  # a class whole waits for those by parts to end
                    return
                else:
                    todo.popleft()
                    whole.send(index, guess, self.goal(best))

        def step(index: int, job, refuted: bool = False) -> None:
            """Class ``index``'s next steps, given one of its jobs that finished (or None); or
            ``refuted``: its bound reaches the cut-off a better tree lowered (settled)."""
            steps = active[index][1]
            try:
                steps.throw(Refuted()) if refuted else steps.send(job)
            except StopIteration as done:
                del active[index]
                settled(index, *done.value)
                while beaten := [i for i, (cls, _) in active.items()  # by the better tree
                                 if cls.lower() >= cls.best]:
                    step(beaten[0], None, refuted=True)

        try:
            while True:
                if log is not None and pace.due():  # a kill leaves no last record
                    self._record_now(pace, depth)
                feed()
                if whole is not None and whole.running:
                    index, value, root = whole.next()
                    if value is None:  # outran the cap
                        by_parts.append(index)
                    else:
                        bar.update(len(classes[index][2]))
                        settled(index, value, root)
                    continue
                while by_parts and len(active) < at_once():
                    index = by_parts.popleft()
                    bound, guess, parts = classes[index]
                    cls = self.root_class(guess, parts, depth, self.goal(best), index, room)
                    active[index] = (cls, cls.steps())
                    step(index, None)  # up to its first wait (or settled at once)
                if active:  # each class's steps wait for its running jobs (RootClass.steps)
                    waiting = [job for cls, _ in active.values() for job in cls.jobs]
                    job = next(self.finished(waiting)) if waiting else None
                    owner = next((i for i, (cls, _) in active.items() if job in cls.jobs), None)
                    if owner is not None:
                        step(owner, job)
                    for index in list(active):  # then any room left, the oldest class first
                        if index != owner and index in active:
                            step(index, None)
                elif not todo and not by_parts:
                    self._drop_skipped(skipped, classes, depth, best, out)
                    return
        finally:
            for _, steps in active.values():
                steps.close()  # cancels its jobs
            if whole is not None:
                whole.stop()

    def _drop_skipped(self, skipped: list[int], classes: list, depth: int, best: int,
                      out: Outcome) -> None:
        """Forget the part facts of the classes the tree found settles by their bound: a run
        stopped beside them may have left some, and no search would take them up again. Not
        without a tree (a run asking whether a value is reached settles nothing on file)."""
        if self.checkpoint is not None and out.root is not None and skipped:
            self.checkpoint.drop_classes_parts(self.cost, depth, {
                classes[i][1] for i in skipped if classes[i][0] >= best})

    def _record_now(self, pace: Pace, depth: int) -> None:
        """The CPU of the run's finished jobs, recorded and written: at its end, and every
        ``Pace.record_every`` seconds."""
        pace.finish(self.spent())
        self._record_pace(pace, depth)
        if self.checkpoint is not None:
            self.checkpoint.flush()

    def _record_pace(self, pace: Pace, depth: int) -> None:
        """What the run spent since the last record, and the estimate, into the checkpoint. A
        --gap run's spending is kept under its goal, apart from the runs that settle classes
        against the best (whose pace it would halve), and its estimate is not written: the
        file's is the work left to settle every class."""
        log = self.checkpoint
        if log is None:
            return
        cpu, classes = pace.spent()
        if cpu > 0 or classes:
            log.record_spent(self.cost, depth, cpu, classes, self._kind(pace.best))
        if pace.left is not None and not self.gap:
            log.record_estimate(self.cost, depth, pace.left)

    def _kind(self, goal: int) -> int | None:
        """What this run's spending is kept under: a --gap run's goal, None for a run that
        settles classes against the best."""
        return goal if self.gap and goal < INF else None

    def _has_part_facts(self, guess: int, parts: dict, depth: int) -> bool:
        """Whether the checkpoint holds facts on a part of this class (an earlier run's search
        by parts, or the lookahead bound's): the search by parts takes them, a whole job would
        search them again."""
        log = self.checkpoint
        return log is not None and any(log.part_fact(self.cost, depth, (guess, fid)) is not None
                                       for fid in parts)

    def _known_bounds(self, classes: list, depth: int, best: int) -> list:
        """The classes with their bounds raised to what the checkpoint proves of them: the
        order they are searched in, and the bound a stopped run reports, start from there. (A
        class its counting bound already rules out against ``best`` takes nothing.)"""
        out = []
        for bound, guess, parts in classes:
            known = self.checkpoint.total_lower_bound(self.cost, guess, depth)
            if known > bound and bound < best:
                self.took(guess, depth)
                bound = known
            out.append((bound, guess, parts))
        return out

    def _still_taken(self, depth: int) -> int:
        """The classes taken from the checkpoint whose fact still stands as the file's: one
        this run found false (corrected) or proved again itself no longer rests on the file."""
        log = self.checkpoint
        return sum(1 for guess in self.taken if log.taken_class(self.cost, guess, depth))

    def took(self, guess: int, depth: int) -> None:
        """A class's bound comes from the checkpoint: counted as taken unless this run proved
        it (--improve's exact subtrees record their opening's class before the search)."""
        if self.checkpoint.taken_class(self.cost, guess, depth):
            self.taken.add(guess)

    def whole_game(self) -> bool:
        """Whether the root is one job: one thread, with nothing to record per class. The
        kernel's own root then searches it (its probes and table reach across the classes),
        and only the winning tree is built: Mastermind 4x6 took half the CPU time this way
        (39,711 nodes against 48,837 by classes), 4x7 3.5 s against 5.2 s by classes on two
        threads (engine.PARALLEL_PART)."""
        return (self.engine.workers == 1 and self.checkpoint is None and not self.lookahead
                and self.opening is None and not self.gap)

    def game_total(self, depth: int, best: int):
        """(least cost of the whole game below ``best`` and its tree, or a bound >= best and
        None), in one job."""
        root = self.solver.root()
        job = self.submit(total_part, root, depth, best, [], self.cost)
        pending = [job]
        try:
            for job in self.finished(pending):
                value, tree, _, _ = self.result(job)
                self.bar.update(self.bar.total)
                return value, tree
        finally:
            self.cancel(pending)
        raise AssertionError("unreachable")

    def first_classes(self, depth: int) -> list[tuple[int, int, dict]]:
        """(counting bound, guess, parts) of every root class that may fit within ``depth``."""
        s = self.solver
        bounds, _ = s.cost(self.cost)
        # When no tree is shorter than the depth limit, every tree within it solves a secret at
        # that level: the counts of the deepest level ("deep", "deepest") are at least one.
        floor = bounds.last_cost if self.least_height >= depth else 0
        classes = []
        for guess, parts in self.root_classes():
            bound = bounds.guess_cost * s.game.n_secrets + sum(
                s.counting(len(p), depth - 1, self.cost) for p in parts.values())
            if bound < floor:
                bound += floor
            if bound < INF:
                classes.append((bound, guess, parts))
        return classes

    def raise_bounds(self, classes: list, depth: int, best: int) -> list:
        """The root classes with their bounds raised by the lookahead bound, up to
        ``self.lookahead`` levels (root_bounds.raise_bounds)."""
        return raise_bounds(self, classes, depth, best)

    def shown(self, value: int) -> str:
        return cost_text(self.cost, value)

    def class_total(self, guess: int, parts: dict, depth: int, best: int):
        """(total, root node) of the best tree opening with ``guess`` when below ``best``, else
        (a lower bound, None): root_class.RootClass, its progress on ``self.board``."""
        return self.root_class(guess, parts, depth, best).settle()

    def root_class(self, guess: int, parts: dict, depth: int, best: int,
                   index: int | None = None, room=None) -> RootClass:
        """The search of one class (``index``: its place among the classes, on the board;
        ``room``: whether it may submit a job now, when several share the workers)."""
        return RootClass(self, guess, parts, depth, best, index, room)


def total_opening(solver: NodeSolver, guess: int, depth: int, beta: int, cost: str = "total"):
    """((least cost of the trees opening with ``guess`` within ``depth`` when below ``beta``,
    else a lower bound >= beta), its tree or None, nodes, CPU seconds): the class searched by
    RootClass on this worker alone, its parts one after another."""
    search = TotalSearch(solver, Inline(solver))
    search.cost = cost
    parts = solver.game.parts(guess, solver.root())

    def work():
        try:
            return search.class_total(guess, parts, depth, beta)
        except Stopped:  # cancelled: not read (jobs.run_job), and 0 is a true bound anyway
            return 0, None

    (value, tree), _, seconds = _counted(solver, work)
    return value, tree, search.nodes, seconds
