"""Kernel safety: numba does not check array bounds, so an index past an array's end corrupts
memory (a crash, or worse, a wrong answer) instead of raising. The kernels and their warm-ups
stay inside the game's arrays whatever its size, and ``make test`` runs the kernels' tests a
second time with numba's bounds checking on (NUMBA_BOUNDSCHECK=1), the checked kernels cached
in a folder of their own so that none compiled without checks is loaded in that run."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit

import optimizer.kernels as kernels
from optimizer.cli import compare
from optimizer.games import parse_game

ROOT = Path(__file__).resolve().parent.parent
# the test modules that exercise the kernels heavily: make test runs them again, checked
KERNEL_MODULES = ("test_exact", "test_deepest", "test_symmetry", "test_lookahead",
                  "test_rollout", "test_strategies", "test_games")
# games of one and two codes (one and two feedback classes): the sizes a warm-up may overrun;
# and word games of one and two answers with a guess-only word (a code with no column)
TINY = ("moo:2,1", "battleship:1x1x1", "mastermind:1x2", "words:1+1", "words:2+1")


def _tiny(spec: str, folder: Path) -> str:
    """A TINY spec as the program takes it: the word games' lists written in ``folder``."""
    if not spec.startswith("words:"):
        return spec
    answers = ["ab", "ba"][:int(spec[6])]
    (folder / "a.txt").write_text("\n".join(answers) + "\n")
    (folder / "g.txt").write_text("\n".join(answers + ["cc"]) + "\n")
    return f"words:{folder / 'a.txt'},{folder / 'g.txt'}"


