"""Runs whole exact searches: the root is split into jobs (one per root guess class and part),
spread over worker processes that keep their transposition tables between jobs.

- Height: from both ends (the counting bound, then downwards from the best greedy tree); at each
  depth the parts of a root class are checked in parallel, the first failing part rules it out.
- Total: branch and bound over root classes in the order of their one-step bound; each part is
  searched with a cut-off derived from the incumbent and the other parts' lower bounds.
A time limit or Ctrl-C ends the search with the best tree found so far and a proven lower bound.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from ..kernels import exact as K
from ..tree import Node
from .exact import Solver
from .pool import WorkerPool

_SOLVER: Solver | None = None  # the worker's solver, inherited through fork


@dataclass
class Outcome:
    value: int  # least height or total found (or a lower bound when not optimal)
    root: Node | None
    optimal: bool
    lower_bound: int
    nodes: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


# --- worker side -------------------------------------------------------------------------------
def _height_job(cands: np.ndarray, depth: int, path: list[int]):
    """A tree solving a part within ``depth`` guesses, or None when none exists."""
    s = _SOLVER
    before = int(s.stats[K.ST_NODES])
    tree = s.height_tree(depth, cands, path) if s.feasible(cands, depth, path) >= 0 else None
    return tree, int(s.stats[K.ST_NODES]) - before


def _screen_job(cands: np.ndarray, depth: int, path: list[int]):
    """_height_job, with the worker's CPU seconds (the record of a refuted root class)."""
    start = time.process_time()
    tree, nodes = _height_job(cands, depth, path)
    return tree, nodes, time.process_time() - start


def _height_guess_job(cands: np.ndarray, guesses: list[int], depth: int, path: list[int]):
    """A tree solving a part within ``depth`` guesses that starts with one of ``guesses`` (tried
    in order), or None. Several guesses make one job: a job costs the parent a round trip and
    some bookkeeping, as much as a refuted guess costs a worker on Battleship."""
    s = _SOLVER
    before = int(s.stats[K.ST_NODES])
    for guess in guesses:
        node = Node(guess)
        for fid, sub in sorted(s.parts(guess, cands).items(), key=lambda kv: -len(kv[1])):
            if s.feasible(sub, depth - 1, path + [guess]) < 0:
                break
            node.next[fid] = s.height_tree(depth - 1, sub, path + [guess])
        else:
            return node, int(s.stats[K.ST_NODES]) - before
    return None, int(s.stats[K.ST_NODES]) - before


def _total_job(cands: np.ndarray, depth: int, beta: int, path: list[int]):
    """Least total of a part within ``depth`` if below ``beta`` (with its tree), else a bound."""
    s = _SOLVER
    before = int(s.stats[K.ST_NODES])
    value, _ = s.min_total(cands, depth, beta, path)
    tree = s.total_tree(depth, cands, path) if value < beta else None
    return value, tree, int(s.stats[K.ST_NODES]) - before


def _total_guess_job(cands: np.ndarray, guess: int, depth: int, beta: int, branching: int,
                     path: list[int]):
    """The least total of a part that starts with ``guess``, if below ``beta`` (with its tree),
    else a lower bound: the kernel's step for one guess (null-window probes of every sub-part,
    then exact values with cut-offs), so that a large part's guesses can run in parallel."""
    s = _SOLVER
    before = int(s.stats[K.ST_NODES])
    n, below = len(cands), path + [guess]
    subs = sorted(s.parts(guess, cands).items(), key=lambda kv: -len(kv[1]))
    dc = min(depth - 1, K.DCAP)
    lbs = [int(s.LB[branching, len(sub), dc]) for _, sub in subs]

    def cut(value):
        return value, None, int(s.stats[K.ST_NODES]) - before

    for i, (_, sub) in enumerate(subs):
        if n + sum(lbs) >= beta:
            return cut(n + sum(lbs))
        if len(sub) > 2:
            lbs[i], _ = s.min_total(sub, depth - 1, lbs[i] + 1, below, branching)
    total = n
    for i, (_, sub) in enumerate(subs):
        child_beta = beta - total - sum(lbs[i + 1:])
        value, _ = s.min_total(sub, depth - 1, child_beta, below, branching)
        total += value
        if value >= child_beta:
            return cut(total + sum(lbs[i + 1:]))
    node = Node(guess, {fid: s.total_tree(depth - 1, sub, below) for fid, sub in subs})
    return total, node, int(s.stats[K.ST_NODES]) - before


