"""The engine policy (threads in this process, as many as the root's parts pay for) and the
scaling ladder of scripts/bench.py (its game table, another solver run in turn)."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest
from helpers import ROOT, script

from optimizer.games import parse_game
from optimizer.search import engine as engine_module
from optimizer.search.engine import InProcess, open_engine, parallel_pays
from optimizer.search.objectives import Search
from optimizer.search.request import Request
from optimizer.search.root import RootSearch, root_classes
from optimizer.search.solver import NodeSolver


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(engine_module, "cores", lambda: 2)


def smallest_largest_part(solver: NodeSolver) -> int:
    return min(max(len(p) for p in parts.values()) for _, parts in root_classes(solver))


@pytest.mark.parametrize("spec", ["mastermind:4x6", "moo:10,11,12", "bulls-cows:4x8"])
def test_small_games_are_one_thread(spec, two_cores):
    """A game whose best first guess leaves parts under PARALLEL_PART is searched by one thread
    (the one-job root of total.whole_game), not split, and never on a cluster."""
    solver = NodeSolver(parse_game(spec), "any", table_bits=10)
    assert smallest_largest_part(solver) < engine_module.PARALLEL_PART
    assert not parallel_pays(solver)
    engine = open_engine(solver)
    try:
        assert isinstance(engine, InProcess) and engine.workers == 1
    finally:
        engine.close()


def test_a_large_game_is_split_over_one_thread_per_core(two_cores):
    """Bulls and Cows 4 of 9: the first guess leaves a part of 840 codes, so the search runs on
    one thread per core in this process (no cluster to start); --workers 1, one thread."""
    solver = NodeSolver(parse_game("bulls-cows:4x9"), "any", table_bits=10)
    assert smallest_largest_part(solver) >= engine_module.PARALLEL_PART
    assert parallel_pays(solver)
    engine = open_engine(solver)
    try:
        assert isinstance(engine, InProcess) and engine.workers == 2
        assert "2 threads" in engine.where
    finally:
        engine.close()
    assert isinstance(open_engine(solver, workers=1), InProcess)


@pytest.mark.parametrize("spec,threads", [("battleship", 2), ("battleship:4x6x2", 1)])
def test_many_large_classes_are_split_over_the_threads(spec, threads, two_cores):
    """Battleship 4x8x3's 1240 first-guess classes keep two threads busy although some leave
    parts under PARALLEL_PART (on one thread its height search took 1.8 times as long); its
    small boards, 78 classes of small parts, stay on one."""
    solver = NodeSolver(parse_game(spec), "any", table_bits=10)
    assert smallest_largest_part(solver) < engine_module.PARALLEL_PART
    engine = open_engine(solver)
    try:
        assert isinstance(engine, InProcess) and engine.workers == threads
    finally:
        engine.close()


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("moo:3,4,5", "any")])
def test_threads_find_the_optima_of_one_thread(spec, mode, two_cores, monkeypatch):
    """Split over two threads (every part split guess by guess), each thread with a solver of
    its own: the same least height and totals as the one-job search of one thread."""
    game = parse_game(spec)
    with Search(Request(game, guesses=mode, workers=1)) as alone:
        height = alone.min_height().value
        totals = [alone.min_total(d).value for d in (game.n_codes, height)]
    monkeypatch.setattr(engine_module, "PARALLEL_PART", 1)
    monkeypatch.setattr(RootSearch, "split_size", 3)
    monkeypatch.setattr(RootSearch, "chunk", 2)
    with Search(Request(game, guesses=mode)) as search:
        engine = search.engine
        assert isinstance(engine, InProcess) and engine.workers == 2
        found = search.min_height()
        assert found.optimal and found.value == height
        for depth, expected in zip((game.n_codes, height), totals, strict=True):
            out = search.min_total(depth)
            assert out.optimal and out.value == expected
        solvers = engine._every_solver()
        assert len({id(s) for s in solvers}) == len(solvers) >= 1
        # the caller's solver ranks the split parts' guesses while the jobs run: never theirs
        assert search.solver not in solvers
        assert all(s.problem.F is search.solver.problem.F for s in solvers)  # built once


def test_the_ladder_table_is_well_formed():
    """Every ladder game is a game moo knows, of the size the plot says, with the other
    solver's rules; the default ladder leaves out the largest sizes."""
    b = script("bench")
    games = [g for g, _ in b.LADDER]
    assert len(set(games)) == len(games)
    for game in games:
        kind, pegs, symbols = b.ladder_size(game)
        assert parse_game(game).n_codes == b.ladder_codes(game)
        command = b.other_command("mmstrat", game)
        rules = command[command.index("-r") + 1]
        assert rules == f"p{pegs}c{symbols}{'r' if kind == 'mastermind' else 'n'}"
        assert "optimal" in command
    default = b.ladder_games(None, None)
    assert default == b.ladder_games("default", None)
    assert set(default) < set(b.ladder_games("all", None)) == set(games)
    biggest = max(games, key=b.ladder_codes)
    assert biggest not in default
    assert b.ladder_games(None, "mastermind:2x3, bulls-cows:3x5") == ["mastermind:2x3",
                                                                      "bulls-cows:3x5"]
    with pytest.raises(ValueError):
        b.ladder_games(None, "battleship")
    assert b.ladder_codes("bulls-cows:5x8") == math.perm(8, 5) == 6720


def test_bench_runs_another_solver_in_turn_and_prints_ratios(tmp_path):
    """`bench.py --only GAME --other BINARY`: the other program is called with its rules for
    the game, timed as a whole process, and its total compared with moo's."""
    said = tmp_path / "args.txt"
    fake = tmp_path / "fake-solver"
    fake.write_text(f"#!/bin/sh\necho \"$@\" > {said}\nsleep 0.2\necho 999:3:1\n")
    fake.chmod(0o755)
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench.py"), "--only",
                          "mastermind:2x3", "--other", str(fake), "--rounds", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert said.read_text().split() == ["-r", "p2c3r", "-s", "optimal", "-S", "-q"]
    row = next(line for line in out.stdout.splitlines() if line.startswith("mastermind:2x3"))
    ours, theirs = row.split("|")
    codes, total = ours.split()[1:3]
    assert codes == "9" and int(total) == 21  # least total of Mastermind 2x3 (as mmstrat finds)
    other, wall, cpu, wall_ratio, cpu_ratio = theirs.split()[:5]
    assert other == "999" and "(differs)" in theirs  # the fake's total is not moo's
    assert float(wall) >= 0.2 and float(cpu) < float(wall)  # it slept
    assert re.fullmatch(r"\d+\.\d\d", wall_ratio) and re.fullmatch(r"\d+\.\d\d", cpu_ratio)
