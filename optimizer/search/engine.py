"""Engines run the search's jobs (``jobs.py``): one interface, two ways.

- ``InProcess``: worker threads in this process (the default): one with the caller's solver for
  a search whose work does not pay for more (``parallel_pays``), else one per core, each with a
  solver of its own (its scratch; the transposition tables are the caller's solver's, shared)
  over the game's one set of answer matrices. The
  kernels release the GIL, so the threads search at once and the main thread stays free to
  notice a time limit or Ctrl-C and to stop the running jobs.
- ``Dask`` (``dask_engine.py``): a Dask cluster (``dask[distributed]``): a LocalCluster of
  ``--workers N`` worker processes started by this command, or any running cluster given by
  address (``--scheduler tcp://HOST:PORT`` or ``MOO_SCHEDULER``). Each worker keeps one solver
  per game, guess mode and options, with its transposition tables, for as long as it lives.

Cancelling a job that runs sets its solver's stop flag: the kernels return at their next node and
store nothing more, so the worker and its tables stay (Dask cannot interrupt a running task).
Workers started by a command end with it: ``close`` stops them, and should the command die
without closing (SIGKILL), each worker process exits when its parent's pipe closes (Dask's own
guard; it can run because the kernels release the GIL).

What cannot run is bad input (``EngineError``, exit status 2), said before any work where it
can be (``engine_plan``): an address Dask cannot take, more workers than the machine holds; then
a scheduler that refuses or does not answer within dask_engine.CONNECT_SECONDS. A cluster's
start-up counts in the time limit.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
from concurrent import futures as cf

from ..games import Game
from ..kernels.table import table_bits
from .handles import EVERY_JOB, CancelledJobs, Completions, EngineError, Job, cores
from .jobs import run_job
from .solver import KERNELS, NodeSolver

# The search is split over the cores (one thread each) only when every first-guess class leaves
# a part of at least this many codes: below it, the one-job search of a single thread, whose
# table and probes reach across the classes, costs less CPU and about as much time (2026-11-25:
# Mastermind 4x7, largest parts 582 or more, 3.5 s of CPU alone against 5.2 s split over two
# threads; Bulls and Cows 4 of 9, 840: 1.2 s of search alone against 0.8 s on two).
PARALLEL_PART = 800
# ... or when there are at least MANY_CLASSES first-guess classes whose largest parts hold
# PARALLEL_WORK codes in all: jobs enough for every thread (no game below Battleship 4x8x3's
# size has both; its smaller boards, 78 classes and 6674 codes at most, stay on one thread).
# With that many classes a least-cost search also tries each one whole first (openings.py).
MANY_CLASSES, PARALLEL_WORK = 64, 100_000
SCHEDULER_ENV = "MOO_SCHEDULER"
# Schemes of the addresses Dask's clients reach over TCP (a port on a host).
SCHEMES = ("tcp", "tls", "ws", "wss")
# What the machine can hold: worker processes per core (more only share the cores), and the
# memory of one worker: the process itself (Python, numpy, numba's kernels, Dask: about 250 MB
# resident, shared libraries included), the game's answer matrices (the feedback matrix, its
# dense renumbering and that one's transpose: 3 n^2 bytes) and two transposition tables of
# TABLE_SLOT_BYTES a slot, which fill as the search goes.
WORKERS_PER_CORE = 4
WORKER_BYTES = 200 << 20
TABLE_SLOT_BYTES = 48


def open_engine(solver: NodeSolver, workers: int | None = None, scheduler: str | None = None,
                deadline: float | None = None):
    """The engine for a search: Dask when a scheduler is named (argument or MOO_SCHEDULER) or
    ``workers`` > 1 (a local cluster of that many processes); in this process for ``workers`` 0
    or 1; when ``workers`` is not given, threads in this process: one per core (as many as the
    memory holds) when the root's parts make splitting the search pay (``parallel_pays``), else
    one. Threads start at once and share the answer matrices and loaded kernels, where each
    process of a local cluster took seconds to start, import, build the matrices and load the
    kernels again (Bulls and Cows 4 of 9: 5.3 s and 5.6 s of CPU for the whole command on two
    processes, 1.5-2.5 s and 2.2 s on two threads). ``deadline``: the time limit (a
    time.monotonic() value), within which a cluster's start-up counts. EngineError for settings
    the engine cannot take (``engine_plan``)."""
    asked = workers
    workers, address = engine_plan(solver.game, workers, scheduler, solver.key.table_bits)
    if address is not None:
        from .dask_engine import Dask  # imports distributed only when it runs

        return Dask(solver, address=address, deadline=deadline)
    if asked is None:  # the threads the work pays for
        return InProcess(solver, threads=workers if workers > 1 and parallel_pays(solver) else 1)
    if workers <= 1:
        return InProcess(solver)
    from .dask_engine import Dask

    return Dask(solver, workers=workers, deadline=deadline)


def parallel_pays(solver: NodeSolver) -> bool:
    """Whether a search of the whole game is worth splitting over several threads: every
    first-guess class leaves a part of PARALLEL_PART codes or more (the least of the largest
    parts bounds what the best class alone costs), or there are so many classes, with so much
    in their largest parts, that they keep every thread busy (Battleship 4x8x3: 1240 classes,
    1.2 million codes in their largest parts; 3 classes refuted at height 5 in 11.1-11.3 s on
    one thread against 6.4-6.8 s on two). A few milliseconds: one symmetry pass over the codes
    and the parts of the classes."""
    from .root import root_classes

    largest = [max((len(p) for p in parts.values()), default=0)
               for _, parts in root_classes(solver)]
    if not largest:
        return False
    many = len(largest) >= MANY_CLASSES and sum(largest) >= PARALLEL_WORK
    return min(largest) >= PARALLEL_PART or many


def engine_plan(game: Game, workers: int | None = None, scheduler: str | None = None,
                bits: int | None = None) -> tuple[int, str | None]:
    """(workers on this machine: when not given, one per core as the memory holds, the most
    threads open_engine may use; the scheduler's address or None: --workers given wins over
    MOO_SCHEDULER, and with --scheduler is refused), checked before any work:
    EngineError for an address Dask cannot take (``scheduler_address``) or more workers than
    this machine holds (``worker_limit``, each with tables of 2^``bits`` slots: the game's
    default when None)."""
    if scheduler is not None:
        if workers is not None:  # a scheduler's workers are those started for it
            raise EngineError("--workers and --scheduler: a Dask scheduler's workers are those "
                              "started for it (`dask worker`); give one of the two")
        return 0, scheduler_address(scheduler, "--scheduler")
    named = os.environ.get(SCHEDULER_ENV)
    if named and workers is None:  # set but empty: not set; --workers N: this machine's
        return 0, scheduler_address(named, SCHEDULER_ENV)
    limit, why = worker_limit(game, bits)
    if workers is None:
        workers = max(1, min(cores(), limit))
    elif workers > max(limit, 1):
        raise EngineError(f"--workers {workers}: this machine holds at most {limit} worker "
                          f"processes for {game.spec} ({why})")
    return workers, None


def scheduler_address(text: str, source: str = "--scheduler") -> str:
    """A Dask scheduler's address, ``[SCHEME://]HOST:PORT`` (SCHEMES; tcp when none), port 1
    to 65535, normalized with its scheme; EngineError naming ``source`` otherwise (Dask's own
    message is a traceback, and some forms it takes only to hang or retry)."""
    shown = repr(text[:80])
    usage = "give tcp://HOST:PORT (port 1 to 65535)"
    if not text or not text.isprintable() or any(c.isspace() for c in text):
        raise EngineError(f"{source}: {shown} is not a Dask scheduler address: {usage}")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme.lower() not in SCHEMES:
        raise EngineError(f"{source}: {shown}: unknown scheme {scheme[:20]!r} (Dask schedulers "
                          f"are reached by {', '.join(s + '://' for s in SCHEMES)}): {usage}")
    host, colon, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):  # [IPv6]:PORT
        name_ok = re.fullmatch(r"\[[0-9A-Fa-f:.]+\]", host) is not None
    else:
        name_ok = re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", host) is not None
    if not colon or not name_ok:
        raise EngineError(f"{source}: {shown} names no host and port: {usage}")
    if not re.fullmatch(r"[0-9]{1,5}", port) or not 1 <= int(port) <= 65535:
        raise EngineError(f"{source}: {shown}: the port must be a number from 1 to 65535")
    return f"{scheme.lower()}://{host}:{int(port)}"


def worker_limit(game: Game, bits: int | None = None) -> tuple[int, str]:
    """(the most worker processes this machine holds for ``game``, why): WORKERS_PER_CORE per
    core, and no more than the available memory holds at one worker's cost (WORKER_BYTES, the
    answer matrices, two tables). A run past either bound only thrashes or is killed: 24
    workers on 2 cores took 55 s and 3 GB to start. ``bits``: the tables' size (2^bits slots),
    the game's default (kernels.table.table_bits) when None."""
    count = cores()
    limit = WORKERS_PER_CORE * count
    why = f"{WORKERS_PER_CORE} per core, {count} cores"
    each = _worker_bytes(game, bits)
    free = _memory_available()
    if free is not None:
        held = free // each
        why += f"; {free >> 20} MB of memory available, about {each >> 20} MB a worker"
        limit = max(1, min(limit, held))  # one: this process alone
    return limit, why


