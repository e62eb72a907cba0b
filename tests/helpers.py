"""Helpers that several test modules share (a module of its own: test modules do not import
each other)."""

from __future__ import annotations

import errno
import importlib.util
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent

# Markup and script for every free text field of a tree file: none of it may run or show as markup.
HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">&amp;'


def script(name: str):
    """scripts/<name>.py as a module (scripts are not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hostile_tree(source: Path, folder: Path) -> Path:
    """The same strategy, with markup and script in every free text field and in its name: the
    page shows the checkpoint file its bound rests on by name (what follows the last '/')."""
    data = orjson.loads(source.read_bytes())
    data["meta"] = {"note": HOSTILE, "checkpoint": HOSTILE, "checkpoint_facts": 1}
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
    """The demo script's cluster (scripts/cluster_demo.Cluster): a scheduler and ``workers``
    single-threaded workers without a nanny (killing one loses it for good), named w1, w2, ...,
    their logs in ``folder``; they import this checkout's code. Stop it with ``stop_cluster``."""
    cluster = script("cluster_demo").Cluster(folder)
    try:
        cluster.add_workers([f"w{i}" for i in range(1, workers + 1)])
    except BaseException:
        stop_cluster(cluster)
        raise
    return cluster


def stop_cluster(cluster) -> None:
    """The workers, then their scheduler; a worker ends its running job first (up to 20 s)."""
    cluster.close(timeout=20)
