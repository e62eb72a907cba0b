"""One transposition table shared by the worker threads of a process, without locks: a slot
mixing two entries (two threads writing it at once) reads as empty, never as a wrong value, and
searches on several threads at once over one small table (slots taken over all the time) give
the plain search's values."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from oracle import plain_values

from optimizer.games import parse_game
from optimizer.kernels.bundles import DCAP
from optimizer.kernels.table import new_table, probe, set_hash, shared_table, store
from optimizer.search.engine import InProcess
from optimizer.search.solver import NodeSolver

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks


def test_a_slot_mixing_two_entries_reads_as_empty():
    table = new_table(6, 10, seed=1)
    h1, h2 = set_hash(table, np.array([1, 4, 7], dtype=np.int32))
    meta = (3 << 20) + 4
    store(table, h1, h2, meta, 5, 9, 4)
    assert probe(table, h1, h2, meta) == (True, 5, 9, 4)
    store(table, h1, h2, meta, 6, 12, 7)  # narrows: the higher bound, the lower value's guess
    assert probe(table, h1, h2, meta) == (True, 6, 9, 4)
    slot = int(np.flatnonzero(table.vals[:, 0] == meta)[0])
    for column, value in ((1, 7), (2, 8), (3, 1)):  # one value of another entry written over
        saved = table.vals[slot].copy()
        table.vals[slot, column] = value
        assert not probe(table, h1, h2, meta)[0], column
        table.vals[slot] = saved
    assert probe(table, h1, h2, meta) == (True, 6, 9, 4)
    table.vals[slot, 1] = 7
    store(table, h1, h2, meta, 2, 20, 3)  # the mixed slot is no entry: replaced whole
    assert probe(table, h1, h2, meta) == (True, 2, 20, 3)


def test_a_shared_table_has_a_stop_flag_of_its_own():
    table = new_table(6, 10, seed=1)
    other = shared_table(table, np.ones(1, dtype=np.int8))
    h1, h2 = set_hash(table, np.array([2, 3], dtype=np.int32))
    store(other, h1, h2, 2 << 20, 1, 1, 2)  # a stopped search stores nothing
    assert not probe(table, h1, h2, 2 << 20)[0]
    store(table, h1, h2, 2 << 20, 1, 1, 2)
    assert probe(other, h1, h2, 2 << 20) == (True, 1, 1, 2)


def _parts(game):
    """(path, part) of every part of two or more secrets one guess below the root."""
    everything = np.arange(game.n_secrets, dtype=np.int32)
    return [((guess,), part) for guess in range(game.n_codes)
            for part in game.parts(guess, everything).values() if len(part) > 1]


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "any"),
                                       ("mastermind:3x3", "consistent")])
def test_threads_searching_over_one_table_find_the_plain_values(spec, mode):
    """Two threads, each with its solver over the first one's table of 2^7 slots, search every
    part below every first guess (each its own order, at each depth, with cut-offs above and
    below the value), three rounds on one table: every answer is the plain search's."""
    game = parse_game(spec)
    _, plain_total = plain_values(game, mode)
    first = NodeSolver(game, mode, table_bits=7)
    second = NodeSolver(game, mode, table_bits=7, share=first)
    assert second.total_table.keys is first.total_table.keys
    parts = _parts(game)
    expected = {(i, depth): plain_total(frozenset(int(c) for c in part), depth - 1)
                for i, (_, part) in enumerate(parts) for depth in (3, 4, game.n_codes)}
    start = threading.Barrier(2)

    def search(solver, order):
        start.wait()
        wrong = []
        for i in order:
            path, part = parts[i]
            for depth in (3, 4, game.n_codes):
                value = expected[i, depth]
                for beta in ((value + 1, value, max(value - 2, 1)) if value < 1e9 else (10**9,)):
                    got, guess = solver.min_total(part, depth - 1, beta, path)
                    if value < beta and (got != value or guess < 0):
                        wrong.append((path, depth, beta, got, value))
                    if value >= beta and not beta <= got <= value:
                        wrong.append((path, depth, beta, got, value))
        return wrong

    rng = np.random.default_rng(7)
    with ThreadPoolExecutor(2) as pool:
        for _ in range(3):
            orders = [rng.permutation(len(parts)), rng.permutation(len(parts))]
            found = pool.map(search, (first, second), orders)
            assert [w for ws in found for w in ws] == []
    assert first.stats[1] + second.stats[1] > 0  # the table answered some of them


def test_a_shared_solver_reads_its_shares_game_arrays_and_writes_its_own_scratch():
    """The kernels only read Problem and Orbits, so worker threads need no copies (Battleship's
    took 12 ms a thread); they write every Run array, so sharing one would mix two searches."""
    game = parse_game("battleship:2x4x3")
    first = NodeSolver(game)
    second = NodeSolver(game, share=first)
    assert second.problem is first.problem and second.orbits is first.orbits
    assert first.run.square_sets.size > 0
    for mine, theirs in zip(second.run[1:], first.run[1:], strict=True):
        assert mine is not theirs and not np.shares_memory(mine, theirs)
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
    everything = np.arange(game.n_secrets, dtype=np.int32)
    assert second.min_total(everything, DCAP) == NodeSolver(game).min_total(everything, DCAP)


def test_the_threads_of_an_engine_share_the_callers_tables():
    game = parse_game("mastermind:3x3")
    caller = NodeSolver(game)
    engine = InProcess(caller, threads=2)
    try:
        jobs = [engine.submit(lambda solver: (solver is caller, solver.total_table.keys is
                                              caller.total_table.keys)) for _ in range(6)]
        assert {job.future.result() for job in jobs} == {(False, True)}
    finally:
        engine.close()
