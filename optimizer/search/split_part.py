"""A part of a root class whose guesses run as separate jobs (the largest, when there are several
workers): the least total found among its guesses so far, the cut-off for the next ones, and the
facts an earlier run's checkpoint holds about them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..kernels.bundles import INF
from ..tree import Node


@dataclass
class SplitPart:
    """A part whose guesses run as separate jobs."""

    fid: int
    part: np.ndarray
    branching: int
    queue: list  # (one-step bound, guess) not yet submitted, best first
    beta: int  # the least total found so far (exact once ``tree`` is set), else the cut-off
    tree: Node | None = None
    bounds: list = field(default_factory=list)  # lower bounds of the guesses that did not win
    running: dict = field(default_factory=dict)  # job -> its guess
    known: dict = field(default_factory=dict)  # guess -> its value or bound from a checkpoint

    def record(self, job, value: int, tree: Node | None) -> int:
        """Take a finished job's result; returns its guess."""
        second = self.running.pop(job)
        if tree is not None and value < self.beta:
            self.beta, self.tree = value, tree
        else:
            self.bounds.append(value)
        return second

    def lower_bound(self) -> int:
        """The part's exact value when a tree was found, else a bound >= the cut-off."""
        if self.tree is not None:
            return self.beta
        return min(self.bounds, default=int(INF))

    def take(self, fact: Callable[[int], dict | None]) -> int:
        """Take an earlier run's facts about the queued guesses (``fact(guess)``: the
        checkpoint's, or None): the best exact one becomes the tree to beat, the other exact
        ones bounds, and a bound is kept to skip its guess once it reaches the cut-off. Returns
        how many facts were taken."""
        exact, taken = {}, 0
        for _, second in self.queue:
            known = fact(second)
            if known is None:
                continue
            taken += 1
            if "exact" in known:
                exact[second] = known
            else:
                self.known[second] = known["at_least"]
        for known in exact.values():
            if known["exact"] < self.beta:
                self.beta, self.tree = known["exact"], known["tree"]
            else:
                self.bounds.append(known["exact"])
        self.queue = [(b, g) for b, g in self.queue if g not in exact]
        return taken
