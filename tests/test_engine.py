"""The engines: the same optima in this process and on a real Dask cluster (a `dask scheduler`
and two `dask worker` processes on 127.0.0.1), a search that survives a lost worker, and workers
that never outlive the command that started them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT, start_cluster, stop_cluster
from oracle import plain_optimum

from optimizer.games import parse_game
from optimizer.games.words import word_game
from optimizer.search.dask_engine import Dask
from optimizer.search.engine import InProcess, open_engine
from optimizer.search.height import HeightSearch
from optimizer.search.jobs import STOPPED
from optimizer.search.objectives import Search
from optimizer.search.request import Request
from optimizer.search.root import RootSearch
from optimizer.search.solver import NodeSolver
from optimizer.tree import replay


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster = start_cluster(tmp_path_factory.mktemp("dask"))
    yield cluster.address
    stop_cluster(cluster)


@pytest.fixture
def split_everything(monkeypatch):
    """Every part of more than two candidates split guess by guess, two guesses a slice, and
    root classes screened a largest part per worker: every parallel path runs on small games."""
    monkeypatch.setattr(RootSearch, "split_size", 3)
    monkeypatch.setattr(RootSearch, "chunk", 2)
    monkeypatch.setattr(HeightSearch, "screen_from", 1)
    monkeypatch.setattr(HeightSearch, "screen_window", 3)


def test_small_games_stay_in_this_process():
    """No cluster is started unless workers are asked for (tests/test_engine_policy.py)."""
    solver = NodeSolver(parse_game("mastermind:4x6"), "any", table_bits=10)
    engine = open_engine(solver)
    assert isinstance(engine, InProcess)
    engine.close()
    assert isinstance(open_engine(solver, workers=1), InProcess)


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("battleship:2x4x2", "any"), ("moo:3,4,5", "any")])
@pytest.mark.cluster
def test_a_cluster_finds_the_optima_of_the_plain_search(spec, mode, cluster, split_everything):
    game = parse_game(spec)
    height, total, limited = plain_optimum(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    with Search(Request(game, guesses=mode, scheduler=cluster), solver=solver) as search:
        assert isinstance(search.engine, Dask)
        found = search.min_height()
        assert found.optimal and found.value == height
        for depth, expected in ((game.n_codes, total), (height, limited)):
            out = search.min_total(depth)
            assert out.optimal and out.value == expected
            assert replay(_tree(game, mode, out.root)).total == expected
        tree = search.build("height,total")
    assert tree.optimal and replay(tree).total == limited


@pytest.mark.cluster
@pytest.mark.parametrize("where", ["threads", "cluster"])
def test_the_table_size_asked_is_that_of_every_worker_s_tables(where, cluster, monkeypatch):
    """--table-bits (Request.table_bits) reaches the tables of the search's solver and of each
    worker's, a thread's or a cluster process's (built from the solver's key), and the search
    finds the plain optimum with them."""
    from optimizer.search import engine

    monkeypatch.setattr(engine, "cores", lambda: 2)  # two threads, on any machine
    monkeypatch.setattr(engine, "parallel_pays", lambda solver: True)
    game = parse_game("mastermind:3x3")
    _, total, _ = plain_optimum(game, "any")
    where = {"scheduler": cluster} if where == "cluster" else {"workers": None}
    with Search(Request(game, objective="total", table_bits=17, **where)) as search:
        assert search.solver.total_table.keys.shape[0] == 1 << 17
        assert search.engine.workers == 2 or where == {"scheduler": cluster}
        jobs = [search.engine.submit(getattr, "total_table") for _ in range(4)]
        for job in jobs:
            assert job.result().keys.shape[0] == 1 << 17
        out = search.min_total(game.n_codes)
        assert out.optimal and out.value == total


@pytest.mark.parametrize("spec,mode", [("battleship:2x4x2", "any"), ("moo:3,4,5", "consistent")])
@pytest.mark.cluster
def test_a_cluster_searches_classes_whole(spec, mode, cluster, monkeypatch):
    """Every root class one job (search/openings.py) on the cluster's workers."""
    from optimizer.search import total

    monkeypatch.setattr(total, "MANY_CLASSES", 1)
    game = parse_game(spec)
    _, total_value, limited = plain_optimum(game, mode)
    with Search(Request(game, guesses=mode, scheduler=cluster),
                solver=NodeSolver(game, mode, table_bits=14)) as search:
        height = search.min_height().value
        for depth, expected in ((game.n_codes, total_value), (height, limited)):
            out = search.min_total(depth)
            assert out.optimal and out.value == expected
            assert replay(_tree(game, mode, out.root)).total == expected


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("battleship:2x4x2", "any"), ("moo:3,4,5", "any")])
@pytest.mark.slow
@pytest.mark.parametrize("whole", [True, False])
def test_a_small_game_in_one_job_or_by_classes_finds_the_plain_optima(spec, mode, whole,
                                                                      monkeypatch):
    """In this process a small game's root is one job (the kernel's own root search) unless a
    checkpoint or the lookahead bound asks for classes; both ways give the plain optimum."""
    from optimizer.search.total import TotalSearch

    monkeypatch.setattr(TotalSearch, "whole_game", lambda self: whole)
    game = parse_game(spec)
    height, total, limited = plain_optimum(game, mode)
    with Search(Request(game, guesses=mode, workers=1),
                solver=NodeSolver(game, mode, table_bits=14)) as search:
        for depth, expected in ((game.n_codes, total), (height, limited)):
            out = search.min_total(depth)
            assert out.optimal and out.value == expected and out.lower_bound == expected
            assert replay(_tree(game, mode, out.root)).total == expected
            assert out.searched == len(TotalSearch(search.solver, search.engine).first_classes(
                depth)) or not whole
        assert search.min_total(height - 1).root is None  # no tree that low


