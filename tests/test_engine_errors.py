"""The engine's failures are bad input, said in one line with exit status 2, within seconds: a
scheduler address Dask cannot take, a closed port, a server that is not a Dask scheduler, more
workers than the machine holds, a number in other digits than 0-9. Its start-up counts in the
time limit, and the launcher its workers start with lives in a private folder of its own."""

from __future__ import annotations

import hashlib
import json
import multiprocessing.spawn
import os
import socket
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.games import parse_game
from optimizer.search import dask_engine, engine
from optimizer.search.dask_engine import Dask
from optimizer.search.engine import engine_plan, worker_limit
from optimizer.search.handles import EngineError
from optimizer.search.solver import NodeSolver


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``moo ARGV``."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def run_within(seconds: float, capsys, *argv: str) -> tuple[int, str, str, float]:
    """``run``, failed if it takes longer than ``seconds`` (it would otherwise hang the suite:
    the command runs in a thread left behind)."""
    box: dict = {}

    def go():
        try:
            box["status"] = main(list(argv))
        except BaseException as exc:  # noqa: BLE001 - shown by the assertion below
            box["error"] = exc

    start = time.monotonic()
    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    took = time.monotonic() - start
    assert not thread.is_alive(), f"moo {' '.join(argv)} still runs after {seconds} s"
    assert "error" not in box, repr(box.get("error"))
    out = capsys.readouterr()
    return box["status"], out.out, out.err, took


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("moo: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tree and a checkpoint, for the commands that read one."""
    folder = tmp_path_factory.mktemp("engine-files")
    tree, log = folder / "t.json", folder / "cp.json"
    assert main(["build", "mastermind:2x3", "--objective", "total", "--quiet", "--workers", "1",
                 "-o", str(tree)]) == 0
    assert main(["prove", "mastermind:3x3", "--height", "4", "--quiet", "--workers", "1",
                 "--checkpoint", str(log)]) == 0  # two refuted classes: claims to check
    return {"tree": str(tree), "checkpoint": str(log)}


def commands(files, out: str) -> dict[str, list[str]]:
    """Every command that takes the search options (verify --recheck takes MOO_SCHEDULER)."""
    return {
        "build": ["build", "mastermind:2x3", "--objective", "total", "--quiet", "-o", out],
        "prove": ["prove", "mastermind:2x3", "--height", "3", "--quiet"],
        "prove-deepest": ["prove", "mastermind:2x3", "--height", "3", "--deepest", "2",
                          "--quiet"],
        "checkpoint-verify": ["checkpoint", "verify", files["checkpoint"], "--quiet"],
        "verify-recheck": ["verify", files["tree"], "--recheck"],
    }


BAD_ADDRESSES = ["foo", "tcp://", "tcp://127.0.0.1", "tcp://:8786", " ", "\t", "",
                 "tcp://127.0.0.1:0", "tcp://127.0.0.1:65536", "tcp://127.0.0.1:８７８６",
                 "http://127.0.0.1:8786", "tcp://a b:1", "tcp://host:1/path", "tcp://[::1:1"]


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_a_bad_scheduler_address_is_bad_input(address, capsys, tmp_path, monkeypatch, files):
    """Every command that searches refuses, before any work, in one line with status 2 (status
    1 would tell a script that prove's claim is false); the output is not written."""
    out = str(tmp_path / "t.json")
    cases = []
    for name, argv in commands(files, out).items():
        if name != "verify-recheck":
            cases.append((name, [*argv, "--scheduler", address], None))
        if address:  # an empty MOO_SCHEDULER is no MOO_SCHEDULER
            cases.append((name, argv, address))
    for name, argv, environment in cases:
        with monkeypatch.context() as patch:
            if environment is None:
                patch.delenv(engine.SCHEDULER_ENV, raising=False)
            else:
                patch.setenv(engine.SCHEDULER_ENV, environment)
            start = time.monotonic()
            status, _, err = run(capsys, *argv)
        assert status == 2, (name, environment, err)
        line = one_error_line(err)
        assert "Dask scheduler" in line or "port" in line or "scheme" in line, line
        assert time.monotonic() - start < 5, (name, environment)
        assert not os.path.exists(out)


@pytest.mark.parametrize("address,normal", [
    ("tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("localhost:1", "tcp://localhost:1"),
    ("TLS://sched.example.org:443", "tls://sched.example.org:443"),
    ("tcp://[::1]:8786", "tcp://[::1]:8786"), ("tcp://10.0.0.1:08786", "tcp://10.0.0.1:8786"),
])
def test_good_scheduler_addresses_are_taken(address, normal):
    assert engine.scheduler_address(address) == normal


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Server:
    """A TCP server on 127.0.0.1 that is no Dask scheduler: it accepts and says nothing, or
    answers every connection as a web server would."""

    def __init__(self, answer: bytes | None = None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.answer, self.conns = answer, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.answer is not None:
                try:
                    conn.recv(4096)
                    conn.sendall(self.answer)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


def test_workers_with_a_scheduler_are_refused_and_win_over_the_environment(capsys,
                                                                            monkeypatch):
    """--workers with --scheduler was taken and ignored; with MOO_SCHEDULER set, the command
    line's --workers lost to it. Now the pair is refused, and --workers wins over the
    environment (a closed port: a run on it would say "connection refused")."""
    monkeypatch.delenv(engine.SCHEDULER_ENV, raising=False)
    status, _, err = run(capsys, "prove", "mastermind:2x3", "--height", "3", "--workers", "1",
                         "--scheduler", "tcp://127.0.0.1:1")
    assert status == 2 and "--workers and --scheduler" in one_error_line(err)
    monkeypatch.setenv(engine.SCHEDULER_ENV, f"tcp://127.0.0.1:{_closed_port()}")
    status, out, err = run(capsys, "prove", "mastermind:2x3", "--height", "3", "--workers", "1",
                           "--quiet")
    assert status == 0 and "PROVEN" in out


def test_a_closed_port_is_refused_at_once(capsys, monkeypatch):
    monkeypatch.setenv(engine.SCHEDULER_ENV, f"tcp://127.0.0.1:{_closed_port()}")
    status, _, err, took = run_within(30, capsys, "prove", "mastermind:2x3", "--height", "3")
    assert status == 2 and "connection refused" in one_error_line(err)
    assert took < 8  # Dask alone retried for 20 s


@pytest.mark.parametrize("answer", [None, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
                         ids=["silent", "web"])
@pytest.mark.cluster
def test_a_server_that_is_no_scheduler_is_given_up_on(answer, capsys, monkeypatch, tmp_path):
    """Dask's handshake waits forever on a server that accepts and says nothing: the engine
    gives up after CONNECT_SECONDS (shortened here), with status 2 and one line."""
    monkeypatch.setattr(dask_engine, "CONNECT_SECONDS", 2.0)
    server = _Server(answer)
    try:
        out = str(tmp_path / "t.json")
        status, _, err, took = run_within(
            20, capsys, "build", "mastermind:2x3", "--objective", "height", "--quiet",
            "--scheduler", server.address, "-o", out)
    finally:
        server.close()
    assert status == 2, err
    line = one_error_line(err)
    assert server.address in line
    assert took < 12 and not os.path.exists(out)


@pytest.mark.cluster
def test_the_connect_timeout_never_passes_the_time_limit(capsys, monkeypatch, tmp_path):
    """With a time limit shorter than the connect timeout, the run stops at the limit as any
    stopped run does: status 3 and the best tree known, marked stopped."""
    server = _Server()
    try:
        out = tmp_path / "t.json"
        status, stdout, err, took = run_within(
            20, capsys, "build", "mastermind:3x3", "--objective", "height", "--quiet",
            "--scheduler", server.address, "--time-limit", "1.5", "-o", str(out))
    finally:
        server.close()
    assert status == 3, err
    assert "stopped early" in stdout and took < 1.5 + 5
    assert err.count(f"no Dask scheduler answered at {server.address} before the time") == 1
    tree = json.loads(out.read_text())
    assert tree["meta"]["stopped"] is True and tree["optimal"] is False


@pytest.mark.cluster
def test_start_up_counts_in_the_time_limit(capsys, tmp_path):
    """A local cluster still starting when the limit passes: the run stops (status 3) and
    writes what it knows; closing waits for one core's worth of starting workers at most, not
    for all of them (24 workers on 2 cores once took 55 s past a 20 s limit)."""
    workers = min(8, worker_limit(parse_game("mastermind:3x3"))[0])
    out = tmp_path / "t.json"
    status, stdout, err, took = run_within(
        60, capsys, "build", "mastermind:3x3", "--objective", "total", "--quiet", "--workers",
        str(workers), "--time-limit", "0.5", "-o", str(out))
    assert status == 3, err
    tree = json.loads(out.read_text())
    assert tree["meta"]["stopped"] is True and tree["optimal"] is False
    assert took < 0.5 + 12, took


def test_more_workers_than_the_machine_holds_are_refused(capsys, tmp_path):
    out = str(tmp_path / "t.json")
    status, _, err, took = run_within(20, capsys, "build", "mastermind:2x3", "--objective",
                                      "total", "--workers", "100000", "-o", out)
    assert status == 2 and took < 10
    line = one_error_line(err)
    limit = worker_limit(parse_game("mastermind:2x3"))[0]
    assert f"at most {limit} worker processes" in line and "per core" in line
    assert not os.path.exists(out)


def test_the_worker_limit_counts_the_memory_of_each_worker(monkeypatch):
    """A game whose matrices and tables fill a worker holds fewer of them: with 2 GB free,
    Bulls and Cows 5 of 10 (30,240 codes: 2.7 GB of matrices a worker) gets one process."""
    monkeypatch.delenv(engine.SCHEDULER_ENV, raising=False)
    monkeypatch.setattr(engine, "cores", lambda: 64)
    monkeypatch.setattr(engine, "_memory_available", lambda: 2 << 30)
    small, big = parse_game("mastermind:2x3"), parse_game("bulls-cows:5x10")
    assert worker_limit(small)[0] > 4 and worker_limit(big)[0] == 1
    with pytest.raises(EngineError, match="2048 MB of memory available"):
        engine_plan(big, 2)
    assert engine_plan(big, None) == (1, None)  # the default: as many as the memory holds


@pytest.mark.parametrize("argv,says", [
    (["--objective", "total", "--table-bits", "15"], "16 to 28"),
    (["--objective", "total", "--table-bits", "29"], "16 to 28"),
    (["--strategy", "first-consistent", "--table-bits", "18"], "apply to exact objectives"),
])
def test_table_bits_out_of_range_or_without_a_search_are_refused(argv, says, capsys, tmp_path):
    status, _, err = run(capsys, "build", "mastermind:2x3", *argv, "-o", str(tmp_path / "t"))
    assert status == 2 and says in one_error_line(err)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", ["prove", "deepest", "verify"])
def test_prove_and_checkpoint_verify_take_the_table_size(command, capsys, tmp_path, monkeypatch):
    """--table-bits reaches the solver of `moo prove` and `moo checkpoint verify` as it does
    `moo build`'s (a long height proof or re-proof gains as a long total does), in range only."""
    from optimizer.search import objectives

    ck = tmp_path / "ck.json"
    game = "battleship:2x4x2"  # least height 5: first guesses refuted at 4 are claims to verify
    assert run(capsys, "prove", game, "--height", "5", "--checkpoint", str(ck), "--quiet")[0] == 0
    argv = {"prove": ["prove", game, "--height", "5", "--quiet"],
            "deepest": ["prove", game, "--height", "5", "--deepest", "3", "--quiet"],
            "verify": ["checkpoint", "verify", str(ck), "--quiet"]}[command]
    sizes = []

    class Spy(NodeSolver):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            sizes.append(self.key.table_bits)

    monkeypatch.setattr(objectives, "NodeSolver", Spy)
    status, out, err = run(capsys, *argv, "--table-bits", "17")
    assert status == 0 and sizes == [17], (out, err)
    sizes.clear()
    status, _, err = run(capsys, *argv, "--table-bits", "29")
    assert status == 2 and "16 to 28" in err and not sizes


def test_tables_larger_than_the_memory_are_refused_before_any_work(monkeypatch):
    """--table-bits 26 on a machine with 2 GB free: two tables of 2^26 slots (6 GB) do not fit
    in one worker; 2^22 slots do, and shrink how many workers the machine holds."""
    from optimizer.search.request import Request

    monkeypatch.delenv(engine.SCHEDULER_ENV, raising=False)
    monkeypatch.setattr(engine, "cores", lambda: 64)
    monkeypatch.setattr(engine, "_memory_available", lambda: 2 << 30)
    game = parse_game("mastermind:2x3")
    with pytest.raises(EngineError, match="--table-bits 26: .* needs about 6344 MB, and 2048 MB"):
        Request(game, objective="total", table_bits=26).check_engine()
    Request(game, objective="total", table_bits=22).check_engine()
    assert worker_limit(game, 22)[0] == 3 < worker_limit(game)[0]  # 2048 MB / 584 MB a worker


@pytest.mark.parametrize("option", ["--workers", "--lookahead", "--deepest", "--height"])
@pytest.mark.parametrize("text", ["٣", "３", "1_0", " 3", "3 ", "+3", "-1", "3\n", "", "x",
                                  "9" * 5000])
def test_whole_numbers_are_ascii_digits(option, text, capsys, tmp_path):
    if option == "--lookahead":
        argv = ["build", "mastermind:2x3", "--objective", "total", "-o", str(tmp_path / "t")]
    else:
        argv = ["prove", "mastermind:2x3"] + (["--height", "3"] if option != "--height" else [])
    status, _, err = run(capsys, *argv, option, text)
    line = one_error_line(err)  # argparse's refusals too: not its usage first
    assert status == 2 and f"argument {option}:" in line and line.endswith(f"(see `moo {argv[0]} "
                                                                           "--help`)")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("argv", [["build", "mastermind:2x3", "-o", "t.json"],
                                  ["checkpoint", "verify", "cp.json"],
                                  ["prove", "mastermind:2x3", "--height", "3"]])
def test_an_unknown_option_names_the_help_of_the_command_given(argv, capsys):
    """argparse leaves a command's unknown options to the top parser, which would point to the
    list of commands."""
    status, _, err = run(capsys, *argv, "--bogus", "1")
    command = " ".join(a for a in argv[:2] if a in ("build", "prove", "checkpoint", "verify"))
    assert status == 2 and one_error_line(err) == (
        f"moo: error: unrecognized arguments: --bogus 1 (see `moo {command} --help`)")


def test_whole_numbers_in_digits_are_taken():
    from optimizer.cli.app import _parser

    args = _parser().parse_args(["prove", "moo", "--height", "07", "--deepest", "12",
                                 "--workers", "3"])
    assert (args.height, args.deepest, args.workers) == (7, 12, 3)


# --- the workers' launcher ---------------------------------------------------------------------
def _old_launcher(folder: Path) -> Path:
    """Where moo once kept the launcher: a predictable name in the shared temporary folder."""
    tag = hashlib.sha1(sys.executable.encode()).hexdigest()[:12]
    return folder / f"moo-worker-python-{os.getuid()}-{tag}"


@pytest.mark.cluster
@pytest.mark.skipif(os.name != "posix", reason="a POSIX launcher")
@pytest.mark.parametrize("planted", ["directory", "symlink"])
def test_the_launcher_is_private_and_removed(planted, tmp_path, monkeypatch):
    """Another user's file at the old predictable path is never run and blocks nothing (a
    directory there stopped every Dask run; a symlink to a script with the expected text was
    run, and could be swapped after the check); the launcher is in a folder of our own, mode
    0700, while the cluster lives, and gone after."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    old = _old_launcher(shared)
    if planted == "directory":
        old.mkdir()
    else:
        theirs = tmp_path / "theirs"
        theirs.write_text(f"#!/bin/sh\ntrap '' INT HUP\nexec {sys.executable} \"$@\"\n")
        theirs.chmod(0o755)
        old.symlink_to(theirs)
    before = set(shared.iterdir())
    own = Dask(NodeSolver(parse_game("mastermind:2x3"), "any", table_bits=10), workers=1)
    try:
        own.ready(("height",))  # the worker started and built its solver
        launcher = Path(os.fsdecode(multiprocessing.spawn.get_executable()))
        folder = launcher.parent
        assert launcher != old and folder.parent == shared and folder not in before
        info = os.lstat(folder)
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
        assert stat.S_IMODE(info.st_mode) == 0o700
        script = os.lstat(launcher)
        assert stat.S_ISREG(script.st_mode) and script.st_uid == os.getuid()
    finally:
        own.close()
    assert not folder.exists()
    assert os.fsdecode(multiprocessing.spawn.get_executable()) == sys.executable
    # what was planted is untouched, and no launcher is left in the shared folder
    assert old.is_dir() if planted == "directory" else os.readlink(old) == str(theirs)
    assert not [p for p in set(shared.iterdir()) - before if p.name.startswith("moo")]


def test_a_job_the_engine_lost_stops_the_search_as_a_time_limit_does(capsys):
    """A Dask scheduler gone mid-run cancels every future: reading one was a traceback (exit 1,
    no tree written). It is now EngineLost, a TimeoutError, said once on standard error."""
    from concurrent.futures import Future

    from optimizer.search import handles

    future = Future()
    future.cancel()
    before = handles._LOST.copy()
    handles._LOST.clear()
    try:
        with pytest.raises(TimeoutError):
            handles.Job(1, future).result()
        with pytest.raises(handles.EngineLost):
            handles.Job(2, future).result()
    finally:
        handles._LOST[:] = before
    err = capsys.readouterr().err
    assert err.count("moo: warning: the engine lost a job") == 1 and "run the command again" in err


@pytest.mark.cluster
def test_a_scheduler_without_workers_is_said(tmp_path, capsys):
    """The bar sat at 0 parts with no word: the jobs wait for a worker to join."""
    from helpers import script, stop_cluster

    cluster = script("cluster_demo").Cluster(tmp_path)  # a scheduler, no worker yet
    try:
        status, _, err, _ = run_within(
            30, capsys, "build", "mastermind:3x4", "--objective", "total", "--quiet",
            "--scheduler", cluster.address, "--time-limit", "3", "-o", str(tmp_path / "t.json"))
    finally:
        stop_cluster(cluster)
    assert status == 3
    assert f"the Dask scheduler at {cluster.address} has no worker; the jobs wait" in err


@pytest.mark.cluster
@pytest.mark.parametrize("during", ["warm-up", "search"])
def test_a_scheduler_that_loses_its_last_worker_mid_run_is_said(tmp_path, capsys, monkeypatch,
                                                                 during):
    """The last worker killed while a job runs on it: the jobs wait for another, and the bar
    stood still with no word. Now said, and so is the next worker to join, which takes the lost
    job: the run ends as one that lost nothing (a warm-up job was bound to the worker it was
    for, and the run waited for it until its time limit)."""
    from distributed import Client
    from helpers import start_cluster, stop_cluster

    warmed, ready = threading.Event(), Dask.ready

    def ready_then_say(self, *args):
        ready(self, *args)
        warmed.set()

    monkeypatch.setattr(Dask, "ready", ready_then_say)
    cluster = start_cluster(tmp_path, workers=1)
    box: dict = {}
    try:
        with Client(cluster.address, timeout="60s") as client:
            thread = threading.Thread(target=lambda: box.update(run=run_within(
                300, capsys, "build", "bulls-cows:4x10", "--objective", "total", "--quiet",
                "--scheduler", cluster.address, "-o", str(tmp_path / "t.json"))))
            thread.start()
            if during == "search":
                assert warmed.wait(120), "the worker was not warmed up"
            end = time.monotonic() + 60
            while not any(client.processing().values()):  # a job on it
                assert time.monotonic() < end and thread.is_alive(), "no job reached the worker"
                time.sleep(0.01)
            cluster.kill("w1")
            assert during == "search" or not warmed.is_set()
            cluster.add_workers(["w2"])
            thread.join()
    finally:
        stop_cluster(cluster)
    status, _, err, _ = box["run"]
    lost = f"moo: warning: the Dask scheduler at {cluster.address} has lost its last worker; " \
        "the jobs wait until one joins"
    back = f"moo: the Dask scheduler at {cluster.address} has a worker now; the jobs go on"
    assert status == 0 and lost in err and back in err and err.index(lost) < err.index(back)
    assert "has no worker" not in err
    tree = json.loads((tmp_path / "t.json").read_text())
    assert tree["optimal"] and tree["stats"]["total"] == 26274
