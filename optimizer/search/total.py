"""The least total of a whole game within a depth, on an engine: branch and bound over the root
classes in the order of their one-step bound.

- Each part of a root class is a job whose cut-off (beta) comes from the best total found so far
  and the other parts' lower bounds; the first part that cannot beat its cut-off ends the class.
- The largest part is split further, one job per guess of its own (in the kernel's order), fed to
  the workers as they finish, so that each new job starts with the least total found so far as
  its cut-off.
- Every settled class is recorded in the checkpoint (its exact least total, or the lower bound
  proven against the incumbent), and every better tree as the incumbent: a search stopped for any
  reason goes on from there, here or on another machine.
"""

from __future__ import annotations

import heapq
import time

from ..kernels.bundles import DCAP, INF, LAST_FIRST
from ..tree import Node
from .jobs import class_bound, total_guess, total_part
from .progress import Board, Pace
from .root import STOPPED_EARLY, Outcome, RootSearch
from .split_part import SplitPart


class TotalSearch(RootSearch):
    """``cost``: what is minimised (kernels.bundles.COSTS): the total, or the secrets at the
    last level allowed (then the total: "deepest"; alone: "deep")."""

    cost = "total"
    lookahead = 0  # levels of the lookahead bound raised at the root before the search
    least_height = 0  # the game's least height, when proven (0: not known)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.taken: set[int] = set()  # classes whose facts came from the checkpoint
        self.parts_taken = 0  # facts below the root taken from it
        self.board = Board(self.bar, self.shown, [0])  # what min_total shows beside its bar

    def min_total(self, depth: int, upper: int | None = None,
                  incumbent: Node | None = None) -> Outcome:
        """Least cost within ``depth``. ``upper``/``incumbent``: a known tree to beat (or tie)."""
        start, counted = time.monotonic(), self.nodes
        self.taken, self.parts_taken = set(), 0
        classes = self.first_classes(depth)
        log = self.checkpoint
        if log is not None:
            upper, incumbent = log.better_incumbent(self.cost, depth, upper, incumbent)
            if incumbent is not None:
                log.record_incumbent(self.cost, depth, upper, incumbent)
        # A tree in hand need only be beaten; a value without one must be reached (ties count).
        best = int(INF) if upper is None else upper if incumbent is not None else upper + 1
        if log is not None:
            classes = self._known_bounds(classes, depth, best)
        out = Outcome(upper or 0, incumbent, False, 0)
        if self.lookahead and depth >= 3:
            try:
                classes = self.raise_bounds(classes, depth, best)
            except (KeyboardInterrupt, TimeoutError):
                out.stopped = True
                out.notes.append(STOPPED_EARLY)
                out.nodes = self.nodes - counted
                out.seconds = time.monotonic() - start
                out.taken = len(self.taken)
                out.lower_bound = min((c[0] for c in classes), default=int(INF))
                if out.value:
                    out.lower_bound = min(out.lower_bound, out.value)
                return out
        classes.sort(key=lambda c: c[0])
        proven = [c[0] for c in classes]  # lower bound per class, raised as it is settled
        bar = self.bar = self.observer.bar(total=sum(len(c[2]) for c in classes),
                                           desc=f"{self.cost}: root parts", unit="part")
        board = self.board = Board(bar, self.shown, proven, best,
                                    out.value if out.root is not None else None)
        pace = Pace([c[0] for c in classes], self.engine.workers)  # sorted just above
        try:
            if self.whole_game():
                value, root = self.game_total(depth, best)
                out.searched = len(classes)
                if root is not None and value < best:
                    out.value, out.root = value, root
                proven[:] = [max(value, best)] * len(proven)
                classes = []
            for index, (bound, guess, parts) in enumerate(classes):
                board.index = index
                if bound >= best:  # this class and every later one cannot do better
                    bar.update(sum(len(c[2]) for c in classes[index:]))
                    break
                known = 0 if log is None else log.total_lower_bound(self.cost, guess, depth)
                if known >= best:
                    board.settle(known)
                    self.taken.add(guess)
                    bar.update(len(parts))
                    continue
                value, root = self.class_total(guess, parts, depth, best)
                out.searched += 1
                if root is not None and value < best:
                    best = out.value = board.best = board.value = value
                    out.root = root
                    if log is not None:
                        log.record_incumbent(self.cost, depth, value, root)
                board.settle(max(value, best))
                board.estimate = pace.update(index, best)
                if log is not None:
                    log.record_estimate(self.cost, depth, pace.left)
                    log.record_total(self.cost, guess, depth, value, exact=root is not None)
        except (KeyboardInterrupt, TimeoutError):
            out.stopped = True
            out.notes.append(STOPPED_EARLY)
        finally:
            bar.close()
            if log is not None:
                log.flush()
        out.nodes = self.nodes - counted
        out.seconds = time.monotonic() - start
        out.taken, out.parts_taken = len(self.taken), self.parts_taken
        out.lower_bound = min(proven) if proven else int(INF)
        if out.stopped:
            out.lower_bound = min(out.lower_bound, out.value or out.lower_bound)
            out.work_left = pace.left
            return out
        if out.root is None:
            out.notes.append(f"no tree of height {depth} or less exists")
            return out
        out.optimal, out.lower_bound = True, out.value
        return out

    def _known_bounds(self, classes: list, depth: int, best: int) -> list:
        """The classes with their bounds raised to what the checkpoint proves of them: the
        order they are searched in, and the bound a stopped run reports, start from there. (A
        class its counting bound already rules out against ``best`` takes nothing.)"""
        out = []
        for bound, guess, parts in classes:
            known = self.checkpoint.total_lower_bound(self.cost, guess, depth)
            if known > bound and bound < best:
                self.taken.add(guess)
                bound = known
            out.append((bound, guess, parts))
        return out

    def whole_game(self) -> bool:
        """Whether the root is one job: one thread, with nothing to record per class. The
        kernel's own root then searches it (its probes and table reach across the classes),
        and only the winning tree is built: Mastermind 4x6 took half the CPU time this way
        (39,711 nodes against 48,837 by classes), 4x7 3.5 s against 5.2 s by classes on two
        threads (engine.PARALLEL_PART)."""
        return (self.engine.workers == 1 and self.checkpoint is None and not self.lookahead
                and self.opening is None)

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
        dc = min(depth - 1, DCAP)
        # When no tree is shorter than the depth limit, every tree within it solves a secret at
        # that level: the counts of the deepest level ("deep", "deepest") are at least one.
        floor = bounds.last_cost if self.least_height >= depth else 0
        classes = []
        for guess, parts in self.root_classes():
            bound = bounds.guess_cost * s.game.n_secrets + sum(
                int(bounds.LB[s.branches, len(p), dc]) for p in parts.values())
            if bound < floor:
                bound += floor
            if bound < INF:
                classes.append((bound, guess, parts))
        return classes

    def raise_bounds(self, classes: list, depth: int, best: int) -> list:
        """The root classes with their bounds raised by the lookahead bound (kernels.lookahead),
        up to ``self.lookahead`` levels, lowest class first: the least of them is the proven
        bound on the whole game, and each job lifts it where it is lowest. A class whose bound
        reaches ``best`` (the tree in hand) cannot beat it and is left. A job asks only whether
        its class reaches the next class's bound plus a step; one that does is asked again
        later with a higher cut-off, at the same level (the table keeps what it learnt).
        Every raised bound is recorded in the checkpoint; the list is modified in place and
        returned (in any order) when the time limit is reached, TimeoutError."""
        n = self.solver.game.n_secrets
        log = self.checkpoint
        step = max(1, n // 10)
        level = {}
        for i, (bound, guess, parts) in enumerate(classes):
            if log is not None:
                known = log.total_lower_bound(self.cost, guess, depth)
                level[guess] = log.lookahead_levels(self.cost, guess, depth)
                if known > bound:
                    classes[i] = (known, guess, parts)
                    self.taken.add(guess)
            else:
                level[guess] = 0
        heap = [(b, g) for b, g, _ in classes if b < best and level[g] < self.lookahead]
        heapq.heapify(heap)
        where = {g: i for i, (_, g, _) in enumerate(classes)}
        bar = self.observer.bar(desc=f"{self.cost}: lookahead bounds", unit="job")
        running: dict = {}  # job -> (guess, level asked, beta)

        def show() -> None:
            bound = min(c[0] for c in classes)
            gap = (best - bound) / bound if bound and best < INF else float("inf")
            bar.set_postfix_str(f"bound {self.shown(bound)}, best {self.shown(best)}, "
                                f"gap {100 * gap:.2f}%")

        def feed() -> None:
            while heap and len(running) < self.engine.workers:
                bound, guess = heapq.heappop(heap)
                nxt = heap[0][0] if heap else bound
                beta = min(best, max(bound, nxt) + step)
                parts = sorted(classes[where[guess]][2].values(), key=len, reverse=True)
                job = self.submit(class_bound, guess, parts, depth, level[guess] + 1, beta,
                                  self.cost)
                running[job] = (guess, level[guess] + 1, beta)

        show()
        feed()
        pending = list(running)
        try:
            while pending:
                for job in self.finished(pending):
                    guess, asked, beta = running.pop(job)
                    value, _, _ = self.result(job)
                    bar.update(1)
                    i = where[guess]
                    old = classes[i][0]
                    if value < beta:  # the whole level: this class is done with it
                        level[guess] = asked
                    if value > old:
                        classes[i] = (value, guess, classes[i][2])
                    if log is not None and value >= old:
                        log.record_total(self.cost, guess, depth, value, False, level[guess])
                    if classes[i][0] < best and level[guess] < self.lookahead:
                        heapq.heappush(heap, (classes[i][0], guess))
                    show()
                    feed()
                    pending.extend(j for j in running if j not in pending)
                    break
        finally:
            self.cancel(list(running))
            bar.close()
        return classes

    def shown(self, value: int) -> str:
        """A cost as people read it: the total, or the secrets at the last level (and total)."""
        if self.cost == "deepest":
            deep, total = divmod(value, LAST_FIRST)
            return f"{deep} deepest (total {total})"
        return str(value)

    def class_total(self, guess: int, parts: dict, depth: int, best: int):
        """(total, root node) of the best tree opening with ``guess`` when below ``best``, else
        (a lower bound, None). Each part is a job with a cut-off from ``best`` and the other
        parts' bounds; the largest part may be split into one job per guess. Parts (and a split
        part's guesses) settled by earlier runs are taken from the checkpoint, and each one
        settled now is recorded there. Its progress goes to ``self.board``, the root
        search's."""
        s, bar, board = self.solver, self.bar, self.board
        bounds, _ = s.cost(self.cost)
        n = bounds.guess_cost * s.game.n_secrets  # the root guess, once for every secret
        dc = min(depth - 1, DCAP)
        order = sorted(parts.items(), key=lambda kv: -len(kv[1]))
        if not order:  # the only code: solved by the first guess
            return n + bounds.last_cost * (depth == 1), Node(guess)
        lbs = {fid: int(bounds.LB[s.branches, len(p), dc]) for fid, p in order}
        subtrees = self._known_parts(guess, order, depth, lbs)
        if n + sum(lbs.values()) >= best:
            bar.update(len(order))
            return n + sum(lbs.values()), None
        todo = [(fid, part) for fid, part in order if fid not in subtrees]
        bar.update(len(order) - len(todo))
        split = None
        if todo and depth >= 3 and len(todo[0][1]) > 2 and self.splits(todo[0][1]):
            fid, part = todo[0]
            ranked, branching, _ = s.rank_total(part, depth - 1, [guess], cost=self.cost)
            lbs[fid] = max(lbs[fid], ranked[0][0] if ranked else int(INF))
            if n + sum(lbs.values()) >= best:
                bar.update(len(todo))
                return n + sum(lbs.values()), None
            split = SplitPart(fid, part, branching, ranked,
                               best - n - (sum(lbs.values()) - lbs[fid]))
            self._known_openings(split, guess, depth)
        jobs = {}  # job -> feedback id of its part
        if split is not None:
            jobs.update(dict.fromkeys(self._feed(split, depth - 1, [guess]), split.fid))
        for fid, part in todo:
            if split is None or fid != split.fid:
                beta = best - n - (sum(lbs.values()) - lbs[fid])
                jobs[self.submit(total_part, part, depth - 1, beta, [guess], self.cost)] = fid
        pending = list(jobs)
        settled = []  # (fid, value, tree) of parts to settle
        if split is not None and not split.running:  # settled from the checkpoint alone
            settled.append((split.fid, split.lower_bound(), split.tree))
        try:
            while settled or pending:
                if not settled:
                    job = next(self.finished(pending))
                    value, tree = self.result(job)[:2]
                    fid = jobs[job]
                    if split is not None and fid == split.fid:
                        second = split.record(job, value, tree)
                        self._record(depth, (guess, fid, second), value, tree)
                        more = self._feed(split, depth - 1, [guess])
                        jobs.update(dict.fromkeys(more, fid))
                        pending.extend(more)
                        if split.running:
                            continue
                        value, tree = split.lower_bound(), split.tree
                    settled.append((fid, value, tree))
                fid, value, tree = settled.pop()
                self._record(depth, (guess, fid), value, tree)
                bar.update(1)
                lbs[fid] = value  # exact, or a lower bound when cut
                board.settle(n + sum(lbs.values()))
                if tree is None:
                    bar.update(len({jobs[j] for j in pending}))
                    return n + sum(lbs.values()), None
                subtrees[fid] = tree
        finally:
            self.cancel(pending)
        return n + sum(lbs.values()), Node(guess, {fid: subtrees[fid] for fid, _ in order})

    def _known_parts(self, guess: int, order: list, depth: int, lbs: dict) -> dict:
        """The subtrees of the parts the checkpoint settles exactly (their values put in
        ``lbs``, as are its bounds on the others)."""
        log, subtrees = self.checkpoint, {}
        if log is None:
            return subtrees
        for fid, _ in order:
            fact = log.part_fact(self.cost, depth, (guess, fid))
            if fact is None:
                continue
            self.parts_taken += 1
            if "exact" in fact:
                lbs[fid], subtrees[fid] = fact["exact"], fact["tree"]
            else:
                lbs[fid] = max(lbs[fid], fact["at_least"])
        return subtrees

    def _known_openings(self, split: SplitPart, guess: int, depth: int) -> None:
        """A split part's guesses the checkpoint settles (``SplitPart.take``)."""
        if self.checkpoint is not None:
            self.parts_taken += split.take(
                lambda second: self.checkpoint.part_fact(self.cost, depth,
                                                         (guess, split.fid, second)))

    def _record(self, depth: int, path: tuple, value: int, tree: Node | None) -> None:
        if self.checkpoint is not None:
            self.checkpoint.record_part(self.cost, depth, path, value, tree)

    def _feed(self, split: SplitPart, depth: int, path: list[int]) -> list:
        """Submit the split part's next guesses, up to one per worker."""
        new = []
        while split.queue and len(split.running) < self.engine.workers:
            bound, second = split.queue[0]
            if bound >= split.beta:  # this guess and every later one cannot do better
                split.bounds.append(bound)
                split.queue.clear()
                break
            if split.known.get(second, 0) >= split.beta:  # an earlier run's bound cuts it
                split.bounds.append(split.known[second])
                split.queue.pop(0)
                continue
            split.queue.pop(0)
            job = self.submit(total_guess, split.part, second, depth, split.beta,
                              split.branching, path, self.cost)
            split.running[job] = second
            new.append(job)
        return new