def test_threads_count_the_cpu_of_the_jobs_they_stop():
    """A stopped job's result is never read, so its CPU seconds would not reach the estimate of
    the work left: the engine counts them (RootSearch.spent)."""
    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=14)
    engine = InProcess(solver, threads=1)

    running = threading.Event()

    def spin(solver):  # at least 0.1 s of CPU, then until stopped
        start = time.thread_time()
        running.set()
        while not solver.stop[0] or time.thread_time() - start < 0.1:
            pass
        return 1, None, 0, 0.0

    try:
        job = engine.submit(spin)
        assert running.wait(10)
        engine.cancel([job])
        job.future.result(timeout=10)
        assert engine.stopped_cpu >= 0.1
        search = RootSearch(solver, engine)
        assert search.spent() == engine.stopped_cpu
    finally:
        engine.close()


@pytest.fixture
def slow_start(monkeypatch) -> threading.Event:
    """The moment between a worker thread taking a job and starting it, made 0.3 s long; the
    event is set once a thread has taken a job."""
    taken = threading.Event()
    take = InProcess._thread_solver

    def slow_to_start(self):
        taken.set()
        time.sleep(0.3)
        return take(self)

    monkeypatch.setattr(InProcess, "_thread_solver", slow_to_start)
    return taken


@pytest.mark.parametrize("threads", [1, 2])
def test_a_cancel_before_the_job_starts_is_not_lost(slow_start, threads):
    """A cancel landing after a worker thread took a job but before the job started (no job of
    that id running yet, so no solver stopped) once let it run to its end: it now never starts."""
    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=10)
    engine = InProcess(solver, threads=threads)
    ran = []
    try:
        job = engine.submit(lambda solver: ran.append(True))
        assert slow_start.wait(10)
        engine.cancel([job])
        assert job.future.result(timeout=10) == STOPPED
        assert ran == [] and job.id not in engine._cancelled
        again = engine.submit(lambda solver: "ran")  # the next job is not stopped
        assert again.future.result(timeout=10) == "ran"
    finally:
        engine.close()


def test_closing_stops_a_job_taken_and_not_started(slow_start):
    """InProcess.close stops jobs a thread has taken but not started as well: it waited for
    such a job to run to its end."""
    game = parse_game("mastermind:3x3")
    engine = InProcess(NodeSolver(game, "any", table_bits=10), threads=2)
    ran = []
    job = engine.submit(lambda solver: (ran.append(True), time.sleep(3)))
    assert slow_start.wait(10)
    start = time.monotonic()
    engine.close()
    assert time.monotonic() - start < 2 and ran == []
    assert job.future.result(timeout=1) == STOPPED


