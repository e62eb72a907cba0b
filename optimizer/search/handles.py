"""What every engine hands back and needs: a job's handle, waiting for the first finished job,
the error of an engine that cannot run, the cores this process may use. Apart from ``engine.py``
and ``dask_engine.py`` so that neither imports the other for them."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import CancelledError

from .jobs import STOPPED


class EngineError(ValueError):
    """The engine cannot run as asked (an address Dask cannot take, a cluster that does not
    answer, more workers than the machine holds): bad input, said in one line (exit status 2),
    never "the claim is false" (1)."""


class EngineLost(TimeoutError):
    """The engine lost a job it had taken (a Dask scheduler gone mid-run cancels every future):
    the search stops as at its time limit, and the command writes the best tree it has and
    the checkpoint's facts (exit status 3), where it once ended in a traceback and wrote
    nothing."""


class Job:
    """A submitted job: ``result()`` once ``done()``."""

    def __init__(self, job_id, future):
        self.id, self.future = job_id, future

    def done(self) -> bool:
        return self.future.done()

    def result(self):
        try:
            value = self.future.result()
        except CancelledError as exc:  # not by this run: it reads no job it cancelled
            _say_lost(exc)
            raise EngineLost(str(exc)) from None
        if isinstance(value, str) and value == STOPPED:
            raise RuntimeError("the result of a cancelled job was read")
        return value


_LOST: list[str] = []  # said once in a process (a command is one run)


def _say_lost(exc: BaseException) -> None:
    if not _LOST:
        said = " ".join(str(exc).split())[:200]  # Dask's reasons run over lines
        _LOST.append(said)
        print(f"moo: warning: the engine lost a job ({said}): its scheduler or "
              "cluster is gone; the search stops with what it has (the tree and checkpoint "
              "are written; run the command again to go on)", file=sys.stderr, flush=True)


class Completions:
    """Wakes a waiting caller whenever a job finishes (each future calls back on completion), so
    that waiting costs nothing per job still running. Dask's own wait(FIRST_COMPLETED) watches
    every future anew at each call: with hundreds of short jobs pending, that cost the parent
    more than the jobs cost the workers."""

    def __init__(self):
        self._event = threading.Condition()

    def attach(self, job: Job) -> Job:
        job.future.add_done_callback(self._notify)
        return job

    def _notify(self, _future) -> None:
        with self._event:
            self._event.notify_all()

    def wait(self, jobs: list[Job], timeout: float | None) -> Job | None:
        """The first of ``jobs`` (in their order) that is done; None after ``timeout``."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._event:
            while True:
                for job in jobs:
                    if job.future.done():
                        return job
                left = 0.5 if end is None else min(0.5, end - time.monotonic())
                if left <= 0:
                    return None
                self._event.wait(left)  # in slices: a signal is handled within half a second


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _EveryJob:
    """Contains every job id (cancel whatever runs)."""

    def __contains__(self, item) -> bool:
        return True


EVERY_JOB = _EveryJob()


class CancelledJobs:
    """Jobs cancelled that may not have started yet, checked as each one starts
    (``NodeSolver.start``; a cancel landing just before that found no such job running): ids one
    by one, the oldest forgotten past ``most``, and whole sets of them (``EVERY_JOB`` as an
    engine closes, ``SessionJobs`` as a command leaves a cluster), the last ``most_sets``."""

    def __init__(self, most: int = 100_000, most_sets: int = 1000):
        self.most, self.most_sets = most, most_sets
        self._ids: OrderedDict = OrderedDict()  # id -> None, oldest first
        self._sets: list = []
        self._lock = threading.Lock()

    def add(self, jobs) -> None:
        """Job ids (a list or set), or a container of them such as ``SessionJobs``."""
        with self._lock:
            if not hasattr(jobs, "__iter__"):
                self._sets = (self._sets + [jobs])[-self.most_sets:]
                return
            for job_id in jobs:
                self._ids[job_id] = None
            while len(self._ids) > self.most:
                self._ids.popitem(last=False)

    def discard(self, job_id) -> None:
        """A job that ran (or was stopped): its id is not looked for again."""
        with self._lock:
            self._ids.pop(job_id, None)

    def __contains__(self, job_id) -> bool:
        return job_id in self._ids or any(job_id in jobs for jobs in self._sets)


class SessionJobs:
    """Contains the ids of one engine's jobs ((session, number) pairs, dask_engine): what a
    command stops when it leaves a cluster that other commands may be using too."""

    def __init__(self, session: str):
        self.session = session

    def __contains__(self, item) -> bool:
        return isinstance(item, tuple) and len(item) == 2 and item[0] == self.session
