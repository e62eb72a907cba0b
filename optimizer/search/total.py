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

import time
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from ..kernels.bundles import DCAP, INF, LAST_FIRST
from ..tree import Node
from .jobs import total_guess, total_part
from .root import STOPPED_EARLY, Outcome, RootSearch


class TotalSearch(RootSearch):
    """``cost``: what is minimised (kernels.bundles.COSTS): the total, or the secrets at the
    last level allowed (then the total: "deepest"; alone: "deep")."""

    cost = "total"

    def min_total(self, depth: int, upper: int | None = None,
                  incumbent: Node | None = None) -> Outcome:
        """Least cost within ``depth``. ``upper``/``incumbent``: a known tree to beat (or tie)."""
        start = time.monotonic()
        s = self.solver
        bounds, _ = s.cost(self.cost)
        n = s.game.n_codes
        dc = min(depth - 1, DCAP)
        classes = []
        for guess, parts in self.root_classes():
            bound = bounds.guess_cost * n + sum(int(bounds.LB[s.branches, len(p), dc])
                                                for p in parts.values())
            if bound < INF:
                classes.append((bound, guess, parts))
        classes.sort(key=lambda c: c[0])
        log = self.checkpoint
        if log is not None:
            upper, incumbent = log.better_incumbent(self.cost, depth, upper, incumbent)
            if incumbent is not None:
                log.record_incumbent(self.cost, depth, upper, incumbent)
        # A tree in hand need only be beaten; a value without one must be reached (ties count).
        best = int(INF) if upper is None else upper if incumbent is not None else upper + 1
        out = Outcome(upper or 0, incumbent, False, 0)
        proven = [c[0] for c in classes]  # lower bound per class, raised as it is settled
        bar = tqdm(total=sum(len(c[2]) for c in classes), desc=f"{self.cost}: root parts",
                   disable=not self.progress, unit="part")

        def report(index: int, lower: int) -> None:
            proven[index] = max(proven[index], lower)
            bound = min(proven[index:] + [best])
            if out.root is None:
                bar.set_postfix_str(f"bound {self.shown(bound)}")
            else:
                gap = (out.value - bound) / bound if bound else 0.0
                bar.set_postfix_str(f"best {self.shown(out.value)}, bound {self.shown(bound)}, "
                                    f"gap {100 * gap:.2f}%")

        try:
            for index, (bound, guess, parts) in enumerate(classes):
                if bound >= best:  # this class and every later one cannot do better
                    bar.update(sum(len(c[2]) for c in classes[index:]))
                    break
                known = 0 if log is None else log.total_lower_bound(self.cost, guess, depth)
                if known >= best:
                    report(index, known)
                    out.taken += 1
                    bar.update(len(parts))
                    continue
                value, root = self.class_total(guess, parts, depth, best, bar,
                                                lambda lower, i=index: report(i, lower), out)
                out.searched += 1
                if root is not None and value < best:
                    best = out.value = value
                    out.root = root
                    if log is not None:
                        log.record_incumbent(self.cost, depth, value, root)
                report(index, max(value, best))
                if log is not None:
                    log.record_total(self.cost, guess, depth, value, exact=root is not None)
        except (KeyboardInterrupt, TimeoutError):
            out.stopped = True
            out.notes.append(STOPPED_EARLY)
        finally:
            bar.close()
        out.seconds = time.monotonic() - start
        out.lower_bound = min(proven) if proven else int(INF)
        if out.stopped:
            out.lower_bound = min(out.lower_bound, out.value or out.lower_bound)
            return out
        if out.root is None:
            out.notes.append(f"no tree of height {depth} or less exists")
            return out
        out.optimal, out.lower_bound = True, out.value
        return out

    def shown(self, value: int) -> str:
        """A cost as people read it: the total, or the secrets at the last level (and total)."""
        if self.cost == "deepest":
            deep, total = divmod(value, LAST_FIRST)
            return f"{deep} deepest (total {total})"
        return str(value)

    def class_total(self, guess: int, parts: dict, depth: int, best: int, bar, report,
                     out: Outcome):
        """(total, root node) of the best tree opening with ``guess`` when below ``best``, else
        (a lower bound, None). Each part is a job with a cut-off from ``best`` and the other
        parts' bounds; the largest part may be split into one job per guess."""
        s = self.solver
        bounds, _ = s.cost(self.cost)
        n = bounds.guess_cost * s.game.n_codes  # the root guess, once for every secret
        dc = min(depth - 1, DCAP)
        order = sorted(parts.items(), key=lambda kv: -len(kv[1]))
        if not order:  # the only code: solved by the first guess
            return n + bounds.last_cost * (depth == 1), Node(guess)
        lbs = {fid: int(bounds.LB[s.branches, len(p), dc]) for fid, p in order}
        split = None
        fid, part = order[0]
        if depth >= 3 and len(part) > 2 and self.splits(part):
            ranked, branching, _ = s.rank_total(part, depth - 1, [guess], cost=self.cost)
            lbs[fid] = max(lbs[fid], ranked[0][0] if ranked else int(INF))
            if n + sum(lbs.values()) >= best:
                bar.update(len(order))
                return n + sum(lbs.values()), None
            split = _SplitPart(fid, part, branching, ranked,
                               best - n - (sum(lbs.values()) - lbs[fid]))
        jobs = {}  # job -> feedback id of its part
        if split is not None:
            jobs.update(dict.fromkeys(self._feed(split, depth - 1, [guess]), split.fid))
        for fid, part in order:
            if split is None or fid != split.fid:
                beta = best - n - (sum(lbs.values()) - lbs[fid])
                jobs[self.submit(total_part, part, depth - 1, beta, [guess], self.cost)] = fid
        subtrees = {}
        pending = list(jobs)
        try:
            for job in self.finished(pending):
                value, tree, nodes, _ = job.result()
                out.nodes += nodes
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
                    bar.update(len({jobs[j] for j in pending}))
                    return n + sum(lbs.values()), None
                subtrees[fid] = tree
        finally:
            self.cancel(pending)
        return n + sum(lbs.values()), Node(guess, {fid: subtrees[fid] for fid, _ in order})

    def _feed(self, split: _SplitPart, depth: int, path: list[int]) -> list:
        """Submit the split part's next guesses, up to one per worker."""
        new = []
        while split.queue and len(split.running) < self.engine.workers:
            bound, second = split.queue[0]
            if bound >= split.beta:  # this guess and every later one cannot do better
                split.bounds.append(bound)
                split.queue.clear()
                break
            split.queue.pop(0)
            job = self.submit(total_guess, split.part, second, depth, split.beta,
                              split.branching, path, self.cost)
            split.running.append(job)
            new.append(job)
        return new


@dataclass
class _SplitPart:
    """A part whose guesses run as separate jobs."""

    fid: int
    part: np.ndarray
    branching: int
    queue: list  # (one-step bound, guess) not yet submitted, best first
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
        return min(self.bounds, default=int(INF))