def test_cancelled_jobs_keep_the_newest_ids_and_whole_sessions():
    """What a worker remembers of cancels: single ids up to a bound, oldest forgotten first, and
    whole sessions (SessionJobs), so that a job of a session a command left never starts."""
    from optimizer.search.handles import CancelledJobs, SessionJobs

    cancelled = CancelledJobs(most=3, most_sets=2)
    cancelled.add([("a", 1), ("a", 2)])
    cancelled.add({("a", 3), ("a", 4)})
    assert ("a", 1) not in cancelled and ("a", 4) in cancelled and ("a", 2) in cancelled
    cancelled.discard(("a", 2))
    assert ("a", 2) not in cancelled
    for session in ("s1", "s2", "s3"):
        cancelled.add(SessionJobs(session))
    assert ("s1", 9) not in cancelled and ("s2", 9) in cancelled and ("s3", 0) in cancelled
    assert ("b", 1) not in cancelled


def test_a_job_cancelled_on_a_dask_worker_before_it_starts_never_runs():
    """The same on a Dask worker: the ids cancelled are checked as the job starts, under the
    solver's lock, so a cancel landing between the worker's first check and the start holds."""
    from optimizer.search.dask_worker import SolverPlugin
    from optimizer.search.handles import SessionJobs
    from optimizer.search.jobs import run_job

    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=10)
    plugin = SolverPlugin()
    plugin.solvers = {"one": solver}
    plugin.cancel([("s", 1)])
    plugin.cancel(SessionJobs("gone"))  # a command that left the cluster
    ran = []
    assert run_job(solver, ("s", 1), lambda s: ran.append(1), (), None,
                   plugin.cancelled) == STOPPED
    assert run_job(solver, ("gone", 5), lambda s: ran.append(1), (), None,
                   plugin.cancelled) == STOPPED
    assert run_job(solver, ("s", 2), lambda s: "ran", (), None, plugin.cancelled) == "ran"
    assert ran == [] and solver.stop[0] == 0


def test_a_stopped_job_that_raises_is_counted_too():
    """A job stopped while it ran counts its CPU seconds for the estimate even if it then
    raises (a stopped search may end in an error its caller never reads)."""
    from optimizer.search.jobs import run_job

    solver = NodeSolver(parse_game("mastermind:3x3"), "any", table_bits=10)
    counted = []

    def stopped_then_fails(solver):
        solver.cancel({"job"})
        start = time.thread_time()
        while time.thread_time() - start < 0.05:
            pass
        raise RuntimeError("after the stop")

    with pytest.raises(RuntimeError):
        run_job(solver, "job", stopped_then_fails, (), counted.append)
    assert len(counted) == 1 and counted[0] >= 0.05 and solver.stop[0] == 0


@pytest.mark.cluster
def test_dask_workers_count_the_cpu_of_the_jobs_they_stop(cluster):
    """The same on a Dask cluster: the workers count what a session's stopped jobs spent, and
    the engine sums their counts."""
    from optimizer.search.jobs import total_part

    game = parse_game("bulls-cows:4x10")  # its whole least-total search: seconds of one worker
    solver = NodeSolver(game, "any")
    engine = Dask(solver, address=cluster)
    try:
        engine.ready(("total",))
        assert engine.stopped_cpu == 0.0
        every = np.arange(game.n_secrets, dtype=np.int32)
        job = engine.submit(total_part, every, game.n_codes, 10**9, [], "total")
        time.sleep(1.5)
        engine.cancel([job])
        end = time.monotonic() + 20
        while engine.stopped_cpu < 0.5 and time.monotonic() < end:
            time.sleep(0.1)
        assert 0.5 <= engine.stopped_cpu < 60
        assert RootSearch(solver, engine).spent() == engine.stopped_cpu
    finally:
        engine.close()
    assert engine.stopped_cpu >= 0.5  # the last count, once closed


def test_the_dask_engine_keeps_the_counts_of_lost_and_replaced_workers():
    """The stopped-job counts as the engine sums them: a worker that does not answer keeps its
    last count, a new process at an old address adds its own to the old one's, and the workers
    are read again at once after a cancel, else at most every STOPPED_EVERY seconds."""
    from optimizer.search import dask_engine

    class Client:
        status = "running"
        answers: dict = {}

        def run(self, fn, session, on_error):
            assert fn.__name__ == "stopped_cpu_on_worker" and on_error == "ignore"
            return dict(self.answers)

    engine = Dask.__new__(Dask)  # no cluster: only the bookkeeping
    engine._closed, engine._client, engine._session = False, Client(), "s"
    engine._stopped, engine._stopped_gone = {}, 0.0
    engine._stopped_read = -dask_engine.STOPPED_EVERY
    Client.answers = {"a": ("one", 2.0), "b": ("two", 1.0)}
    assert engine.stopped_cpu == 3.0
    Client.answers = {"a": ("one", 5.0)}
    assert engine.stopped_cpu == 3.0  # read less than STOPPED_EVERY ago: the last counts
    engine._stopped_read = -dask_engine.STOPPED_EVERY  # as cancel() leaves it
    assert engine.stopped_cpu == 6.0  # b did not answer: its last count holds
    Client.answers = {"a": ("three", 7.0), "b": ("two", 1.5)}  # a new process at a
    engine._stopped_read = -dask_engine.STOPPED_EVERY
    assert engine.stopped_cpu == 5.0 + 7.0 + 1.5
    Client.status = "closing"
    engine._stopped_read = -dask_engine.STOPPED_EVERY
    assert engine.stopped_cpu == 13.5  # not asked


def test_a_whole_game_job_stopped_keeps_the_incumbent_and_a_true_bound():
    from optimizer.search.strategies import total_incumbent
    from optimizer.search.total import TotalSearch

    game = parse_game("mastermind:4x6")
    upper, incumbent = total_incumbent(game, "any", game.n_codes)
    with Search(Request(game, workers=1, time_limit=0.05),
                solver=NodeSolver(game, "any", table_bits=16)) as search:
        search.ready(("height", "total"))
        assert TotalSearch(search.solver, search.engine).whole_game()
        out = search.min_total(game.n_codes, upper, incumbent)
    assert out.stopped and not out.optimal and out.root is incumbent
    assert out.lower_bound <= 5625 < out.value == upper


@pytest.mark.slow
def test_the_screened_height_search_takes_classes_in_order(cluster, split_everything):
    """Results are taken in the classes' order: the tree found does not depend on timing."""
    game = parse_game("battleship:2x4x2")
    with Search(Request(game, scheduler=cluster),
                solver=NodeSolver(game, "any", table_bits=14)) as far:
        screened = far.min_height()
    with Search(Request(game, workers=1),
                solver=NodeSolver(game, "any", table_bits=14)) as near:
        alone = near.min_height()
    assert screened.value == alone.value and screened.root.guess == alone.root.guess


@pytest.mark.cluster
def test_a_lost_worker_does_not_change_the_answer(tmp_path):
    """One of two workers is killed while the search runs: its jobs go to the other one and the
    least total is still the right one."""
    cluster = start_cluster(tmp_path)
    try:
        game = parse_game("moo:10,11,12")
        with Search(Request(game, scheduler=cluster.address)) as search:
            search.ready()
            timer = threading.Timer(1.0, cluster.procs["w1"].kill)
            timer.start()
            out = search.min_total(game.n_codes)
            timer.join()
        assert cluster.procs["w1"].poll() is not None  # killed during the search
        assert out.optimal and out.value == 5283
    finally:
        stop_cluster(cluster)


def _workers_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (the worker processes a local run started)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                children.append(int(entry.name))
    return children


