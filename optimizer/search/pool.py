"""A small pool of forked worker processes whose running jobs can be cancelled.

concurrent.futures cannot stop a job once it runs; a search that has already refuted a root class
must not let its other parts hold a core. Here cancelling a running job kills its worker and forks
a fresh one (which starts with the parent's tables, so nothing wrong can leak from the old one).
"""

from __future__ import annotations

import multiprocessing
import signal
from multiprocessing.connection import wait as wait_any


class Job:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args
        self.value = None
        self.done = False
        self.cancelled = False
        self.worker: _Worker | None = None

    def result(self):
        return self.value


class _Worker:
    def __init__(self, context):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.job: Job | None = None

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


def _serve(conn) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        fn, args = message
        conn.send(fn(*args))


class WorkerPool:
    def __init__(self, workers: int):
        self.context = multiprocessing.get_context("fork")
        self.workers = [_Worker(self.context) for _ in range(workers)]
        self.queue: list[Job] = []

    def submit(self, fn, *args) -> Job:
        job = Job(fn, args)
        self.queue.append(job)
        self._dispatch()
        return job

    def _dispatch(self) -> None:
        for worker in self.workers:
            if worker.job is None and self.queue:
                job = self.queue.pop(0)
                worker.job, job.worker = job, worker
                worker.conn.send((job.fn, job.args))

    def cancel(self, jobs: list[Job]) -> None:
        """Drop the queued ones first, then kill the workers running the others (in that order,
        so that a fresh worker never picks up a job about to be cancelled)."""
        doomed = {id(job) for job in jobs if not job.done}
        for job in jobs:
            job.cancelled = job.cancelled or not job.done
        self.queue = [job for job in self.queue if id(job) not in doomed]
        for index, worker in enumerate(self.workers):
            if worker.job is not None and id(worker.job) in doomed:
                worker.kill()
                self.workers[index] = _Worker(self.context)
        self._dispatch()

    def wait(self, jobs: list[Job], timeout: float | None) -> Job | None:
        """The first of ``jobs`` to finish, or None after ``timeout`` seconds."""
        for job in jobs:
            if job.done:
                return job
        while True:
            busy = {w.conn: w for w in self.workers if w.job is not None}
            if not busy:
                return None
            ready = wait_any(list(busy), timeout)
            if not ready:
                return None
            finished = None
            for conn in ready:
                worker = busy[conn]
                job = worker.job
                job.value, job.done = conn.recv(), True
                worker.job = None
                if job in jobs and finished is None:
                    finished = job
            self._dispatch()
            if finished is not None:
                return finished

    def close(self) -> None:
        for worker in self.workers:
            worker.kill()
        self.workers = []
        self.queue = []
