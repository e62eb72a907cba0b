"""The Dask engine (``dask[distributed]``): a LocalCluster of ``--workers N`` worker processes
started by this command, or any running cluster given by address (``--scheduler tcp://HOST:PORT``
or ``MOO_SCHEDULER``); its local workers start with launcher.py's script. Each worker keeps one
solver per game, guess mode and options, with its transposition tables, for as long as it lives
(``dask_worker.py``). The plan, the in-process engine and the errors are in ``engine.py``.
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import socket
import sys
import threading
import time
import uuid

from tqdm import tqdm

from .handles import Completions, EngineError, Job, SessionJobs, cores
from .jobs import warm_up
from .launcher import hold_launcher, release_launcher
from .solver import KERNELS, NodeSolver, SolverKey

# A scheduler given by address answers within this (or what remains of the time limit), or the
# command fails: Dask's own handshake waits forever on a server that accepts and says nothing.
CONNECT_SECONDS = 10.0
# A local cluster with not one worker after this long (no time limit) has failed to start.
START_SECONDS = 300.0
# The workers' counts of the CPU seconds of stopped jobs are read at most this often.
STOPPED_EVERY = 2.0


class Dask:
    """Jobs on a Dask cluster; the cluster (when this command starts one) is started in the
    background at once, so that it comes up while the caller does its set-up. Start-up counts in
    the time limit (``deadline``, a time.monotonic() value): should the limit pass first, the
    search's first job raises TimeoutError and the search stops with what it has."""

    # What a job costs beyond its work: through the scheduler and back, about 10 ms on this
    # machine with two local workers (4052 jobs of about a millisecond each took 45 s).
    round_trip = 0.01

    def __init__(self, solver: NodeSolver, workers: int | None = None, address: str | None = None,
                 deadline: float | None = None):
        self.solver = solver
        self.key: SolverKey = solver.key
        self.address = address
        self.deadline = deadline
        self.where = address or f"a local Dask cluster of {workers} worker processes"
        self.workers = workers or 1
        self._wanted = self.workers  # the workers of a local cluster, which ready() waits for
        self._client = None
        self._cluster = None
        self._error: BaseException | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._done = Completions()
        self.wait = self._done.wait
        self._session = uuid.uuid4().hex[:8]
        # worker address -> (its process's token, its count of stopped_cpu), as last read
        self._stopped: dict[str, tuple[str, float]] = {}
        self._stopped_gone = 0.0  # the last counts of worker processes since replaced
        self._stopped_read = -STOPPED_EVERY  # time.monotonic() of the last reading
        self._answer_by = time.monotonic() + CONNECT_SECONDS  # a scheduler given by address
        self._said_late = False  # the warning that it had not answered by the time limit
        self._watching = False  # the outside scheduler's worker events followed
        self._said_empty = False  # the warning that it has no worker, until one joins
        self._launcher = hold_launcher() if address is None else None
        self._up = threading.Event()  # set once the client is there, or the start failed
        self._started = threading.Thread(target=self._start, args=(self._wanted,), daemon=True)
        self._started.start()

    def _start(self, workers: int) -> None:
        client = cluster = None
        try:
            import dask
            from distributed import Client, LocalCluster

            from .dask_worker import SolverPlugin, WordsPlugin  # imports distributed: Dask only

            # A client of an earlier engine in this process, collected while Dask's shared loop
            # runner starts this one, stops that runner under the lock its start holds: a
            # deadlock (seen in the test suite, which runs many engines). Collect it first.
            gc.collect()
            if self.address is None:
                # Workers closing after the scheduler log connection errors to this terminal.
                os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
                # A job waits at the scheduler until a worker is free, never in a busy worker's
                # queue behind a long job (the default lets each worker hold one more).
                dask.config.set({
                    "distributed.scheduler.worker-saturation": 1.0,
                    # see dask_worker.heap_allocations
                    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                })
                # No worker yet: they start in the background (_scale_up).
                cluster = LocalCluster(
                    n_workers=0, threads_per_worker=1, processes=True,
                    dashboard_address=None, worker_dashboard_address=None,
                    # no dashboard, but the scheduler's HTTP server still listens: on a free
                    # port, not on 8787 (another run's, with a warning)
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR)
                client = Client(cluster)
            else:
                seconds = max(0.1, self._answer_by - time.monotonic())
                if self.deadline is not None:
                    seconds = max(0.1, min(seconds, self.deadline - time.monotonic()))
                _listening(self.address, seconds)
                client = Client(self.address, timeout=f"{seconds:.3f}s")
            client.register_plugin(SolverPlugin(), name=SolverPlugin.name)
            if self.key.words:  # a word game: its lists go with it (the spec may not rebuild it)
                game = self.solver.game
                client.register_plugin(WordsPlugin(game), name=WordsPlugin.name_of(game))
        except BaseException as exc:  # reported to the caller by client()
            self._error = exc
            _shut(client, cluster)
            client = cluster = None
        with self._lock:
            closed = self._closed
            if not closed:
                self._client, self._cluster = client, cluster
            self._up.set()
        if closed:
            _shut(client, cluster)  # given up on (no answer in time) and closed meanwhile
        elif cluster is not None:
            self._scale_up(client, cluster, workers)

    def _scale_up(self, client, cluster, wanted: int) -> None:
        """Start the local workers a core's worth at a time (more at once only share the cores),
        each batch once the one before has joined, until the engine is closed: closing then
        waits for one batch's start-up at most, not for every worker's (Dask closes a cluster
        only once the workers it is starting are up)."""
        step, target = cores(), 0
        try:
            while not self._closed:
                joined = len(client.nthreads())
                if joined >= wanted:
                    return
                if joined >= target:
                    target = min(wanted, target + step)
                    cluster.scale(target)
                time.sleep(0.1)
        except Exception:  # noqa: BLE001 - the cluster closed under it
            pass

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def client(self):
        """The cluster's client once it answers. TimeoutError when the time limit passes first
        (the search stops as at any time limit); EngineError when the cluster cannot be started
        or reached: a scheduler given by address answers within CONNECT_SECONDS, or never (Dask
        waits forever on a server that accepts and says nothing)."""
        ends = [] if self.deadline is None else [self.deadline]
        if self.address is not None:
            ends.append(self._answer_by)
        if not self._up.wait(max(0.0, min(ends) - time.monotonic()) if ends else None):
            if self._out_of_time():
                if self.address is not None and not self._said_late:  # say why, once
                    self._said_late = True
                    print(f"moo: warning: no Dask scheduler answered at {self.address} before "
                          "the time limit; the run stops with the tree it has", file=sys.stderr)
                raise TimeoutError
            raise EngineError(f"no Dask scheduler answered at {self.address} within "
                              f"{CONNECT_SECONDS:g} s")
        error = self._error
        if error is not None:
            if isinstance(error, EngineError):
                raise error
            if self._out_of_time():
                raise TimeoutError from error
            said = (str(error).strip().splitlines() or [type(error).__name__])[0]
            if self.address is not None:
                raise EngineError(f"{self.address} did not answer as a Dask scheduler: "
                                  f"{said}") from error
            raise EngineError(f"cannot start {self.where}: {said}") from error
        if self._client is None:
            raise EngineError(f"the Dask engine ({self.where}) was closed")
        return self._client

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Wait for the cluster and, on this machine, for its workers, then build the solver on
        every worker (feedback matrix, these kernels from numba's cache), so that this is
        set-up time, not search time. Returns as it is when the time limit passes first."""
        from .dask_worker import on_worker

        warm: dict = {}  # warm-up job -> the worker it is for
        try:
            client = self.client()
            if self._cluster is not None:
                self._wait_for_workers(client)
            if self.address is not None and not self._watching:  # the last worker gone
                self._watching = True  # mid-run is said too, and the next to join
                client.subscribe_topic("all", self._on_cluster_event)
            threads = client.nthreads()  # every worker (some versions' scheduler_info: five)
            if not threads and not self._said_empty:  # the jobs wait for one: said, not a
                self._say("has no worker; the jobs wait until one joins")  # silent bar at 0
            addresses = list(threads)
            self.workers = max(1, sum(threads.values()))
            warm = {client.submit(on_worker, self.key, ("warm", a), warm_up, kernels,
                                  workers=[a], allow_other_workers=False, pure=False): a
                    for a in addresses}
            self._warm_up(client, warm)
        except TimeoutError:
            if not self._out_of_time():
                raise
            if warm:
                self._client.cancel(list(warm))
            return  # the search's first job stops it
        for future in warm:
            future.result()

    def _warm_up(self, client, warm: dict) -> None:
        """Until the warm-up jobs are done, but for those whose worker has left (each is bound
        to its worker: it would wait for that one for good, while a new worker takes the search's
        jobs). TimeoutError at the time limit."""
        from distributed import wait

        while warm:
            step = 1.0 if self.deadline is None else \
                max(0.0, min(1.0, self.deadline - time.monotonic()))
            try:
                wait(list(warm), timeout=step)
                return
            except TimeoutError:
                if self._out_of_time():
                    raise
            here = client.nthreads()
            gone = [job for job, worker in warm.items() if worker not in here]
            if gone:
                client.cancel(gone)
                for job in gone:
                    del warm[job]

    def _say(self, what: str, empty: bool = True) -> None:
        """That the outside scheduler has no worker (a warning), or one again; above the bars."""
        self._said_empty = empty
        text = f"the Dask scheduler at {self.address} {what}"
        tqdm.write(f"moo: warning: {text} (`dask worker {self.address}`)" if empty else
                   f"moo: {text}", file=sys.stderr)

    async def _on_cluster_event(self, event) -> None:
        """A worker joining or leaving the outside scheduler (its "all" events, on the client's
        loop): the last one gone mid-run is said, as the bar then stands still, and the next to
        join after that. The scheduler is asked how many are left, having counted the change."""
        message = event[1] if isinstance(event, tuple) and len(event) == 2 else None
        client = self._client
        if (not isinstance(message, dict) or client is None or self._closed
                or message.get("action") not in ("add-worker", "remove-worker")):
            return
        try:
            workers = len(await client.scheduler.ncores())
        except Exception:  # noqa: BLE001 - the scheduler gone: the jobs say so
            return
        if self._closed:
            return
        if not workers and not self._said_empty:
            self._say("has lost its last worker; the jobs wait until one joins")
        elif workers and self._said_empty:
            self._say("has a worker now; the jobs go on", empty=False)

    def _wait_for_workers(self, client) -> None:
        """Until every worker of the local cluster has joined; TimeoutError at the time limit.
        After START_SECONDS, those that have joined do, and none at all is an EngineError."""
        since = time.monotonic()
        while (joined := len(client.nthreads())) < self._wanted:
            if self._out_of_time():
                raise TimeoutError
            if time.monotonic() - since > START_SECONDS:
                if joined:
                    return
                raise EngineError(f"{self.where}: no worker started within "
                                  f"{START_SECONDS:g} s")
            time.sleep(0.1)

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
        self._stopped_read = -STOPPED_EVERY  # what they spent: at the next reading

    @property
    def stopped_cpu(self) -> float:
        """CPU seconds of this command's jobs stopped while they ran, as each worker counts them
        (RootSearch.spent): a round trip to every worker, at most every STOPPED_EVERY seconds
        (a search may settle a class every few milliseconds) and at the first reading after a
        cancel. A worker lost keeps its last count; a new process at its address, its own. A
        job still stopping at the last reading is not counted."""
        from .dask_worker import stopped_cpu_on_worker

        client = None if self._closed else self._client
        if (client is not None and client.status == "running"
                and time.monotonic() - self._stopped_read >= STOPPED_EVERY):
            self._stopped_read = time.monotonic()
            try:  # a worker that fails to answer is left out ("ignore"): its last count holds
                counts = client.run(stopped_cpu_on_worker, self._session, on_error="ignore")
            except Exception:  # noqa: BLE001 - the cluster closing: the last counts
                counts = {}
            for worker, count in counts.items():
                if not isinstance(count, tuple):
                    continue
                last = self._stopped.get(worker)
                if last is not None and last[0] != count[0]:
                    self._stopped_gone += last[1]
                self._stopped[worker] = count
        return self._stopped_gone + sum(cpu for _, cpu in self._stopped.values())

    def close(self) -> None:
        """Stop this command's jobs (an outside cluster) or its cluster, workers starting
        included; a scheduler that never answered is given up on, not waited for."""
        from .dask_worker import cancel_on_worker

        if self.address is None:
            self._up.wait()  # the scheduler alone: a moment
        with self._lock:
            self._closed = True
            client, cluster = self._client, self._cluster
            self._client = self._cluster = None
        if self.address is None:
            self._started.join()  # _scale_up sees the engine closed within a tenth of a second
        try:
            if client is not None and cluster is None:  # an outside cluster: stop our jobs,
                client.run(cancel_on_worker, SessionJobs(self._session))  # not others'
        except Exception:  # noqa: BLE001 - closing must not fail the command
            pass
        _shut(client, cluster)
        if self._launcher is not None:
            self._launcher = None
            release_launcher()


def _shut(client, cluster) -> None:
    """Close a client and a cluster, either of which may be None; never fails."""
    for thing in (client, cluster):
        if thing is not None:
            try:
                thing.close()
            except Exception:  # noqa: BLE001 - closing must not fail the command
                pass


def _listening(address: str, seconds: float) -> None:
    """Refuse at once an address where nothing listens (Dask retries a refused connection until
    its timeout: 22 s on a closed port) or whose host is unknown."""
    host, _, port = address.split("://", 1)[1].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=seconds):
            pass
    except TimeoutError:
        raise  # no answer: client() decides (the time limit, or no scheduler there)
    except ConnectionRefusedError:
        raise EngineError(f"{address}: connection refused (no Dask scheduler listens "
                          "there)") from None
    except socket.gaierror as exc:
        raise EngineError(f"{address}: unknown host ({exc.strerror})") from None
    except OSError as exc:
        raise EngineError(f"{address}: {exc.strerror or exc}") from None
