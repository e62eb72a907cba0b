"""The root of a whole-game search: its first-guess classes, the jobs an engine runs for them,
and the time limit. The least-height (``height.py``) and least-total (``total.py``) searches are
built on it; what they return is an ``Outcome``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..games.base import tells_nothing
from ..tree import Node
from .observer import QUIET, Observer
from .solver import NodeSolver

STOPPED_EARLY = "stopped before the search finished"


@dataclass
class Outcome:
    value: int  # least height or total found (or a lower bound when not optimal)
    root: Node | None
    optimal: bool
    lower_bound: int
    nodes: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    stopped: bool = False  # a time limit or a signal ended the search
    taken: int = 0  # root classes settled by a checkpoint file, not searched now
    parts_taken: int = 0  # facts below the root taken from a checkpoint file
    searched: int = 0  # root classes searched now
    work_left: dict | None = None  # a stopped search: classes left, core-hours at its pace
    gap: float = 0.0  # --gap: the percent the best was to be proven within (0: exactly)

    def effort(self) -> dict:
        """What a tree's ``meta`` records of this search."""
        out = {"nodes": self.nodes, "seconds": round(self.seconds, 3), "optimal": self.optimal,
               "classes_searched": self.searched}
        if self.taken:
            out["classes_from_checkpoint"] = self.taken
        if self.parts_taken:
            out["parts_from_checkpoint"] = self.parts_taken
        if self.stopped:  # the jobs it stopped ran on other processes: their nodes are unknown
            out["stopped"] = True
            out["nodes_counted"] = "finished jobs only"
        if self.work_left:
            out["work_left"] = self.work_left
        if self.gap:
            out["gap_percent"] = self.gap
        return out


def root_classes(s: NodeSolver) -> list[tuple[int, dict[int, np.ndarray]]]:
    """The first guesses of a whole-game search, one per symmetry class, with their parts
    (guesses that tell nothing dropped)."""
    root = s.root()
    pool = s.representatives(s.all_codes, [])  # every code, not only the secrets (word games)
    if s.guesses == "consistent":
        pool = np.intersect1d(pool, root)
    classes = []
    for g in pool:
        parts = s.game.parts(int(g), root)
        if not tells_nothing(parts, len(root)):
            classes.append((int(g), parts))
    return classes


class RootSearch:
    """A search over the root classes of one game on one engine. ``deadline``: a time.monotonic()
    value after which the search stops with what it has; ``observer``: where its progress goes,
    one bar per search (``self.bar``, which every step of it advances)."""

    split_size = 200  # a part this large has its guesses run as separate jobs
    chunk = 16  # guesses per job of a split part (height), at the least
    slices_per_worker = 8  # a split part's guesses make about this many jobs per worker

    def __init__(self, solver: NodeSolver, engine, deadline: float | None = None,
                 observer: Observer = QUIET, checkpoint=None, opening: int | None = None):
        self.solver = solver
        self.opening = opening  # the one first guess searched (None: every class)
        self.engine = engine
        self.deadline = deadline
        self.observer = observer  # what the search shows (observer.Observer)
        self.checkpoint = checkpoint  # a Checkpoint: facts about root classes from earlier runs
        self.bar = QUIET.bar()  # the progress bar of the search running, once it has one
        self.nodes = 0  # nodes of every finished job (``result``)
        self.cpu = 0.0  # CPU seconds of every finished job

    # --- the root ------------------------------------------------------------------------------
    def root_classes(self) -> list[tuple[int, dict[int, np.ndarray]]]:
        """Root guesses, one per symmetry class, with their parts (useless guesses dropped)."""
        if self.opening is None:
            return root_classes(self.solver)
        # the opening's own parts: it need not be the smallest of its class
        return [(self.opening, self.solver.game.parts(self.opening, self.solver.root()))]

    def splits(self, part: np.ndarray) -> bool:
        """Whether a part is worth running guess by guess on several workers."""
        return self.engine.workers > 1 and len(part) >= self.split_size

    def slices(self, guesses: list[int]) -> list[list[int]]:
        """A split part's guesses in jobs of consecutive guesses: enough jobs for every worker
        to stay busy to the end, few enough that the round trip of a job (a few milliseconds
        through the scheduler, more when the parent is busy) stays small beside its work."""
        per_job = max(self.chunk, -(-len(guesses) // (self.slices_per_worker
                                                     * self.engine.workers)))
        return [guesses[i:i + per_job] for i in range(0, len(guesses), per_job)]

    # --- jobs ----------------------------------------------------------------------------------
    def result(self, job) -> tuple:
        """A finished job's result (``jobs.py``: the nodes it searched second to last, its CPU
        seconds last), added to ``self.nodes`` and ``self.cpu``, the search's counts of its
        finished jobs."""
        value = job.result()
        self.nodes += value[-2]
        self.cpu += value[-1]
        return value

    def spent(self) -> float:
        """CPU seconds of the search's finished jobs, and of those it stopped (their results are
        never read: the engine counts them, on threads or on the Dask workers)."""
        return self.cpu + getattr(self.engine, "stopped_cpu", 0.0)

    def submit(self, fn, *args):
        return self.engine.submit(fn, *args)

    def cancel(self, jobs: list) -> None:
        self.engine.cancel(jobs)

    def finished(self, pending: list):
        """Yield jobs as they finish, taking each out of ``pending`` (which the caller may shrink
        in place); TimeoutError when the time limit is reached, even with finished jobs waiting:
        with its threads' jobs finishing faster than this thread takes them up (a Battleship
        class's split part, beside writes of a 50 MB checkpoint), a run asked to stop at 13:15
        went on past 13:24."""
        while pending:
            if self.out_of_time():
                raise TimeoutError
            timeout = None
            if self.deadline is not None:
                timeout = max(0.0, self.deadline - time.monotonic())
            job = self.engine.wait(pending, timeout)
            if job is None:
                raise TimeoutError
            pending.remove(job)
            yield job

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline
