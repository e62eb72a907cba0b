"""Engines run the search's jobs (``jobs.py``): one interface, two ways.

- ``InProcess``: one worker thread in this process with the caller's solver (tests, small games,
  ``--workers 1``). The kernels release the GIL, so the main thread stays free to notice a time
  limit or Ctrl-C and to stop the running job.
- ``Dask``: a Dask cluster (``dask[distributed]``): by default a LocalCluster started by this
  command, one single-threaded worker process per core, or any running cluster given by address
  (``--scheduler tcp://HOST:PORT`` or ``MOO_SCHEDULER``). Each worker keeps one solver per game,
  guess mode and options, with its transposition tables, for as long as it lives.

Cancelling a job that runs sets its solver's stop flag: the kernels return at their next node and
store nothing more, so the worker and its tables stay (Dask cannot interrupt a running task).
Workers started by a command end with it: ``close`` stops them, and should the command die
without closing (SIGKILL), each worker process exits when its parent's pipe closes (Dask's own
guard; it can run because the kernels release the GIL).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import uuid
from concurrent import futures as cf

from .jobs import STOPPED, run_job, warm_up
from .solver import KERNELS, Solver, SolverKey

SMALL_GAME = 2000  # fewer codes than this: in-process unless workers are asked for
SCHEDULER_ENV = "MOO_SCHEDULER"


class Job:
    """A submitted job: ``result()`` once ``done()``."""

    def __init__(self, job_id, future):
        self.id, self.future = job_id, future

    def done(self) -> bool:
        return self.future.done()

    def result(self):
        value = self.future.result()
        if isinstance(value, str) and value == STOPPED:
            raise RuntimeError("the result of a cancelled job was read")
        return value


class _Completions:
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


def open_engine(solver: Solver, workers: int | None = None, scheduler: str | None = None):
    """The engine for a search: Dask when a scheduler is named (argument or MOO_SCHEDULER) or
    ``workers`` > 1; in this process for ``workers`` 0 or 1; when ``workers`` is not given, one
    Dask worker per core, except for small games (fewer than SMALL_GAME codes), which do not pay
    for starting a cluster."""
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if scheduler is not None:
        return Dask(solver, address=scheduler)
    if workers is None:
        workers = 1 if solver.game.n_codes < SMALL_GAME else (os.cpu_count() or 1)
    if workers <= 1:
        return InProcess(solver)
    return Dask(solver, workers=workers)


class InProcess:
    """One worker thread in this process, running the jobs in the order submitted."""

    def __init__(self, solver: Solver):
        self.solver = solver
        self.workers = 1
        self.where = "this process"
        self._threads = cf.ThreadPoolExecutor(1, thread_name_prefix="moo-search")
        self._ids = itertools.count()
        self._done = _Completions()
        self.wait = self._done.wait

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Nothing: the jobs run on the search's own solver, which Search.ready warms."""

    def submit(self, fn, *args) -> Job:
        job_id = next(self._ids)
        future = self._threads.submit(run_job, self.solver, job_id, fn, args)
        return self._done.attach(Job(job_id, future))

    def cancel(self, jobs: list[Job]) -> None:
        for job in jobs:
            job.future.cancel()
        self.solver.cancel({job.id for job in jobs})

    def close(self) -> None:
        self.solver.cancel(EVERY_JOB)
        self._threads.shutdown(wait=True, cancel_futures=True)