def height_order(classes: list) -> list:
    """Root classes, the likeliest to fit a depth first: smallest largest part, most parts."""
    return sorted(classes, key=lambda c: (max(len(p) for p in c[1].values()), -len(c[1])))


class _Deferred:
    """A job run in this process when it is waited for (so a cut-off skips the rest)."""

    def __init__(self, fn, args):
        self.fn, self.args, self.value = fn, args, None

    def run(self) -> None:
        self.value = self.fn(*self.args)

    def result(self):
        return self.value



# --- parent side -------------------------------------------------------------------------------
class Driver:
    """Owns the pool; ``workers=0`` runs every job in this process (tests, tiny games)."""

    screen_from = 16  # this many root classes to search: a whole class per worker at a time
    screen_window = 8  # root classes queued for the workers at once

    def __init__(self, solver: Solver, workers: int | None = None, progress: bool = True,
                 time_limit: float | None = None, checkpoint=None):
        global _SOLVER
        self.solver = solver
        self.checkpoint = checkpoint  # a Checkpoint: root classes refuted by earlier runs
        self.progress = progress
        self.deadline = time.monotonic() + time_limit if time_limit else None
        if workers is None:
            workers = min(2, os.cpu_count() or 1)
        _SOLVER = solver
        self._warm_up()
        self.pool = None
        self.split_size = 200  # parts this large are split across workers by second guess
        self.chunk = 16  # second guesses per height job
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            self.pool = WorkerPool(workers)

    def _warm_up(self) -> None:
        """Compile (or load from cache) the kernels once, before workers are forked. The set used
        is not one the game can reach, so every rule is off: no symmetry (it would not hold for
        this set) and no table writes (nothing learnt here may be remembered)."""
        s = self.solver
        opts, s.opts = s.opts, 0
        try:
            small = s.root()[:3]
            s.feasible(small, 2)
            s.min_total(small, 3)
        finally:
            s.opts = opts

    def close(self, kill: bool = False) -> None:
        """Stop the workers; whatever they still run was cancelled by the search already."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _cancel(self, jobs: list) -> None:
        if self.pool is not None:
            self.pool.cancel(jobs)

    def _submit(self, fn, *args):
        if self.pool is None:
            return _Deferred(fn, args)
        return self.pool.submit(fn, *args)

    def _finished(self, pending: list):
        """Yield jobs as they finish, taking each out of ``pending`` (which the caller may shrink
        in place); TimeoutError when the time limit is reached."""
        while pending:
            job = self._wait(pending)
            if job is None:
                raise TimeoutError
            pending.remove(job)
            yield job

    def _wait(self, jobs: list):
        """The next finished job; None when the time limit is reached."""
        if self.pool is None:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                return None
            jobs[0].run()
            return jobs[0]
        timeout = None
        if self.deadline is not None:
            timeout = max(0.0, self.deadline - time.monotonic())
        return self.pool.wait(jobs, timeout)

    # --- the root ------------------------------------------------------------------------------
    def root_classes(self) -> list[tuple[int, dict[int, np.ndarray]]]:
        """Root guesses, one per symmetry class, with their parts (useless guesses dropped)."""
        s = self.solver
        root = s.root()
        pool = s.ctx.representatives(root, []) if s.opts & K.OPT_SYMMETRY else root
        if s.guesses == "consistent":
            pool = np.intersect1d(pool, root)
        classes = []
        for g in pool:
            parts = s.parts(int(g), root)
            if len(parts) == 1 and len(next(iter(parts.values()))) == len(root):
                continue
            classes.append((int(g), parts))
        return classes

    def min_height(self, incumbent: tuple[int | None, Node | None] = (None, None)) -> Outcome:
        """Least height, searched from both ends: the counting bound is checked first (a cheap
        refutation raises the lower bound), then from just below the best known tree downwards;
        each feasible depth gives a better tree, the first infeasible one proves the optimum."""
        start = time.monotonic()
        s = self.solver
        n = s.game.n_codes
        classes = height_order(self.root_classes())
        lower = 1
        while s.M[s.branches, min(lower, K.DCAP)] < n:
            lower += 1
        best, best_root = incumbent
        if best is None:
            best = n + 1
        nodes, notes = 0, []
        bar = tqdm(desc="height", disable=not self.progress, unit="class")
        try:
            if lower < best:  # bottom first: usually a quick refutation
                root, used = self._height_at(classes, lower, bar)
                nodes += used
                if root is not None:
                    best, best_root = lower, root
                else:
                    lower += 1
            depth = best - 1
            while depth >= lower:
                root, used = self._height_at(classes, depth, bar)
                nodes += used
                if root is None:
                    lower = depth + 1
                    break
                best, best_root = depth, root
                depth -= 1
        except (KeyboardInterrupt, TimeoutError):
            self.close(kill=True)
            notes.append("interrupted before the search finished")
        finally:
            bar.close()
        seconds = time.monotonic() - start
        if best_root is None:
            return Outcome(0, None, False, lower, nodes, seconds,
                           notes or ["no tree was found"])
        return Outcome(best, best_root, best == lower, lower, nodes, seconds, notes)

    def _height_at(self, classes, depth: int, bar):
        """A root node solving everything within ``depth`` guesses, or None; (node, nodes)."""
        s = self.solver
        bar.reset(total=len(classes))
        bar.set_description(f"height: is {depth} enough")
        fits = s.M[s.branches, min(depth - 1, K.DCAP)]
        todo = []
        for guess, parts in classes:
            if max(len(p) for p in parts.values()) > fits:
                bar.update(1)  # counting alone rules this class out
            elif self.checkpoint is not None and self.checkpoint.refuted_within(guess) >= depth:
                bar.update(1)
            else:
                todo.append((guess, parts))
        if self.pool is not None and len(todo) >= self.screen_from:
            return self._screen_classes(todo, depth, bar)
        nodes = 0
        for guess, parts in todo:
            started = time.monotonic()
            root, used = self._height_class(guess, parts, depth - 1)
            nodes += used
            bar.update(1)
            if root is not None:
                return root, nodes
            if self.checkpoint is not None:
                self.checkpoint.record(guess, depth, used, time.monotonic() - started)
        return None, nodes

    def _screen_classes(self, todo, depth: int, bar):
        """Many root classes: each worker takes a whole class's largest part (the part that
        refutes nearly every class) while the next ones wait in a short queue; a class whose
        largest part is solved gets the full search of _height_class. Results are taken in the
        classes' order, so the first guess found does not depend on timing."""
        nodes = 0
        window = []  # (class, feedback id of its largest part, job), in order
        upcoming = iter(todo)
        try:
            while True:
                while len(window) < self.screen_window:
                    item = next(upcoming, None)
                    if item is None:
                        break
                    guess, parts = item
                    largest = max(parts, key=lambda fid: len(parts[fid]))
                    job = self._submit(_screen_job, parts[largest], depth - 1, [guess])
                    window.append((item, largest, job))
                if not window:
                    return None, nodes
                (guess, parts), largest, job = window[0]
                next(self._finished([job]))  # TimeoutError at the time limit
                window.pop(0)
                tree, used, seconds = job.result()
                nodes += used
                if tree is not None:  # rare: the other parts decide
                    started = time.monotonic()
                    root, more = self._height_class(guess, parts, depth - 1, {largest: tree})
                    nodes += more
                    if root is not None:
                        return root, nodes
                    used, seconds = used + more, seconds + time.monotonic() - started
                bar.update(1)
                if self.checkpoint is not None:
                    self.checkpoint.record(guess, depth, used, seconds)
        finally:
            self._cancel([job for _, _, job in window])

    def _height_class(self, guess: int, parts: dict, depth: int, solved: dict | None = None):
        """(root node, nodes) when every part is solvable within ``depth``, else (None, nodes).
        ``solved``: subtrees of parts already solved (feedback id -> node). The largest part
        left, the one most likely to fail, is split further: one job per few second guesses,
        so that both cores share its refutation."""
        order = sorted(parts.items(), key=lambda kv: -len(kv[1]))
        subtrees = dict(solved or {})
        left = [(fid, part) for fid, part in order if fid not in subtrees]
        jobs = {}  # job -> (feedback id of the part, whether it is one guess of a split part)
        open_guesses: dict[int, int] = {}  # split part -> guess jobs still running
        for index, (fid, part) in enumerate(left):
            seconds = self._second_guesses(part, depth, [guess]) if index == 0 else None
            if seconds is None:
                jobs[self._submit(_height_job, part, depth, [guess])] = (fid, False)
                continue
            if not seconds:
                return None, 0  # counting alone rules the largest part out
            chunks = [seconds[i:i + self.chunk] for i in range(0, len(seconds), self.chunk)]
            open_guesses[fid] = len(chunks)
            for chunk in chunks:
                jobs[self._submit(_height_guess_job, part, chunk, depth, [guess])] = (fid, True)
        nodes = 0
        pending = list(jobs)
        for job in self._finished(pending):
            tree, used = job.result()
            nodes += used
            fid, split = jobs[job]
            if split:
                if fid in subtrees:
                    continue
                if tree is not None:  # one second guess works: the part is solved
                    subtrees[fid] = tree
                    self._cancel([j for j in pending if jobs[j][0] == fid])
                    pending[:] = [j for j in pending if jobs[j][0] != fid]
                    continue
                open_guesses[fid] -= 1
                if open_guesses[fid] > 0:
                    continue
            elif tree is not None:
                subtrees[fid] = tree
                continue
            self._cancel(pending)  # a part that cannot be solved rules the class out
            return None, nodes
        return Node(guess, {fid: subtrees[fid] for fid, _ in order}), nodes

    def _second_guess_parts(self, part: np.ndarray, path: list[int]):
        """For a part worth splitting across workers: (its guesses, one per symmetry class,
        whether each is a candidate, their non-winning part sizes), else None."""
        s = self.solver
        if self.pool is None or len(part) < self.split_size:
            return None
        pool = s.all_codes if s.guesses == "any" else part
        if s.opts & K.OPT_SYMMETRY:
            pool = s.ctx.representatives(pool, path)
        nf = s.game.n_feedback
        feedback = s.ctx.matrix[np.ix_(pool, part)].astype(np.int64)
        feedback += (np.arange(len(pool)) * nf)[:, None]
        sizes = np.bincount(feedback.ravel(), minlength=len(pool) * nf).reshape(len(pool), nf)
        is_candidate = sizes[:, s.game.win] > 0
        sizes[:, s.game.win] = 0
        return np.asarray(pool), is_candidate, sizes

    def _second_guesses(self, part: np.ndarray, depth: int, path: list[int]):
        """For a large part, its second guesses worth a height job each (none ruled out by
        counting), best first; None when the part is not worth splitting."""
        s = self.solver
        found = self._second_guess_parts(part, path) if depth >= 3 else None
        if found is None:
            return None
        pool, _, sizes = found
        largest = sizes.max(axis=1)
        fits = s.M[s.branches, min(depth - 1, K.DCAP)]
        keep = (largest <= fits) & (largest < len(part))
        order = np.lexsort((-np.count_nonzero(sizes, axis=1)[keep], largest[keep]))
        return [int(g) for g in pool[keep][order]]

    def _total_split(self, part: np.ndarray, depth: int, path: list[int]):
        """For a large part, (branching, [(one-step bound, second guess), ...] best first) so
        that its second guesses become jobs of their own; None when not worth splitting."""
        s = self.solver
        found = self._second_guess_parts(part, path) if depth >= 3 else None
        if found is None:
            return None
        pool, is_candidate, sizes = found
        branching = int(np.count_nonzero(sizes, axis=1).max())
        table = s.LB[branching, :, min(depth - 1, K.DCAP)]
        bounds = len(part) + np.where(sizes > 0, table[sizes], 0).sum(axis=1)
        keep = (sizes.max(axis=1) < len(part)) & (bounds < K.INF)
        order = np.lexsort((pool[keep], ~is_candidate[keep], bounds[keep]))
        return branching, [(int(b), int(g)) for b, g in zip(bounds[keep][order],
                                                            pool[keep][order], strict=True)]

    def min_total(self, depth: int, upper: int | None = None,
                  incumbent: Node | None = None) -> Outcome:
        """Least total within ``depth``. ``upper``/``incumbent``: a known tree to beat (or tie)."""
        start = time.monotonic()
        s = self.solver
        n = s.game.n_codes
        dc = min(depth - 1, K.DCAP)
        classes = []
        for guess, parts in self.root_classes():
            bound = n + sum(int(s.LB[s.branches, len(p), dc]) for p in parts.values())
            if bound < K.INF:
                classes.append((bound, guess, parts))
        classes.sort(key=lambda c: c[0])
        best = upper + 1 if upper is not None else int(K.INF)
        best_root, best_value, nodes = incumbent, upper, 0
        proven = [c[0] for c in classes]  # lower bound per class, raised as parts finish
        bar = tqdm(total=sum(len(c[2]) for c in classes), desc="total: root parts",
                   disable=not self.progress, unit="part")
        interrupted = False
        try:
            for index, (bound, guess, parts) in enumerate(classes):
                if bound >= best:
                    bar.update(sum(len(c[2]) for c in classes[index:]))
                    break

                def report(lower, index=index, shown=best_value, best=best):
                    proven[index] = lower
                    bar.set_postfix(best=shown, bound=min(proven[index:] + [best]))

                value, root, used = self._total_class(guess, parts, depth, best, bar, report)
                nodes += used
                if root is not None and value < best:
                    best = best_value = value
                    best_root = root
                report(max(value, best), shown=best_value, best=best)
        except (KeyboardInterrupt, TimeoutError):
            interrupted = True
        finally:
            bar.close()
        seconds = time.monotonic() - start
        lower = min(proven) if proven else int(K.INF)
        if interrupted:
            self.close(kill=True)
            return Outcome(best_value or 0, best_root, False, min(lower, best_value or lower),
                           nodes, seconds, ["interrupted before the search finished"])
        if best_root is None:
            return Outcome(0, None, False, lower, nodes, seconds,
                           [f"no tree of height {depth} or less exists"])
        return Outcome(best_value, best_root, True, best_value, nodes, seconds)

    def _total_class(self, guess: int, parts: dict, depth: int, best: int, bar, report):
        """(total, root node) of the best tree starting with ``guess`` when below ``best``, else
        (a lower bound, None); and the nodes searched. Each part is a job with a cut-off from
        ``best`` and the other parts' bounds; the largest part is split further, one job per
        second guess, fed as they finish so that each starts with the best value found."""
        s = self.solver
        n = s.game.n_codes
        dc = min(depth - 1, K.DCAP)
        order = sorted(parts.items(), key=lambda kv: -len(kv[1]))
        lbs = {fid: int(s.LB[s.branches, len(p), dc]) for fid, p in order}
        split = None
        found = self._total_split(order[0][1], depth - 1, [guess])
        if found is not None:
            fid, part = order[0]
            lbs[fid] = max(lbs[fid], found[1][0][0] if found[1] else int(K.INF))
            if n + sum(lbs.values()) >= best:
                bar.update(len(order))
                return n + sum(lbs.values()), None, 0
            split = _SplitPart(fid, part, found[0], found[1],
                               best - n - (sum(lbs.values()) - lbs[fid]))
        jobs = {}  # job -> feedback id of its part
        if split is not None:
            jobs.update(dict.fromkeys(self._feed(split, depth - 1, [guess]), split.fid))
        for fid, part in order:
            if split is None or fid != split.fid:
                beta = best - n - (sum(lbs.values()) - lbs[fid])
                jobs[self._submit(_total_job, part, depth - 1, beta, [guess])] = fid
        subtrees, nodes = {}, 0
        pending = list(jobs)
        for job in self._finished(pending):
            value, tree, used = job.result()
            nodes += used
            fid = jobs[job]
            if split is not None and fid == split.fid:
                split.record(job, value, tree)
                more = self._feed(split, depth - 1, [guess])
                jobs.update(dict.fromkeys(more, fid))
                pending.extend(more)
                if split.running:
                    continue
                value, tree = split.lower_bound(), split.tree
            bar.update(1)
            lbs[fid] = value  # exact, or a lower bound when cut
            report(n + sum(lbs.values()))
            if tree is None:
                self._cancel(pending)
                bar.update(len({jobs[j] for j in pending}))
                return n + sum(lbs.values()), None, nodes
            subtrees[fid] = tree
        return n + sum(lbs.values()), Node(guess, {fid: subtrees[fid] for fid, _ in order}), nodes

    def _feed(self, split: _SplitPart, depth: int, path: list[int]) -> list:
        """Submit the split part's next second guesses, up to one per worker."""
        new = []
        while split.queue and len(split.running) < len(self.pool.workers):
            bound, second = split.queue[0]
            if bound >= split.beta:  # this guess and every later one cannot do better
                split.bounds.append(bound)
                split.queue.clear()
                break
            split.queue.pop(0)
            job = self._submit(_total_guess_job, split.part, second, depth, split.beta,
                               split.branching, path)
            split.running.append(job)
            new.append(job)
        return new


