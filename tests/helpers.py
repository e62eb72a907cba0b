"""Helpers that several test modules share (a module of its own: test modules do not import
each other)."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).with_name("dask")

# Markup and script for every free text field of a tree file: none of it may run or show as markup.
HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">&amp;'


def script(name: str):
    """scripts/<name>.py as a module (scripts are not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hostile_tree(source: Path, folder: Path) -> Path:
    """The same strategy, with markup and script in every free text field and in its name."""
    data = orjson.loads(source.read_bytes())
    data["objective"] = HOSTILE
    data["meta"] = {"note": HOSTILE}
    data["optimal"] = False
    data["lower_bound"] = 1
    path = folder / '<img src=x onerror="alert(1)">.json'
    path.write_bytes(orjson.dumps(data))
    return path


def a_lie(session) -> str | None:
    """A feedback that some code gives to the current guess but no candidate does."""
    game = session.game
    guess = game.parse_code(session.guess)
    possible = {game.feedback(guess, c) for c in range(game.n_codes)}
    fitting = {game.feedback(guess, game.parse_code(c)) for c in session.candidates}
    return game.format_feedback(min(possible - fitting)) if possible - fitting else None


class HalfWriter:
    """A file handle that writes half of what it is given, then fails like a full disk."""

    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def write(self, data):
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")


# --- a real Dask cluster: a `dask scheduler` and `dask worker` processes on 127.0.0.1 -----------
def start_cluster(folder: Path, workers: int = 2):
    """A scheduler on a free port of 127.0.0.1 and ``workers`` single-threaded workers, each
    its own process (no nanny, so that killing one loses it for good). The workers import this
    checkout's code (``ROOT`` first on their path), whatever the environment has installed.
    Returns (the scheduler's address, [scheduler, worker, ...] processes)."""
    info = folder / "scheduler.json"
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(info)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        address = scheduler_address(info, time.monotonic() + 60)
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        for _ in range(workers):
            procs.append(subprocess.Popen(
                [str(DASK), "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
                cwd=ROOT, env={**os.environ, "PYTHONPATH": path},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
    except BaseException:
        stop_processes(procs)
        raise
    return address, procs


def scheduler_address(info: Path, end: float) -> str:
    """The address in the scheduler's file, once the file is whole: Dask writes it in place, so
    it can exist and still be empty or cut short for a moment."""
    while True:
        try:
            return json.loads(info.read_text())["address"]
        except (OSError, ValueError, KeyError):
            if time.monotonic() >= end:
                raise
            time.sleep(0.1)


def stop_processes(procs) -> None:
    """Stop the workers, then their scheduler (the first process), as the demo script does."""
    script("cluster_demo").stop_in_turn([procs[1:], procs[:1]], timeout=20)