def _checked(script: str, *args: str, cache: str | None = None) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh Python with numba's bounds checking on."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1")
    env.pop("NUMBA_CACHE_DIR", None)
    if cache:
        env["NUMBA_CACHE_DIR"] = cache
    return subprocess.run([sys.executable, "-c", script, *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


# every command and option that reaches the kernels, on one tiny game, in one checked process;
# compare (the command that overran its matrix) three times
EVERY_COMMAND = r"""
import sys
import numba
from optimizer.cli import main
from optimizer.games import parse_game
from optimizer.search.strategies import STRATEGIES

assert numba.config.BOUNDSCHECK
spec, out = sys.argv[1], sys.argv[2]
height = parse_game(spec).n_secrets  # one secret: one guess; two: two

def moo(*args, status=0):
    got = main([*args])
    assert got == status, (args, got)

moo("info", spec)
for mode in ("any", "consistent"):
    for strategy in STRATEGIES:
        moo("build", spec, "--strategy", strategy, "--guesses", mode, "-o", f"{out}/s.json")
    for objective in ("height", "total", "height,total", "total,height", "total@3",
                      "height,deepest", "deepest@3"):
        moo("build", spec, "--objective", objective, "--guesses", mode, "--quiet",
            "-o", f"{out}/{objective}.{mode}.json")
moo("build", spec, "--objective", "total", "--lookahead", "2", "--quiet", "-o", f"{out}/l.json")
moo("build", spec, "--objective", "total", "--improve", "0.2", "--quiet", "-o", f"{out}/i.json")
for _ in range(2):  # the second run takes the first one's facts
    moo("build", spec, "--objective", "total", "--checkpoint", f"{out}/ck.json", "--quiet",
        "-o", f"{out}/c.json")
moo("prove", spec, "--height", str(height), "--quiet")
moo("prove", spec, "--height", str(height + 1), "--quiet", status=1)
for _ in range(3):
    moo("compare", spec, "--trees", out)
moo("verify", "--recheck", f"{out}/total.any.json")
moo("checkpoint", "verify", f"{out}/ck.json")
moo("play", f"{out}/total.any.json", "--secret", parse_game(spec).format_code(0))
print("every command ran")
"""


@pytest.mark.slow
@pytest.mark.parametrize("spec", TINY)
def test_games_of_one_and_two_codes_stay_inside_their_arrays(spec, tmp_path):
    """`moo compare` on a game of fewer than three codes once crashed (a warm-up scored codes
    0..2 whatever the game); with bounds checking on, such an index raises IndexError, so every
    command passing here on games of one and two codes reads no memory outside its arrays."""
    out = tmp_path / "out"
    out.mkdir()
    done = _checked(EVERY_COMMAND, _tiny(spec, tmp_path), str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "every command ran" in done.stdout
    assert "IndexError" not in done.stderr


@pytest.mark.parametrize("spec", TINY + ("mastermind:1x1",))
def test_the_warm_ups_score_only_the_games_secrets(spec, monkeypatch, tmp_path):
    """The kernels' warm-ups (compare's and the exact search's) pass secrets of this game only,
    as candidates (the root cause of the crashes: codes 0..2 whatever the game, then a word
    game's guess-only word as a candidate, which has no column): checked here directly,
    without relying on numba."""
    import optimizer.kernels.heuristics as heuristics
    from optimizer.search.solver import NodeSolver

    game = parse_game(_tiny(spec, tmp_path))
    seen = []

    def record(FT, candidates, guesses, rule, n_answers):
        seen.extend(int(c) for c in (*candidates, *guesses))
        assert FT.shape[0] == game.n_secrets  # a row a secret
        return candidates[0]

    monkeypatch.setattr(heuristics, "choose_guess", record)
    compare.warm_up(game)
    assert seen and max(seen) < game.n_secrets
    solver, warmed = NodeSolver(game, "any", table_bits=10), []
    monkeypatch.setattr(NodeSolver, "_warm", lambda self, group, small: warmed.append(small))
    solver.warm_up()
    assert warmed and all(len(s) and max(s) < game.n_secrets for s in warmed)


@pytest.mark.slow
def test_an_index_past_an_arrays_end_raises_with_bounds_checking(tmp_path):
    """With NUMBA_BOUNDSCHECK=1, a jitted index past the end raises IndexError, in a function
    of the test's own and in a cached kernel (the greedy one given codes the matrix lacks):
    the kernels then come from the checked folder, never one compiled without checks, also
    under a NUMBA_CACHE_DIR the user set."""
    script = r"""
import sys
from pathlib import Path
import numba
import numpy as np
import optimizer.kernels as kernels
from optimizer.games import parse_game
from optimizer.kernels.heuristics import choose_guess

assert numba.config.BOUNDSCHECK
user = sys.argv[1]
expected = Path(user) / "boundscheck" if user else kernels.cache_folder(boundscheck=True)
assert numba.config.CACHE_DIR == str(expected), numba.config.CACHE_DIR

@numba.njit
def past_the_end(a, i):
    return a[i]

try:
    past_the_end(np.zeros(3), 3)
    raise SystemExit("an index past the end was read")
except IndexError:
    pass
_, transposed, _, n_answers = parse_game("moo:2,1").answer_matrices()  # one code
codes = np.arange(3, dtype=np.int32)
try:
    choose_guess(transposed, codes, codes, 0, n_answers)
    raise SystemExit("the kernel read past the matrix")
except IndexError:
    print("checked")
"""
    for user in ("", str(tmp_path / "cache")):
        done = _checked(script, user, cache=user)
        assert done.returncode == 0 and "checked" in done.stdout, done.stderr[-3000:]


def test_checked_and_unchecked_kernels_are_cached_apart():
    """numba's cache ignores the bounds-check setting: each setting has its own persistent
    folder (same for every run of one setting, so nothing compiles twice), and this run's
    kernels use the folder of its own setting."""
    checked, unchecked = kernels.cache_folder(boundscheck=True), kernels.cache_folder(
        boundscheck=False)
    assert checked != unchecked and checked.parent == unchecked.parent
    assert checked == kernels.cache_folder(boundscheck=True)
    assert checked.name == unchecked.name + "-boundscheck"
    assert kernels.cache_folder() == (checked if numba.config.BOUNDSCHECK else unchecked)
    if not os.environ.get("NUMBA_CACHE_DIR"):
        assert numba.config.CACHE_DIR == str(kernels.cache_folder())


def test_make_test_runs_the_kernel_tests_bounds_checked():
    """CI runs `make test`; its recipe runs the whole suite, then the tests marked `kernels`
    with NUMBA_BOUNDSCHECK=1. The kernels' test modules carry that mark."""
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    recipe = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.splitlines()
    runs = [line.split() for line in recipe if "pytest" in line]
    selecting = {"-m", "-k", "--ignore", "--deselect"}
    assert any("NUMBA_BOUNDSCHECK=1" not in run and not selecting & set(run[run.index("pytest"):])
               for run in runs), runs  # the first run: every test, unchecked
    assert any(run[0] == "NUMBA_BOUNDSCHECK=1" and run[-2:] == ["-m", "kernels"]
               for run in runs), runs
    for name in KERNEL_MODULES:
        marks = getattr(importlib.import_module(name), "pytestmark", [])
        marks = marks if isinstance(marks, list) else [marks]
        assert "kernels" in {mark.name for mark in marks}, name


@njit
def _past_the_end(a, i):
    return a[i]


@pytest.mark.kernels
def test_the_kernel_run_checks_bounds(request):
    """In make test's second run (`-m kernels`) numba checks bounds: an index past an array's
    end raises IndexError, and the kernels come from the checked folder."""
    checked = bool(numba.config.BOUNDSCHECK)
    if "kernels" in (request.config.getoption("markexpr") or ""):
        assert checked, "the kernel tests run with NUMBA_BOUNDSCHECK=1 (as make test does)"
    folder = Path(numba.config.CACHE_DIR).name
    if checked:
        assert folder.endswith("boundscheck")
        with pytest.raises(IndexError):
            _past_the_end(np.zeros(3), 3)
    elif not os.environ.get("NUMBA_CACHE_DIR"):
        assert not folder.endswith("boundscheck")


def test_a_part_without_its_path_is_refused_not_overrun():
    """A part below the root searched with no path once read past the symmetry arrays (a
    double free on mastermind:3x4); the solver now refuses it with a clear error."""
    from optimizer.search.solver import NodeSolver

    game = parse_game("mastermind:3x4")
    solver = NodeSolver(game, "any", table_bits=10)
    part = max(game.parts(0, solver.root()).values(), key=len)
    with pytest.raises(ValueError, match="needs the guesses that led to it"):
        solver.min_total(part, 10)
    with pytest.raises(ValueError, match="needs the guesses that led to it"):
        solver.feasible(part, 4)
    assert solver.min_total(part, 10, path=[0])[0] > len(part)
