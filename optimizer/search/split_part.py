"""A part of a root class whose guesses run as separate jobs (the largest, when there are several
workers). The class asks it, maybe more than once, whether it costs less than a cut-off
(``ask``); it then holds the least cost found among its guesses so far, the cut-off for the next
ones, and what every guess searched so far (or an earlier run's checkpoint) proved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..kernels.bundles import INF
from ..tree import Node

MOST_GUESSES = 64  # guesses a job at most (``SplitPart.batch``)


@dataclass
class SplitPart:
    """A part whose guesses run as separate jobs."""

    fid: int
    part: np.ndarray
    branching: int
    ranked: list  # (one-step bound, guess) of every guess worth searching, best first
    queue: list = field(default_factory=list)  # (bound, guess) not yet submitted, best first
    beta: int = int(INF)  # the least cost found (exact once ``tree`` is set), else the cut-off
    tree: Node | None = None
    bounds: list = field(default_factory=list)  # lower bounds of the guesses that did not win
    running: dict = field(default_factory=dict)  # job -> its guesses
    known: dict = field(default_factory=dict)  # guess -> a proven lower bound on its cost
    exact: dict = field(default_factory=dict)  # guess -> (its exact cost, its tree)
    asked: bool = False  # whether a query is on
    searched: list = field(default_factory=list)  # the guesses this query searched so far
    spent: float = 0.0  # CPU seconds of the guesses timed so far (``batch``)
    timed: int = 0
    floor: int = 0  # a proven lower bound on the part's cost, so on every guess's (``ask``)

    def ask(self, cutoff: int, floor: int = 0) -> None:
        """Start a query: is the part's cost below ``cutoff``? What earlier queries (or the
        checkpoint) proved is kept: an exact guess below it is the tree to beat, and the guesses
        are queued in the order of their best bound, those reaching the cut-off left out.
        ``floor``: what the part is proven to cost (a checkpoint's bound, an earlier query's):
        a guess found at it ends the query, where the guesses' own bounds may lie below it
        (Battleship's A1 A2 E1: parts of 245, 210 and 207 secrets exact at their bound on the
        first guess searched went on through 3869, 2826 and 2835 guesses)."""
        assert not self.running
        self.beta, self.tree, self.bounds, self.asked = cutoff, None, [], True
        self.floor = floor
        self.searched = []
        self.spent, self.timed = 0.0, 0  # a guess costs more the higher the cut-off: timed anew
        queue = []
        for bound, guess in self.ranked:
            if guess in self.exact:
                value, tree = self.exact[guess]
                if value < self.beta:
                    if self.tree is not None:
                        self.bounds.append(self.beta)
                    self.beta, self.tree = value, tree
                else:
                    self.bounds.append(value)
                continue
            queue.append((max(bound, self.known.get(guess, 0)), guess))
        queue.sort(key=lambda entry: entry[0])  # stable: the kernel's order among equals
        self.queue = queue

    def _prune(self) -> None:
        """Drop the queue once its best bound (or the part's floor) reaches the cut-off: no
        guess in it can beat it."""
        if not self.queue:
            return
        bound = max(self.queue[0][0], self.floor)
        if bound >= self.beta:
            self.bounds.append(bound)
            self.queue.clear()

    def next_guesses(self, count: int = 1) -> list[int]:
        """The next guesses to search, at most ``count``; none when none is left that may beat
        the cut-off."""
        out = []
        while len(out) < count:
            self._prune()
            if not self.queue:
                break
            out.append(self.queue.pop(0)[1])
        return out

    def batch(self, round_trip: float, workers: int) -> int:
        """Guesses a job: one where a job's round trip costs next to nothing (threads); else
        enough that the round trip is a twentieth of the job, by the guesses timed so far,
        while every worker still gets jobs (Mastermind 5x5 on two Dask workers: 4052 jobs of
        a guess each, about a millisecond of work and ten of round trip, took 45 s)."""
        if round_trip <= 0 or not self.timed:
            return 1
        each = max(self.spent / self.timed, 1e-4)
        most = max(1, len(self.queue) // (2 * workers))
        return max(1, min(int(-(-20 * round_trip // each)), MOST_GUESSES, most))

    def done(self) -> bool:
        """Whether the query is answered: nothing running and nothing left worth searching."""
        self._prune()
        return not self.running and not self.queue

    def record(self, job, results: list, seconds: float) -> list[tuple[int, int, Node | None]]:
        """Take a finished job's results ((value, tree or None) for each of its guesses, in
        order) and CPU seconds; returns (guess, value, tree) for each."""
        guesses = self.running.pop(job)
        self.spent += seconds
        self.timed += len(guesses)
        out = []
        for second, (value, tree) in zip(guesses, results, strict=True):
            self.searched.append(second)
            if tree is not None:
                self.exact[second] = (value, tree)
            else:
                self.known[second] = max(self.known.get(second, 0), value)
            if tree is not None and value < self.beta:
                self.beta, self.tree = value, tree
            else:
                self.bounds.append(value)
            out.append((second, value, tree))
        return out

    def lower_bound(self) -> int:
        """The part's exact cost when a tree was found, else a bound >= the cut-off."""
        if self.tree is not None:
            return self.beta
        return min(self.bounds, default=int(INF))

    def take(self, fact: Callable[[int], dict | None]) -> list[int]:
        """Take what is known of the guesses (``fact(guess)``: the checkpoint's, or None);
        returns the guesses it was known of."""
        taken = []
        for _, second in self.ranked:
            known = fact(second)
            if known is None:
                continue
            taken.append(second)
            if "exact" in known:
                self.exact[second] = (known["exact"], known["tree"])
            else:
                self.known[second] = known["at_least"]
        return taken
