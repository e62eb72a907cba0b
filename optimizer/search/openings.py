"""Root classes searched whole, one job each and several at once, for a least-cost root search
of many classes (total.py).

A class searched by parts (root_class.RootClass) is fed to the workers pass after pass, each pass
waiting for the last one's answers, one class at a time: Wordle's openings take about a tenth of a
second each, and its search over every opening kept 1.13 of 2 cores busy, the workers waiting on
those round trips and on the parent's work between them. Here a class is one job (total.py's
``total_opening``): the same RootClass search, its parts one after another on the worker that runs
it (engine.Inline), against the best cost in hand when it is sent, one class per worker, in the
order of their bounds. (The kernel's own search of the opening as one guess, tried first, cost
about twice the time on Wordle's openings: it probes every part before raising any in shares.) A
class whose job runs longer than ``cap`` seconds is stopped and searched by parts on every worker,
alone, as before (its part facts kept in the checkpoint); after ``tries`` such classes in a row the
run stops trying (every class of Battleship 4x8x3 takes minutes).
"""

from __future__ import annotations

import time

from ..tree import Node


class OpeningJobs:
    """The whole-class jobs of one root search (``search``: a TotalSearch, its engine, cost and
    time limit) within ``depth``."""

    cap = 2.0  # seconds a class may run as one job before it is searched by parts instead
    tries = 8  # classes in a row that outrun the cap before the run stops trying

    def __init__(self, search, depth: int, job):
        self.search, self.depth, self.job = search, depth, job  # job: total.total_opening
        self.running: dict = {}  # job -> (index of the class, when it was sent)
        self.missed = 0  # classes in a row that outran the cap
        self.on = True

    def room(self) -> bool:
        return len(self.running) < self.search.engine.workers

    def send(self, index: int, guess: int, beta: int) -> None:
        """Search class ``index`` (first guess ``guess``) whole, below ``beta``."""
        job = self.search.submit(self.job, guess, self.depth, beta, self.search.cost)
        self.running[job] = (index, time.monotonic())

    def next(self) -> tuple[int, int | None, Node | None]:
        """(index, least cost when below the job's beta else a bound >= it, tree or None) of the
        next class to finish; (index, None, None) for one stopped at the cap, to be searched by
        parts. TimeoutError at the search's time limit."""
        s = self.search
        while True:
            now = time.monotonic()
            timeout = min(sent for _, sent in self.running.values()) + self.cap - now
            if s.deadline is not None:
                timeout = min(timeout, s.deadline - now)
            job = s.engine.wait(list(self.running), max(0.0, timeout))
            if job is not None:
                index, _ = self.running.pop(job)
                value, tree = s.result(job)[:2]
                self.missed = 0
                return index, value, tree
            if s.out_of_time():
                raise TimeoutError
            now = time.monotonic()
            for job, (index, sent) in list(self.running.items()):
                if now - sent >= self.cap:
                    s.cancel([job])
                    del self.running[job]
                    self.missed += 1
                    self.on = self.on and self.missed < self.tries  # once off, for good
                    return index, None, None

    def stop(self) -> None:
        """Cancel whatever runs (a stopped search)."""
        self.search.cancel(list(self.running))
        self.running.clear()
