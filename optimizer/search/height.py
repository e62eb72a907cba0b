"""The least height of a whole game, on an engine: from both ends (the counting bound, then
downwards from the best known tree); at each depth the root classes are refuted or solved.

- A root class is solved when every part it leaves is solvable within depth - 1: each part is a
  job, and the largest part (the likeliest to fail) is split further, a slice of its guesses per
  job, so that several workers share its refutation; the first failing part rules the class out.
- With many classes to refute (Battleship: 1240), each worker takes a whole class's largest part
  (the part that refutes nearly every class) while the next classes wait in a short queue.
Results are taken in the classes' order, so the tree found does not depend on timing.
"""

from __future__ import annotations

import time

from ..kernels.bundles import DCAP
from ..tree import Node
from .jobs import height_guesses, height_part
from .root import STOPPED_EARLY, Outcome, RootSearch


def height_order(classes: list) -> list:
    """Root classes, the likeliest to fit a depth first: smallest largest part, most parts."""
    return sorted(classes, key=lambda c: (_largest(c[1]), -len(c[1])))


def _largest(parts: dict) -> int:
    return max((len(p) for p in parts.values()), default=0)


class HeightSearch(RootSearch):
    screen_from = 16  # this many root classes to refute: a whole class per worker at a time
    screen_window = 8  # root classes queued for the workers at once

    def min_height(self, incumbent: tuple[int | None, Node | None] = (None, None)) -> Outcome:
        """Least height: the counting bound is checked first (a cheap refutation raises the
        lower bound), then from just below the best known tree downwards; each feasible depth
        gives a better tree, the first infeasible one proves the optimum."""
        start = time.monotonic()
        s = self.solver
        n = s.game.n_secrets
        classes = height_order(self.root_classes())
        lower = s.counting_height(n)
        best, best_root = incumbent
        if best is None:
            best = n + 1
        elif self.checkpoint is not None and best_root is not None:  # not a fact it disproves
            self.checkpoint.tree_in_hand(best_root, best)
        out = Outcome(0, None, False, lower)
        counted = self.nodes
        self.bar = self.observer.bar(desc="height", unit="class")
        refuted: dict[int, tuple[int, int]] = {}  # depth -> (classes taken, searched) there

        def height_at(depth: int) -> Node | None:
            root, taken, searched = self._height_at(classes, depth)
            if root is None:
                refuted[depth] = taken, searched
            return root

        try:
            if lower < best:  # bottom first: usually a quick refutation
                root = height_at(lower)
                if root is not None:
                    best, best_root = lower, root
                else:
                    lower += 1
            depth = best - 1
            while depth >= lower:
                root = height_at(depth)
                if root is None:
                    lower = depth + 1
                    break
                best, best_root = depth, root
                depth -= 1
        except (KeyboardInterrupt, TimeoutError):
            out.stopped = True
            out.notes.append(STOPPED_EARLY)
        finally:
            self.bar.close()
        out.nodes = self.nodes - counted
        out.seconds = time.monotonic() - start
        out.lower_bound = lower
        # The lower bound (and so any optimality claim) rests on the refutation of lower - 1
        # alone: what it searched and took from the checkpoint, not the last depth tried (a
        # feasible one when the bottom was refuted first), is what the outcome reports.
        out.taken, out.searched = refuted.get(lower - 1, (0, 0))
        if best_root is None:
            out.notes = out.notes or ["no tree was found"]
            return out
        out.value, out.root, out.optimal = best, best_root, best == lower
        return out

    def _height_at(self, classes, depth: int) -> tuple[Node | None, int, int]:
        """(a root node solving everything within ``depth`` guesses or None, the classes taken
        from the checkpoint, the classes searched)."""
        s, bar = self.solver, self.bar
        bar.reset(total=len(classes))
        bar.set_description(f"height: is {depth} enough")
        fits = s.bounds.M[s.branches, min(depth - 1, DCAP)]
        todo = []
        taken = 0
        for guess, parts in classes:
            if _largest(parts) > fits:
                bar.update(1)  # counting alone rules this class out
            elif self.checkpoint is not None and self.checkpoint.refuted_height(guess) >= depth:
                taken += 1
                bar.update(1)
            else:
                todo.append((guess, parts))
        if self.engine.workers > 1 and len(todo) >= self.screen_from:
            root, searched = self._screen_classes(todo, depth)
            return root, taken, searched
        for searched, (guess, parts) in enumerate(todo, 1):
            started, before = time.monotonic(), self.nodes
            root = self.class_tree(guess, parts, depth - 1)
            bar.update(1)
            if root is not None:
                return root, taken, searched
            self._record(guess, depth, self.nodes - before, time.monotonic() - started)
        return None, taken, len(todo)

    def _record(self, guess: int, depth: int, nodes: int, seconds: float) -> None:
        if self.checkpoint is not None:
            self.checkpoint.record_refuted(guess, depth, nodes, seconds)

    def _screen_classes(self, todo, depth: int) -> tuple[Node | None, int]:
        """(a root node as _height_at's or None, the classes searched). Many root classes: each
        worker takes a whole class's largest part while the next ones wait in a short queue; a
        class whose largest part is solved gets the full search of class_tree, with that subtree
        kept."""
        window = []  # (class, feedback id of its largest part, job), in order
        upcoming = iter(todo)
        searched = 0
        try:
            while True:
                while len(window) < self.screen_window:
                    item = next(upcoming, None)
                    if item is None:
                        break
                    guess, parts = item
                    largest = max(parts, key=lambda fid: len(parts[fid]))
                    job = self.submit(height_part, parts[largest], depth - 1, [guess])
                    window.append((item, largest, job))
                if not window:
                    return None, searched
                (guess, parts), largest, job = window[0]
                next(self.finished([job]))  # TimeoutError at the time limit
                window.pop(0)
                tree, nodes, seconds = self.result(job)
                searched += 1
                if tree is not None:  # rare: the other parts decide
                    started, before = time.monotonic(), self.nodes
                    root = self.class_tree(guess, parts, depth - 1, {largest: tree})
                    if root is not None:
                        return root, searched
                    nodes += self.nodes - before
                    seconds += time.monotonic() - started
                self.bar.update(1)
                self._record(guess, depth, nodes, seconds)
        finally:
            self.cancel([job for _, _, job in window])

    def class_tree(self, guess: int, parts: dict, depth: int,
                   solved: dict | None = None) -> Node | None:
        """A root node opening with ``guess`` when every part is solvable within ``depth``, else
        None. ``solved``: subtrees of parts already solved (feedback id -> node)."""
        order = sorted(parts.items(), key=lambda kv: -len(kv[1]))
        subtrees = dict(solved or {})
        left = [(fid, part) for fid, part in order if fid not in subtrees]
        jobs = {}  # job -> (feedback id of the part, whether it is a slice of a split part)
        open_slices: dict[int, int] = {}  # split part -> slices still running
        for index, (fid, part) in enumerate(left):
            if index > 0 or depth < 3 or not self.splits(part):
                jobs[self.submit(height_part, part, depth, [guess])] = (fid, False)
                continue
            ranked, branching = self.solver.rank_height(part, depth, [guess])
            if not ranked:
                self.cancel(list(jobs))
                return None  # counting alone rules the largest part out
            slices = self.slices(ranked)
            open_slices[fid] = len(slices)
            for piece in slices:
                job = self.submit(height_guesses, part, piece, depth, branching, [guess])
                jobs[job] = (fid, True)
        pending = list(jobs)
        try:
            for job in self.finished(pending):
                tree, _, _ = self.result(job)
                fid, split = jobs[job]
                if split:
                    if fid in subtrees:
                        continue
                    if tree is not None:  # one slice works: the part is solved
                        subtrees[fid] = tree
                        done = [j for j in pending if jobs[j][0] == fid]
                        self.cancel(done)
                        pending[:] = [j for j in pending if jobs[j][0] != fid]
                        continue
                    open_slices[fid] -= 1
                    if open_slices[fid] > 0:
                        continue
                elif tree is not None:
                    subtrees[fid] = tree
                    continue
                return None  # a part that cannot be solved rules the class out
        finally:
            self.cancel(pending)
        return Node(guess, {fid: subtrees[fid] for fid, _ in order})
