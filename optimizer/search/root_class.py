"""One first-guess class of a least-cost root search (total.py): its parts, each a job, raised
in shares of what they miss until the class is refuted or every part is exact.

- ``need``: what the parts' lower bounds still miss to reach ``best``, the tree in hand. The
  class is refuted once it is 0, and beats ``best`` once every part is exact.
- Pass after pass, each part not yet exact is asked for a share of ``need`` (the kernel's rule
  for a guess's parts, OPT_SHARES: half its share by weight, all of it when it is the last part
  not exact; the weight is the part's size or, in a class of split parts with a tree in hand
  and the total as the cost, its room below a greedy tree: ``_weights``). Each answer is
  exact (below the part's cut-off) or raises the part's bound by at least its share, so the
  passes end. A part asked for all of ``need`` is usually solved exactly, which costs far more
  than showing it is worth its share, and most classes are refuted. With no tree in hand
  (``best`` = INF) every part is solved in one pass.
- Jobs are fed as workers free up, at most one per worker, so each starts from what the ones
  before it proved. The largest part may run guess by guess (SplitPart), its guesses first.
- Every answer is recorded in the checkpoint (a part's exact value and tree, or its bound; a
  split part's guess the same way), and an earlier run's answers are taken from it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from ..kernels.bundles import INF, OPT_SHARES
from ..kernels.total import part_weight, share_of
from ..tree import Node
from .jobs import total_guesses, total_part
from .split_part import SplitPart


class Refuted(Exception):
    """The parts' bounds reach ``best``: the class cannot beat the tree in hand."""