def _worker_bytes(game: Game, bits: int | None = None) -> int:
    """One worker's memory: the process, the answer matrices, two tables (``worker_limit``)."""
    return (WORKER_BYTES + 3 * game.n_codes * game.n_secrets
            + 2 * TABLE_SLOT_BYTES * (1 << (bits or table_bits(game.n_secrets))))


def check_table_bits(game: Game, bits: int) -> None:
    """EngineError, before any work, for tables (--table-bits) that one worker cannot hold in
    the memory available: the search would thrash or be killed once they fill."""
    free, each = _memory_available(), _worker_bytes(game, bits)
    if free is not None and each > free:
        raise EngineError(f"--table-bits {bits}: a worker with tables of 2^{bits} slots needs "
                          f"about {each >> 20} MB, and {free >> 20} MB of memory are available")


def _memory_available() -> int | None:
    """Bytes of memory available to new processes: the system's (MemAvailable) or what is left
    under this process's cgroup limit, the smaller; None when unknown."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as handle:
            most = handle.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as handle:
            used = int(handle.read().strip())
        if most.isdigit():
            found.append(max(0, int(most) - used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


class Inline:
    """Runs each job at once in the calling thread, on one solver, with no thread and no round
    trip: the engine of a root search run inside a job (a first-guess class searched whole,
    openings.py). Once that job is cancelled (its solver's stop flag), the next job submitted
    raises Stopped, so the search inside it ends."""

    workers = 1
    where = "this thread"
    round_trip = 0.0  # seconds a job costs beyond its work (split_part.SplitPart.batch)

    def __init__(self, solver: NodeSolver):
        self.solver = solver
        self._ids = itertools.count()

    def submit(self, fn, *args) -> Job:
        if self.solver.stop[0]:
            raise Stopped
        future = cf.Future()
        future.set_result(fn(self.solver, *args))
        return Job(next(self._ids), future)

    def wait(self, jobs: list[Job], timeout: float | None) -> Job | None:
        return jobs[0] if jobs else None

    def cancel(self, jobs: list[Job]) -> None:
        """Nothing runs once submit returns."""


class Stopped(Exception):
    """The job that runs an Inline engine's search was cancelled."""


class InProcess:
    """``threads`` worker threads in this process, taking the jobs in the order submitted. One
    thread searches with the caller's solver (warmed by Search.ready); several each build a
    solver of their own for the same key on their first job, its own scratch over the game's
    answer matrices (built once), since a NodeSolver is not shared between threads and the
    caller's own keeps ranking the guesses of the parts it splits while jobs run. Their
    transposition tables are the caller's (``NodeSolver(share=...)``): a guess asked again, at a
    higher cut-off, finds what was proved of its parts on whichever thread it ran before (with a
    table each, such an ask cost about 40% more on the other thread: docs/performance.md)."""

    # What a job costs a worker thread beyond its work: a future is microseconds, but the next
    # job comes only once the caller's thread has woken, taken the answer and sent it. Battleship
    # classes' split parts are thousands of guesses of a few milliseconds: one a job left each
    # worker idle 17% of the time (py-spy), and jobs of several guesses (SplitPart.batch)
    # settled three classes against 22630 in 106.7-108.3 s against 121.6-122.5 s.
    round_trip = 0.002

    def __init__(self, solver: NodeSolver, threads: int = 1):
        self.solver = solver
        self.workers = max(1, threads)
        self.where = "this process" if self.workers == 1 else \
            f"this process, {self.workers} threads"
        self._threads = cf.ThreadPoolExecutor(self.workers, thread_name_prefix="moo-search")
        self._solvers: list[NodeSolver] = []  # one per thread, in the order they were taken
        self._mine = threading.local()
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._done = Completions()
        self.wait = self._done.wait
        self._cancelled = CancelledJobs()  # jobs cancelled once a thread had taken them
        self.stopped_cpu = 0.0  # CPU seconds of the jobs stopped while they ran (RootSearch.spent)

    def ready(self, kernels: tuple[str, ...] = KERNELS) -> None:
        """Nothing: the jobs run on the search's own solver, which Search.ready warms."""

    def _thread_solver(self) -> NodeSolver:
        """The solver of the calling worker thread (the caller's when it is the only one)."""
        solver = getattr(self._mine, "solver", None)
        if solver is None:
            key = self.solver.key
            solver = self.solver if self.workers == 1 else NodeSolver(
                self.solver.game, key.guesses, key.opts, key.table_bits, key.counting,
                share=self.solver)
            with self._lock:
                self._solvers.append(solver)
            self._mine.solver = solver
        return solver

    def _run(self, job_id, fn, args):
        try:
            return run_job(self._thread_solver(), job_id, fn, args, self._count_stopped,
                           self._cancelled)
        finally:
            self._cancelled.discard(job_id)

    def _count_stopped(self, seconds: float) -> None:
        with self._lock:
            self.stopped_cpu += seconds

    def submit(self, fn, *args) -> Job:
        job_id = next(self._ids)
        future = self._threads.submit(self._run, job_id, fn, args)
        return self._done.attach(Job(job_id, future))

    def _every_solver(self) -> list[NodeSolver]:
        with self._lock:
            return list(self._solvers) or [self.solver]

    def cancel(self, jobs: list[Job]) -> None:
        """Stop the jobs. With one thread, whose jobs run on the caller's own solver, wait for
        those that run to return (at their next node): the caller may use the solver next, and
        would find its stop flag still set (--improve's rollouts after a height search)."""
        # A job a thread has taken may not have started: noted before the solvers are told.
        self._cancelled.add([job.id for job in jobs
                             if not job.future.cancel() and not job.future.done()])
        ids = {job.id for job in jobs}
        for solver in self._every_solver():
            solver.cancel(ids)
        if self.workers == 1:  # again while one runs: a job starting just now clears the flag
            while cf.wait([job.future for job in jobs], timeout=0.05).not_done:
                self.solver.cancel(ids)

    def close(self) -> None:
        self._cancelled.add(EVERY_JOB)  # those taken and not started too
        for solver in self._every_solver():
            solver.cancel(EVERY_JOB)
        self._threads.shutdown(wait=True, cancel_futures=True)
