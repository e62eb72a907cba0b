"""What lives in each Dask worker process: its solvers, kept between jobs, and cancellation.

Imported by a worker when it unpickles a job, and by the engine only when it uses Dask, so that
runs in this process never import distributed.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import uuid

from distributed import WorkerPlugin, get_worker

from ..games import GameError, WordGame
from .handles import CancelledJobs
from .jobs import STOPPED, run_job
from .solver import NodeSolver, SolverKey

# The word games clients shipped to this worker (WordsPlugin), by spec and lists' digest. Never
# emptied: a game's lists (Wordle's: about 100 KB) stay while the worker lives, as the plugin
# stays registered with the scheduler.
SHIPPED: dict[tuple[str, str], WordGame] = {}


class SolverPlugin(WorkerPlugin):
    """One solver per (SolverKey, worker thread), built on first use and kept while the worker
    lives; the ids of jobs cancelled before they started; and, by engine session, the CPU
    seconds of its jobs stopped while they ran (their results are never read)."""

    name = "moo-solvers"
    idempotent = True

    def __init__(self):
        self.solvers: dict = {}
        self.cancelled = CancelledJobs()
        self.stopped_cpu: dict[str, float] = {}  # a float per session while the worker lives
        self.born = uuid.uuid4().hex  # tells this worker's counts from an earlier process's
        self.lock = threading.Lock()

    def __reduce__(self):
        return SolverPlugin, ()  # sent to each worker empty: its solvers are its own

    def solver(self, key: SolverKey) -> NodeSolver:
        slot = (key, threading.get_ident())
        with self.lock:
            solver = self.solvers.get(slot)
        if solver is None:
            heap_allocations()
            solver = key.build(shipped(key))
            with self.lock:
                self.solvers[slot] = solver
        return solver

    def count_stopped(self, session: str, seconds: float) -> None:
        with self.lock:
            self.stopped_cpu[session] = self.stopped_cpu.get(session, 0.0) + seconds

    def cancel(self, job_ids) -> None:
        with self.lock:
            self.cancelled.add(job_ids)  # a list, or SessionJobs
            solvers = list(self.solvers.values())
        for solver in solvers:
            solver.cancel(job_ids)


class WordsPlugin(WorkerPlugin):
    """A word game's lists, sent once to every worker, those that join later included: its
    spec names files that may not be there (another machine, another folder) or no files at all
    (``word_game`` lists from the Python API). One plugin per game, named by its digest."""

    idempotent = True

    def __init__(self, game: WordGame) -> None:
        self.spec, self.digest = game.spec, game.digest
        self.answers, self.guesses = game.lists()

    @staticmethod
    def name_of(game: WordGame) -> str:
        """The plugin's name: one per spec and lists (the same lists under two specs are two)."""
        both = hashlib.sha256(f"{game.spec}\0{game.digest}".encode()).hexdigest()
        return f"moo-words-{both[:20]}"

    def setup(self, worker=None) -> None:
        if (self.spec, self.digest) not in SHIPPED:
            SHIPPED[self.spec, self.digest] = WordGame(self.spec, self.answers, self.guesses)


def shipped(key: SolverKey) -> WordGame | None:
    """The word game of ``key`` as its client shipped it; None for a game its spec rebuilds."""
    if not key.words:
        return None
    game = SHIPPED.get((key.game, key.words))
    if game is None:
        raise GameError(f"{key.game}: the word lists did not reach this worker (its "
                        "WordsPlugin is missing)")
    return game


def heap_allocations() -> None:
    """Undo what Dask's nanny does to malloc: it sets MALLOC_TRIM_THRESHOLD_ (to give memory
    back to the system early), which also freezes glibc's mmap threshold at 128 KB, so that
    every larger array of a node is mapped, faulted in and unmapped again, and every free may
    trim the heap: the kernels ran 1.4-1.6 times slower in such a worker. Arrays up to 64 MB
    come from the heap again, which is kept."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing was changed
        return
    libc.mallopt(-3, 64 << 20)  # M_MMAP_THRESHOLD
    libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD


def _plugin(worker) -> SolverPlugin:
    plugin = worker.plugins.get(SolverPlugin.name)
    if plugin is None:  # a worker that joined before the plugin reached it
        plugin = worker.plugins.setdefault(SolverPlugin.name, SolverPlugin())
    return plugin


def on_worker(key: SolverKey, job_id, fn, *args):
    """A job as a Dask task: ``fn(solver, *args)`` with this worker's solver for ``key``."""
    plugin = _plugin(get_worker())
    if job_id in plugin.cancelled:  # not even its solver built
        return STOPPED
    session = job_id[0]
    return run_job(plugin.solver(key), job_id, fn, args,
                   lambda seconds: plugin.count_stopped(session, seconds), plugin.cancelled)


def stopped_cpu_on_worker(session: str, dask_worker=None) -> tuple[str, float]:
    """Run by ``Client.run``: (this worker process's token, CPU seconds of the session's jobs
    it stopped)."""
    plugin = _plugin(dask_worker)
    return plugin.born, plugin.stopped_cpu.get(session, 0.0)


def cancel_on_worker(job_ids, dask_worker=None) -> None:
    """Run by ``Client.run`` on every worker: stop these jobs if they run, skip them if not."""
    _plugin(dask_worker).cancel(job_ids)

