"""Cold start: `make run` installs only what running needs, and a search on an empty numba cache
compiles each kernel it needs once (in this process, before any worker process uses it: the
workers load it), saying so on stderr; on a warm cache it compiles nothing and says nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What only the tests, the browser tests, lint and the figures need (pyproject's extras).
EXTRAS = ("dev", "plot", "pytest", "ruff", "playwright", "hypothesis", "matplotlib")
# Kernels compiled for several counter widths by design (scoring.score_pool: 8-bit counters
# for small nodes, 16-bit for large, 64-bit by squares; 32-bit for the greedy strategies').
COUNTER_WIDTHS = {"partition.count_parts", "scoring.score_by_matrix", "scoring.part_figures"}

pytestmark = pytest.mark.cluster

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make_n(target: str, cwd: Path, *flags: str) -> list[str]:
    """The commands `make` would run for ``target`` (dry run)."""
    done = subprocess.run(["make", "-n", *flags, target], cwd=cwd, capture_output=True,
                          text=True, check=True)
    return done.stdout.splitlines()


def pip_installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line and "--upgrade pip" not in line]


@needs_make
def test_make_run_installs_the_project_without_extras():
    installs = pip_installs(make_n("run", ROOT, "-B"))  # -B: every step, as on a fresh clone
    assert installs == [".venv/bin/python -m pip install --quiet -e ."]
    assert not any(word in line for line in installs for word in EXTRAS)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with the Makefile and pyproject.toml, the stamps set by each test."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / ".venv").mkdir()
    return tmp_path


def stamp(project: Path, name: str) -> None:
    path = project / ".venv" / name
    path.touch()
    later = (project / "pyproject.toml").stat().st_mtime + 10
    os.utime(path, (later, later))


@needs_make
def test_make_test_on_a_fresh_clone_installs_everything_once(project):
    shutil.rmtree(project / ".venv")
    lines = make_n("test", project)
    assert any("-m venv .venv" in line for line in lines)
    assert pip_installs(lines) == [".venv/bin/python -m pip install --quiet -e '.[dev,plot]'"]


@needs_make
def test_make_test_after_make_run_adds_only_the_extras(project):
    stamp(project, ".installed")
    assert pip_installs(make_n("run", project)) == []
    assert pip_installs(make_n("test", project)) == [
        ".venv/bin/python -m pip install --quiet -e '.[dev,plot]'"]
    stamp(project, ".installed-extras")
    for target in ("run", "test", "lint"):
        assert pip_installs(make_n(target, project)) == [], target


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[subprocess.CompletedProcess, ...]:
    """The same proof twice on a local cluster of two worker processes, sharing one numba cache
    that starts empty; numba logs every cache file it writes (NUMBA_DEBUG_CACHE)."""
    cache = tmp_path_factory.mktemp("numba-cache")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1"}
    command = [sys.executable, "-m", "optimizer", "prove", "bulls-cows:3x6", "--height", "5",
               "--workers", "2"]
    runs = tuple(subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=600) for _ in range(2))
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    return (*runs, cache)


def saved(run: subprocess.CompletedProcess) -> list[str]:
    """The compiled kernels a run wrote to the cache, one file per kernel and signature."""
    return re.findall(r"data saved to '([^']+\.nbc)'", run.stdout)


def test_an_empty_cache_is_compiled_once_and_said(two_runs):
    first, _, _ = two_runs
    files = saved(first)
    assert files, "nothing was compiled on an empty cache"
    # a kernel compiled again by a worker process would be written again
    assert [f for f, n in Counter(files).items() if n > 1] == []
    assert "compiling the least-height search's kernels (first run only" in first.stderr


def test_a_warm_cache_compiles_nothing_and_says_nothing(two_runs):
    _, second, _ = two_runs
    assert saved(second) == []
    assert "compiling" not in second.stderr


def test_each_kernel_has_one_signature(two_runs):
    """No literal or int32 argument makes a second signature of a kernel (each costs its own
    compilation): only the counters' widths do."""
    *_, cache = two_runs
    kernels = Counter(re.sub(r"-\d+\.py\d+\.\d+\.nbc$", "", path.name)
                      for path in Path(cache).rglob("*.nbc"))
    assert kernels
    assert {name for name, n in kernels.items() if n > 1} <= COUNTER_WIDTHS