def _cmdline(pid: int) -> bytes:
    """A process's command line; empty once it has ended (a short-lived child of the command
    may end between being listed and being read)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _local_run(tmp_path, *extra):
    """`moo build bulls-cows --objective total` on a local cluster of two workers, once both
    workers run; returns (process, the workers' pids)."""
    out = tmp_path / "tree.json"
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "build", "bulls-cows",
                             "--objective", "total", "--workers", "2", "--quiet", "-o", str(out),
                             *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    end = time.monotonic() + 120
    workers = []
    while time.monotonic() < end and proc.poll() is None:
        workers = [p for p in _workers_of(proc.pid) if b"spawn_main" in _cmdline(p)]
        if len(workers) == 2:
            break
        time.sleep(0.2)
    assert len(workers) == 2, proc.stderr.read().decode()[-2000:] if proc.poll() else "slow"
    time.sleep(3)  # let the search begin on them
    return proc, workers


@pytest.mark.cluster
@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_killing_the_command_leaves_no_worker(tmp_path):
    proc, workers = _local_run(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    end = time.monotonic() + 5
    while time.monotonic() < end and any(_alive(p) for p in workers):
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers)


@pytest.mark.cluster
@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_run_with_the_best_tree(tmp_path, sig):
    """SIGHUP (a closed terminal), SIGTERM (kill) and SIGINT (Ctrl-C, sent to the whole process
    group as a terminal does) all end the run the same way: the best tree written, marked not
    optimal, exit status 3, and no worker left."""
    proc, workers = _local_run(tmp_path)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err.decode()[-2000:]
    assert b"stopped early" in out and b"Traceback" not in err
    from optimizer.formats.tree_file import read_tree

    tree = read_tree(tmp_path / "tree.json")
    assert tree.optimal is False and tree.meta["stopped"] is True
    assert not replay(tree).defects and tree.lower_bound <= replay(tree).total
    time.sleep(1)
    assert not any(_alive(p) for p in workers)


def _tree(game, mode, root):
    from optimizer.tree import Tree

    return Tree(game=game, root=root, objective="total", guesses=mode)


def test_a_word_game_ships_to_workers_whole(tmp_path):
    """What a Dask worker gets of a word game (the plugin, pickled as Dask sends it) rebuilds the
    same game under the same spec, whatever its files became; a key whose lists never came is
    a clear error. (The cluster test below runs it on real workers.)"""
    import pickle

    from optimizer.games import GameError
    from optimizer.search.dask_worker import SHIPPED, WordsPlugin, shipped
    from optimizer.search.solver import SolverKey

    (tmp_path / "a.txt").write_text("bat\ncat\nhat\n")
    game = parse_game(f"words:{tmp_path / 'a.txt'}")
    (tmp_path / "a.txt").unlink()
    other = word_game(["bat", "cat", "hat"])  # the same lists under another spec
    assert other.digest == game.digest and other.spec != game.spec
    assert WordsPlugin.name_of(other) != WordsPlugin.name_of(game)
    key = SolverKey(game.spec, words=game.digest)
    SHIPPED.pop((game.spec, game.digest), None)
    with pytest.raises(GameError, match="did not reach this worker"):
        shipped(key)
    pickle.loads(pickle.dumps(WordsPlugin(other))).setup()
    pickle.loads(pickle.dumps(WordsPlugin(game))).setup()
    got = shipped(key)
    assert got.spec == game.spec and got.words == game.words and got.digest == game.digest
    assert key.build(got).game is got
    assert shipped(SolverKey("mastermind:3x3")) is None  # a spec rebuilds it


@pytest.mark.cluster
@pytest.mark.parametrize("mode,source", [("any", "files"), ("hard", "files"), ("any", "lists")])
def test_a_cluster_solves_a_word_game(mode, source, cluster, split_everything, tmp_path):
    """The workers get the game's lists from the command, not from its spec: list files gone
    before the search (as on another machine) or lists given in Python (``word_game``, no
    files); guesses that are no answer and hard mode included."""
    answers = ["bat", "cat", "hat", "mat", "sat", "tab", "act", "tam"]
    others = ["chm", "bts", "mhc"]
    if source == "lists":
        game = word_game(answers, answers + others)
    else:
        (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
        (tmp_path / "g.txt").write_text("\n".join(others) + "\n")
        game = parse_game(f"words:{tmp_path / 'a.txt'},{tmp_path / 'g.txt'}")
        (tmp_path / "a.txt").unlink()
        (tmp_path / "g.txt").unlink()
    height, total, limited = plain_optimum(game, mode)
    with Search(Request(game, guesses=mode, scheduler=cluster)) as search:
        assert isinstance(search.engine, Dask)
        assert search.min_height().value == height
        out = search.min_total(game.n_secrets)
        assert out.optimal and out.value == total
        tree = search.build("height,total")
    assert tree.optimal and replay(tree).total == limited


def test_a_command_leaving_a_shared_cluster_stops_only_its_own_jobs():
    """Dask.close on a cluster it did not start cancels its session's jobs (SessionJobs, sent
    to every worker), not those another command runs there."""
    import pickle

    from optimizer.search.dask_worker import SolverPlugin
    from optimizer.search.handles import SessionJobs

    game = parse_game("mastermind:3x3")
    mine, theirs = (NodeSolver(game, "any", table_bits=10) for _ in range(2))
    plugin = SolverPlugin()
    plugin.solvers = {"mine": mine, "theirs": theirs}
    mine.start(("a1b2c3d4", 7))
    theirs.start(("e5f6a7b8", 7))
    plugin.cancel(pickle.loads(pickle.dumps(SessionJobs("a1b2c3d4"))))
    assert mine.stop[0] == 1 and theirs.stop[0] == 0