class RootClass:
    """The search of one class: ``search`` the TotalSearch it belongs to (its engine, solver,
    checkpoint, bar and board), ``guess`` the class's first guess, ``parts`` its parts by
    feedback id, ``best`` the cost to beat."""

    def __init__(self, search, guess: int, parts: dict, depth: int, best: int,
                 index: int | None = None, room: Callable[[], bool] | None = None):
        s = self.search = search
        self.guess, self.depth, self.best = guess, depth, best
        self.index = index  # the class's place on the board (None: the one it searches now)
        # Whether a job may be submitted now: by default while this class runs fewer jobs than
        # there are workers; classes settled side by side share the workers (total.py).
        self.room = room or (lambda: len(self.jobs) < s.engine.workers)
        bounds, _ = s.solver.cost(s.cost)
        self.root_cost = bounds.guess_cost * s.solver.game.n_secrets  # the first guess, once each
        self.one_code = self.root_cost + bounds.last_cost * (depth == 1)
        self.order = sorted(parts.items(), key=lambda kv: -len(kv[1]))  # largest first
        self.parts = dict(self.order)
        self.lbs = {fid: s.solver.counting(len(p), depth - 1, s.cost) for fid, p in self.order}
        self.subtrees: dict[int, Node] = {}  # the parts solved exactly
        self.splits: dict[int, SplitPart] = {}  # the parts run guess by guess
        self.jobs: dict = {}  # running job -> feedback id of its part
        self.shares = bool(s.solver.opts & OPT_SHARES)
        self.asking: list[int] = []  # the parts the pass on asks
        self.upper: dict[int, int] | None = None  # greedy trees' totals of the parts (``_rooms``)
        self.split_passes = 0  # passes that asked split parts alone (``_cutoff``)

    # --- the class -----------------------------------------------------------------------------
    def lower(self) -> int:
        return self.root_cost + sum(self.lbs.values())

    def settle(self) -> tuple[int, Node | None]:
        """(least cost of the class when below ``best``, its tree), else (a bound >= best,
        None): ``steps`` alone, each job it waits for taken as it finishes."""
        steps = self.steps()
        try:
            waiting = next(steps)
            while True:
                waiting = steps.send(next(self.search.finished(waiting)) if waiting else None)
        except StopIteration as done:
            return done.value
        finally:
            steps.close()

    def steps(self) -> Generator[list, object, tuple[int, Node | None]]:
        """``settle`` as steps, so that one thread can settle several classes at once (total.py):
        it yields the jobs it waits for, none when it waits for room (``room``), and takes back
        one of them once it has finished, or None (room may have freed); it returns what
        ``settle`` does."""
        if not self.order:  # the only code: solved by the first guess
            return self.one_code, Node(self.guess)
        self._known_parts()
        self.search.bar.update(len(self.subtrees))
        try:
            self._check()
            self._split()
            self._rooms()
            while len(self.subtrees) < len(self.order):
                yield from self._pass(self._open())
        except Refuted:
            self.search.bar.update(len(self.order) - len(self.subtrees))
            if any(split.asked for split in self.splits.values()):  # refuted from outside
                self.search.board.note("")  # (a better tree beside it): its query's note goes
            return self.lower(), None
        finally:
            self.search.cancel(list(self.jobs))
        return self.lower(), Node(self.guess, {fid: self.subtrees[fid] for fid, _ in self.order})

    def _check(self) -> None:
        self.search.board.settle(self.lower(), self.index)
        if self.lower() >= self.best:
            raise Refuted

    def _known_parts(self) -> None:
        """The parts the checkpoint settles exactly, and its bounds on the others."""
        log = self.search.checkpoint
        if log is None:
            return
        for fid, _ in self.order:
            fact = log.part_fact(self.search.cost, self.depth, (self.guess, fid))
            if fact is None:
                continue
            if not log.proved_here(self.search.cost, self.depth, (self.guess, fid)):
                self.search.parts_taken.add((self.guess, fid))
            if "exact" in fact:
                self.lbs[fid], self.subtrees[fid] = fact["exact"], fact["tree"]
            else:
                self.lbs[fid] = max(self.lbs[fid], fact["at_least"])

    def _split(self) -> None:
        """Run the large open parts guess by guess when it is worth it (RootSearch.splits): the
        largest, and with a tree in hand every one (a part asked for all that is missing may
        take one thread many minutes). Their least one-step bounds may refute the class."""
        s = self.search
        todo = [(fid, part) for fid, part in self.order if fid not in self.subtrees]
        if self.best >= INF:
            todo = todo[:1]
        for fid, part in todo:
            if self.depth < 3 or len(part) <= 2 or not s.splits(part):
                break  # largest first: no later part splits either
            ranked, branching, _ = s.solver.rank_total(part, self.depth - 1, [self.guess],
                                                       cost=s.cost)
            self.lbs[fid] = max(self.lbs[fid], ranked[0][0] if ranked else int(INF))
            self._check()
            split = self.splits[fid] = SplitPart(fid, part, branching, ranked)
            if s.checkpoint is not None:
                self._take_guesses(split)

    def _take_guesses(self, split: SplitPart) -> None:
        """What the checkpoint knows of a split part's guesses; those this run did not prove
        are counted as taken."""
        s, log = self.search, self.search.checkpoint
        for second in split.take(lambda second: log.part_fact(
                s.cost, self.depth, (self.guess, split.fid, second))):
            path = (self.guess, split.fid, second)
            if not log.proved_here(s.cost, self.depth, path):
                s.parts_taken.add(path)

    def _open(self) -> list[int]:
        """The parts a pass asks, largest first. Split parts are asked only once every other
        part is exact: each time one is asked, each of its guesses is searched again
        (thousands, in Battleship), where the other parts are cheap to raise. With no tree in
        hand they come first (their guesses are the longest jobs)."""
        open_ = [fid for fid, _ in self.order if fid not in self.subtrees]
        whole = [fid for fid in open_ if fid not in self.splits]
        return open_ if self.best >= INF or not whole else whole

    # --- a pass --------------------------------------------------------------------------------
    def _pass(self, fids: list[int]) -> Generator[list, object, None]:
        """Ask each part of ``fids`` (not exact) for its share of what is missing (steps, as
        ``steps``)."""
        queue, self.asking = list(fids), fids
        self.split_passes += bool(fids) and all(fid in self.splits for fid in fids)
        weights = self._weights(queue)
        w_left = sum(weights.values())
        while True:
            blocked = False  # no room for a job (other classes' jobs hold the workers)
            while True:
                if not self.room():
                    blocked = True
                    break
                if self._feed_split():
                    continue
                if not queue:
                    break
                fid = queue.pop(0)
                weight = weights[fid]
                cutoff = self._cutoff(fid, weight, w_left)
                w_left -= weight
                split = self.splits.get(fid)
                if split is not None:
                    split.ask(cutoff, self.lbs[fid])
                    self._show(split)
                    if split.done():  # what earlier queries proved settles it
                        self._answer(fid, split.lower_bound(), split.tree)
                    continue
                job = self.search.submit(total_part, self.parts[fid], self.depth - 1, cutoff,
                                         [self.guess], self.search.cost)
                self.jobs[job] = fid
            if not self.jobs and not (blocked and (queue or any(
                    split.asked and split.queue for split in self.splits.values()))):
                return  # nothing runs and nothing is left to submit
            job = yield list(self.jobs)
            if job is None:
                continue
            fid = self.jobs.pop(job)
            split = self.splits.get(fid)
            if split is None:
                value, tree = self.search.result(job)[:2]
            else:
                results, _, seconds = self.search.result(job)
                before = len(split.searched)
                for second, value, tree in split.record(job, results, seconds):
                    self._record((self.guess, fid, second), value, tree)
                if not split.done():
                    # Every 50 guesses, and after each job of a second or more: Bulls and Cows
                    # 5x8's part of 1920, 32 guesses in 5 minutes, stood at "0 of 32" to the end.
                    if len(split.searched) // 50 > before // 50 or seconds >= 1.0:
                        self._show(split)
                    continue
                value, tree = split.lower_bound(), split.tree
            self._answer(fid, value, tree)

    def _rooms(self) -> None:
        """In a class of split parts, with a tree in hand and the total as the cost: the total
        of a greedy tree on each part (``upper``), so that ``need`` is shared out by room
        (``_weights``); not when a greedy tree is too tall for the depth left (its total then
        bounds nothing)."""
        if not self.splits or self.search.cost != "total" or self.best >= INF:
            return
        solver, upper = self.search.solver, {}
        for fid, part in self.order:
            if len(part) > 2 and fid not in self.subtrees:
                total, height = solver.greedy_total(part)
                if height > self.depth - 1:
                    return
                upper[fid] = total
        self.upper = upper

    def _weights(self, fids: list[int]) -> dict[int, int]:
        """Each part's weight in sharing out ``need``: with ``upper``, its room (the gap between
        its bound and its greedy tree's total, at least 1), else its size (the kernel's rule,
        part_weight). Parts of one or two codes weigh 0: they are exact at their bound.

        An ask costs little far below a part's value and steeply more near it; the room tells
        how far an ask lands from the value, the size does not. Bulls and Cows 5x8's one class,
        searched by parts (its value below the tree in hand): 703.8 s by size, 299.5 s by room
        (``python -m optimizer build bulls-cows:5x8 --objective total``, quiet machine)."""
        if self.upper is None:
            return {fid: int(part_weight(len(self.parts[fid]))) for fid in fids}
        return {fid: max(1, self.upper[fid] - self.lbs[fid]) if fid in self.upper else 0
                for fid in fids}

    def _cutoff(self, fid: int, weight: int, w_left: int) -> int:
        """What part ``fid`` is asked to stay below: its bound plus its share of ``need``. (A
        part asked for more than it is worth is solved exactly: the share is kept small.)

        From the second pass of split parts alone, each is asked for its whole share by weight,
        not half. A split part's query searches every guess again, so it costs about the same
        whatever it is asked for, and a refuted one raises its bound by just what was asked:
        half shares left half of ``need`` each pass, and Battleship's A1 C4 H2 took seven
        passes over its five large parts, the last ones for 11, 4 and 1 guesses (192 s). A first
        pass asked for whole shares solved its 985-secret part exactly: over 300 s.

        The next split part is asked while the one before still runs its last guesses, before
        its answer lowers ``need``: the last (smallest) part of a pass may be asked for all that
        is missing, and is then solved exactly, cheaply, or refutes the class. Counting the
        asks still pending as done was measured and left out (four classes: 506.6 s against
        487.9 s): larger asks of the largest part in the next pass cost more than it saved."""
        need = self.best - self.lower()
        if self.best >= INF:
            return int(INF)
        if self.shares and sum(f not in self.subtrees for f in self.asking) > 1:
            if fid in self.splits and self.split_passes > 1:
                need = min(need, -(-need * weight // w_left))
            else:
                need = int(share_of(need, weight, w_left))
        return self.lbs[fid] + need

    def _record(self, path: tuple, value: int, tree: Node | None) -> None:
        """Into the checkpoint. In a --gap run a class lifted to the goal only is not settled,
        so its facts stay: a split part's guesses' are left out (thousands a class, where the
        class takes seconds to lift again), and a part's exact value is kept as a bound,
        without its tree (Battleship: 234 classes lifted left 2322 subtrees, 9 MB)."""
        log = self.search.checkpoint
        if log is None or self.search.gap and len(path) > 2:
            return
        log.record_part(self.search.cost, self.depth, path, value,
                        None if self.search.gap else tree)

    def _show(self, split: SplitPart) -> None:
        """A split part's query beside the bar: it may take minutes."""
        self.search.board.note(
            f"{self.search.solver.game.format_code(self.guess)}: part of {len(split.part)} "
            f"below {self.search.shown(split.beta)}? {len(split.searched)} of "
            f"{len(split.searched) + len(split.queue) + sum(map(len, split.running.values()))} "
            "guesses")

    def _feed_split(self) -> bool:
        """Submit the next guess of a split part whose query is on; whether one was."""
        engine = self.search.engine
        for split in self.splits.values():
            if not split.asked:
                continue
            batch = split.next_guesses(split.batch(engine.round_trip, engine.workers))
            if not batch:
                continue
            job = self.search.submit(total_guesses, split.part, batch, self.depth - 1,
                                     split.beta, split.branching, [self.guess],
                                     self.search.cost)
            split.running[job] = batch
            self.jobs[job] = split.fid
            return True
        return False

    def _answer(self, fid: int, value: int, tree: Node | None) -> None:
        """A part's answer to its query: exact (``tree``) or a bound; Refuted when the class
        can no longer beat ``best``."""
        if fid in self.splits:
            self.splits[fid].asked = False
            self.search.board.note("")
        self._record((self.guess, fid), value, tree)
        if tree is not None:
            self.subtrees[fid] = tree
            self.lbs[fid] = value
            self.search.bar.update(1)
        else:
            self.lbs[fid] = max(self.lbs[fid], value)
        self._check()