@dataclass
class _SplitPart:
    """A part whose second guesses run as separate jobs."""

    fid: int
    part: np.ndarray
    branching: int
    queue: list  # (one-step bound, second guess) not yet submitted, best first
    beta: int  # the least total found so far (exact once ``tree`` is set), else the cut-off
    tree: Node | None = None
    bounds: list = field(default_factory=list)  # lower bounds of the guesses that did not win
    running: list = field(default_factory=list)

    def record(self, job, value: int, tree: Node | None) -> None:
        self.running.remove(job)
        if tree is not None and value < self.beta:
            self.beta, self.tree = value, tree
        else:
            self.bounds.append(value)

    def lower_bound(self) -> int:
        """The part's exact value when a tree was found, else a bound >= the cut-off."""
        if self.tree is not None:
            return self.beta
        return min(self.bounds, default=int(K.INF))


# --- objectives --------------------------------------------------------------------------------
def build_exact(game, objective: str, guesses: str = "any", time_limit: float | None = None,
                workers: int | None = None, progress: bool = True,
                checkpoint: str | None = None):
    """A Tree for an exact objective, marked optimal only when the search completed.
    ``checkpoint``: a file of refuted first guesses (see checkpoint.py), for height objectives."""
    from ..tree import Tree, replay
    from .build import height_incumbent, incumbent_tree
    from .checkpoint import Checkpoint
    from .exact import Objective

    obj = Objective.parse(objective)
    if checkpoint is not None and obj.first != "height":
        raise ValueError("--checkpoint goes with a height objective (height, height,total)")
    log = Checkpoint(checkpoint, game, guesses) if checkpoint is not None else None
    solver = Solver(game, guesses)
    driver = Driver(solver, workers=workers, progress=progress, time_limit=time_limit,
                    checkpoint=log)
    meta: dict = {"program": "moo-optimizer", "guesses": guesses}
    try:
        if obj.first == "height":
            out = driver.min_height(height_incumbent(game, guesses))
            meta["height_search"] = _effort(out)
            if obj.tie == "total" and out.optimal:
                height = out.value
                upper = _best_of(game, guesses, incumbent_tree(game, guesses, height), out.root)
                out = driver.min_total(height, *upper)
                meta["total_search"] = _effort(out)
                if not out.optimal:  # the height is proven; only the tie-break is not
                    meta["total_lower_bound"] = int(out.lower_bound)
                    out.lower_bound = height
        else:
            depth = obj.depth or game.n_codes
            out = driver.min_total(depth, *incumbent_tree(game, guesses, depth))
            meta["total_search"] = _effort(out)
            if obj.tie == "height" and out.optimal:
                out = _least_height_at_total(driver, out)
                meta["height_search"] = _effort(out)
    finally:
        driver.close()
    if out.root is None:
        raise ValueError(f"{game.spec}: {'; '.join(out.notes) or 'no tree found'}")
    tree = Tree(game=game, root=out.root, objective=obj.name, guesses=guesses,
                optimal=out.optimal, meta=meta)
    if not out.optimal:
        tree.lower_bound = int(out.lower_bound)
    replayed = replay(tree)
    if replayed.defects:  # a search bug must never be written as a result
        raise RuntimeError("the search built a defective tree: " + replayed.defects[0])
    claimed = replayed.height if obj.first == "height" and not obj.tie else None
    if obj.first == "total" or obj.tie == "total":
        claimed = replayed.total
    if out.optimal and claimed != out.value:
        raise RuntimeError(f"the search claimed {out.value} but its tree replays to {claimed}")
    return tree


def _best_of(game, guesses, candidate, root):
    """The better (total, root) of a greedy incumbent and a tree already found."""
    from ..tree import Tree, replay

    total = replay(Tree(game=game, root=root, objective="", guesses=guesses)).total
    if candidate[0] is None or total < candidate[0]:
        return total, root
    return candidate


def _least_height_at_total(driver: Driver, best: Outcome) -> Outcome:
    """Among trees of least total, one of least height: raise the depth limit from the least
    height until a tree within it reaches the unlimited least total."""
    from .build import height_incumbent

    solver = driver.solver
    least = driver.min_height(height_incumbent(solver.game, solver.guesses))
    if not least.optimal:
        return Outcome(best.value, best.root, False, best.lower_bound, least.nodes,
                       least.seconds, least.notes)
    depth = least.value
    while True:
        out = driver.min_total(depth, best.value)
        if out.optimal and out.value == best.value:
            return out
        if "interrupted before the search finished" in out.notes:
            return Outcome(best.value, best.root, False, best.lower_bound, out.nodes,
                           out.seconds, out.notes)
        depth += 1


def _effort(out: Outcome) -> dict:
    return {"nodes": out.nodes, "seconds": round(out.seconds, 3), "optimal": out.optimal}