class Dask:
    """Jobs on a Dask cluster; the cluster (when this command starts one) is started in the
    background at once, so that it comes up while the caller does its set-up."""

    def __init__(self, solver: Solver, workers: int | None = None, address: str | None = None):
        self.solver = solver
        self.key: SolverKey = solver.key
        self.address = address
        self.where = address or f"a local Dask cluster of {workers} worker processes"
        self.workers = workers or 1
        self._client = None
        self._cluster = None
        self._error: BaseException | None = None
        self._ids = itertools.count()
        self._done = _Completions()
        self.wait = self._done.wait
        self._session = uuid.uuid4().hex[:8]
        self._started = threading.Thread(target=self._start, args=(workers,), daemon=True)
        self._started.start()

    def _start(self, workers: int | None) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster

            from .dask_worker import SolverPlugin  # imports distributed: Dask runs only

            if self.address is None:
                _start_workers_deaf()
                # A job waits at the scheduler until a worker is free, never in a busy worker's
                # queue behind a long job (the default lets each worker hold one more).
                dask.config.set({
                    "distributed.scheduler.worker-saturation": 1.0,
                    # see dask_worker.heap_allocations
                    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                })
                self._cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, worker_dashboard_address=None,
                    # no dashboard, but the scheduler's HTTP server still listens: on a free
                    # port, not on 8787 (another run's, with a warning)
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR)
                self._client = Client(self._cluster)
            else:
                self._client = Client(self.address, timeout="20s")
            self._client.register_plugin(SolverPlugin(), name=SolverPlugin.name)
        except BaseException as exc:  # reported to the caller by client()
            self._error = exc

    def client(self):
        self._started.join()
        if self._error is not None:
            raise RuntimeError(f"cannot start or reach the Dask cluster ({self.where}): "
                               f"{self._error}") from self._error
        return self._client

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Wait for the cluster, then build the solver on every worker (feedback matrix, these
        kernels from numba's cache), so that this is set-up time, not search time."""
        from distributed import wait

        from .dask_worker import on_worker

        client = self.client()
        addresses = list(client.scheduler_info()["workers"])
        self.workers = max(1, sum(client.nthreads().values()))
        warm = [client.submit(on_worker, self.key, ("warm", a), warm_up, kernels, workers=[a],
                              allow_other_workers=False, pure=False) for a in addresses]
        wait(warm)
        for future in warm:
            future.result()

    def submit(self, fn, *args) -> Job:
        from .dask_worker import on_worker

        job_id = (self._session, next(self._ids))
        future = self.client().submit(on_worker, self.key, job_id, fn, *args, pure=False)
        return self._done.attach(Job(job_id, future))

    def cancel(self, jobs: list[Job]) -> None:
        from .dask_worker import cancel_on_worker

        if not jobs:
            return
        client = self.client()
        client.cancel([j.future for j in jobs])
        ids = [j.id for j in jobs]
        try:
            client.run(cancel_on_worker, ids)
        except (OSError, TimeoutError):  # a worker gone: its jobs went with it
            pass

    def close(self) -> None:
        from .dask_worker import cancel_on_worker

        self._started.join()
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        try:
            if client is not None and cluster is None:  # an outside cluster: stop our jobs
                client.run(cancel_on_worker, EVERY_JOB)
        except Exception:  # noqa: BLE001 - closing must not fail the command
            pass
        for thing in (client, cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001
                    pass


def _start_workers_deaf() -> None:
    """Start the worker processes of a local cluster with SIGINT and SIGHUP ignored: a terminal
    sends Ctrl-C and hang-up to every process of its group, but only this command should act on
    them (stop the search, write what it has, close the workers). Ignored signals stay ignored
    across exec, and Python then installs no handler of its own; multiprocessing starts its
    processes with this launcher instead of the interpreter itself."""
    import hashlib
    import multiprocessing.spawn
    import shlex
    import sys
    import tempfile

    # Workers closing after the scheduler log connection errors to this terminal: noise.
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return
    tag = hashlib.sha1(sys.executable.encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), f"moo-worker-python-{os.getuid()}-{tag}")
    script = f"#!/bin/sh\ntrap '' INT HUP\nexec {shlex.quote(sys.executable)} \"$@\"\n"
    try:
        with open(path) as handle:
            current = handle.read() == script
    except OSError:
        current = False
    if not current:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".moo-")
        with os.fdopen(fd, "w") as handle:
            handle.write(script)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    multiprocessing.spawn.set_executable(path)


class _EveryJob:
    """Contains every job id (cancel whatever runs)."""

    def __contains__(self, item) -> bool:
        return True


EVERY_JOB = _EveryJob()
