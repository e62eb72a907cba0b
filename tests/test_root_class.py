"""A first-guess class settled by RootClass (its parts raised in shares of what they miss, the
largest maybe guess by guess) against the plain search: below the cut-off it is the exact least
total with a tree that replays to it, otherwise a bound between the cut-off and the true value;
with the rule on and off, on one thread and two."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import random

import pytest
from oracle import plain_optimum, plain_values

from optimizer.games import parse_game
from optimizer.kernels.bundles import INF, OPT_ALL, OPT_SHARES
from optimizer.search.engine import InProcess
from optimizer.search.handles import Job
from optimizer.search.root import RootSearch
from optimizer.search.solver import NodeSolver
from optimizer.search.total import TotalSearch
from optimizer.tree import Tree, replay

GAMES = [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"), ("battleship:2x4x2", "any"),
         ("bulls-cows:3x4", "any")]


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("opts", [OPT_ALL, OPT_ALL & ~OPT_SHARES])
@pytest.mark.parametrize("threads,split_size,round_trip", [(1, 200, 0.0), (2, 3, 0.0),
                                                            (2, 3, 1.0)])
def test_every_class_at_every_cut_off_is_the_plain_search(spec, mode, opts, threads, split_size,
                                                          round_trip, monkeypatch):
    """round_trip 1.0: a split part's guesses go several to a job (SplitPart.batch), as on
    Dask, where a job's round trip costs milliseconds."""
    monkeypatch.setattr(RootSearch, "split_size", split_size)
    monkeypatch.setattr(InProcess, "round_trip", round_trip)
    game = parse_game(spec)
    _, total = plain_values(game, mode)
    height = plain_optimum(game, mode)[0]
    solver = NodeSolver(game, mode, opts=opts, table_bits=14)
    search = TotalSearch(solver, InProcess(solver, threads=threads))
    try:
        for depth in (game.n_codes, height):
            for guess, parts in search.root_classes():
                true = game.n_secrets + sum(total(frozenset(int(s) for s in p), depth - 1)
                                            for p in parts.values())
                for best in (true - 7, true - 1, true, true + 1, true + 9, int(INF)):
                    value, root = search.class_total(guess, parts, depth, best)
                    if true < best:
                        assert root is not None and value == true, (guess, depth, best)
                        assert replay(Tree(game, root, "total", mode)).total == true
                        assert replay(Tree(game, root, "total", mode)).height <= depth
                    else:
                        assert root is None and best <= value <= true, (guess, depth, best)
    finally:
        search.engine.close()


def test_split_parts_asked_again_are_asked_for_their_whole_share():
    """A split part's query costs about as much whatever it asks, and a refuted one raises the
    bound by just what it asked: from the second pass of split parts alone, each is asked for
    its whole share of what is missing by size, not half (then the class needs no third pass
    when every part holds its share)."""
    from optimizer.search.root_class import RootClass
    from optimizer.search.split_part import SplitPart

    game = parse_game("bulls-cows:3x4")
    solver = NodeSolver(game, "any", table_bits=14)
    search = TotalSearch(solver, InProcess(solver, threads=1))
    guess, parts = search.root_classes()[0]
    depth = game.n_codes
    true = game.n_secrets + sum(solver.counting(len(p), depth - 1) for p in parts.values())
    one = RootClass(search, guess, parts, depth, true + 100)
    fid, part = one.order[0]
    one.splits[fid] = SplitPart(fid, part, 3, [])
    one.asking = [f for f, _ in one.order]
    w_left = 4 * len(part)
    need = one.best - one.lower()
    one.split_passes = 1
    assert one._cutoff(fid, len(part), w_left) == one.lbs[fid] + -(-need * len(part) // (
        2 * w_left))  # half a share, as for any part
    one.split_passes = 2
    assert one._cutoff(fid, len(part), w_left) == one.lbs[fid] + -(-need * len(part) // w_left)
    other = one.order[1][0]
    assert one._cutoff(other, len(part), w_left) == one.lbs[other] + -(-need * len(part) // (
        2 * w_left))  # a part searched whole: still half
    search.engine.close()


def test_a_split_part_found_at_its_floor_searches_no_further():
    """A guess found at what the part is proven to cost (its floor: a checkpoint's bound, an
    earlier query's) ends the query, though the other guesses' own bounds lie below it: none
    can cost less than the part. Without a floor they are all searched."""
    from optimizer.search.split_part import SplitPart
    from optimizer.tree import Node

    for floor, left in ((50, 0), (0, 998)):
        split = SplitPart(0, None, 3, [(40, g) for g in range(1000)])
        split.ask(60, floor)
        assert split.next_guesses(2) == [0, 1]
        split.running["job"] = [0, 1]
        split.record("job", [(50, Node(0)), (55, None)], 0.1)
        assert split.done() is (left == 0) and len(split.queue) == left
        if not left:
            assert split.lower_bound() == 50 and split.tree is not None
    split = SplitPart(0, None, 3, [(40, g) for g in range(10)])
    split.ask(60, 58)  # a floor below the cut-off changes nothing: every guess is searched
    split.running["job"] = split.next_guesses(10)
    split.record("job", [(60 + g, None) for g in range(10)], 0.1)
    assert split.done() and split.lower_bound() == 60


def test_a_split_part_batches_its_guesses_where_jobs_cost_a_round_trip():
    """One guess a job where a job costs nothing beyond its work; on an engine whose round trip
    outweighs a guess, enough for the round trip to be a twentieth of the job, never so many
    that a worker goes without; timed anew at each query."""
    from optimizer.search.split_part import MOST_GUESSES, SplitPart

    split = SplitPart(0, None, 3, [(10, g) for g in range(1000)])
    split.ask(10**6)
    assert split.batch(0.0, 2) == 1 and split.batch(0.01, 2) == 1  # nothing timed yet
    split.spent, split.timed = 0.01, 10  # a millisecond a guess
    assert split.batch(0.0, 2) == 1
    assert split.batch(0.01, 2) == min(200, MOST_GUESSES)
    assert split.batch(0.0001, 2) == 2
    split.queue = split.queue[:6]
    assert split.batch(0.01, 2) == 1  # six left, two workers: a guess each
    assert split.next_guesses(4) == [0, 1, 2, 3] and split.next_guesses(4) == [4, 5]
    split.spent, split.timed = 0.01, 10
    split.ask(10**7)  # a higher cut-off: its guesses may cost far more, so they are timed anew
    assert split.batch(0.01, 2) == 1


def test_the_threads_engine_batches_guesses_of_a_few_milliseconds():
    """Worker threads wait for the caller's thread between jobs: guesses of a millisecond go
    several to a job there too (Battleship's split parts), guesses of a second one each."""
    from optimizer.search.engine import InProcess
    from optimizer.search.split_part import SplitPart

    split = SplitPart(0, None, 3, [(10, g) for g in range(1000)])
    split.ask(10**6)
    split.spent, split.timed = 0.01, 10
    assert split.batch(InProcess.round_trip, 2) > 1
    split.spent, split.timed = 10.0, 10
    assert split.batch(InProcess.round_trip, 2) == 1


def test_a_job_of_several_guesses_is_each_guess_searched_in_turn():
    """jobs.total_guesses: each guess as total_guess would answer it, the cut-off lowered by
    each exact value below it."""
    from optimizer.search.jobs import total_guess, total_guesses

    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=12)
    root = solver.root()
    ranked, branching, _ = solver.rank_total(root, game.n_codes)
    guesses = [g for _, g in ranked[:8]]
    results, _, _ = total_guesses(solver, root, guesses, game.n_codes, int(INF), branching, [])
    cut = int(INF)
    for guess, (value, tree) in zip(guesses, results, strict=True):
        alone = total_guess(NodeSolver(game, "any", table_bits=12), root, guess, game.n_codes,
                            cut, branching, [])
        assert (value, tree is None) == (alone[0], alone[1] is None)
        if tree is not None and value < cut:
            cut = value


@pytest.mark.parametrize("spec,mode", [("battleship:2x4x2", "any"), ("mastermind:3x4", "any"),
                                       ("bulls-cows:3x5", "any")])
def test_batched_guesses_keep_their_own_facts(spec, mode, monkeypatch, tmp_path):
    """Each second guess of a split part, searched several to a job, is recorded under its own
    path with its own value: every fact equals (exact) or bounds (at least) what the plain
    search gives that guess."""
    from oracle import plain_values

    from optimizer.formats.checkpoint import Checkpoint

    monkeypatch.setattr(RootSearch, "split_size", 3)
    monkeypatch.setattr(InProcess, "round_trip", 1.0)
    game = parse_game(spec)
    _, total = plain_values(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    recorded = []  # (path, value, exact) as classes record them (a part's exact value then
    depth = game.n_codes  # drops its guesses' facts from the file)
    for best_of in ("none", "above", "below"):  # a fresh file each: nothing taken from it
        log = Checkpoint(tmp_path / f"{best_of}.json", game, mode)
        record = log.record_part
        monkeypatch.setattr(log, "record_part", lambda cost, d, path, value, tree, r=record: (
            recorded.append((path, value, tree is not None)), r(cost, d, path, value, tree)))
        search = TotalSearch(solver, InProcess(solver, threads=2), checkpoint=log)
        try:
            for guess, parts in search.root_classes():
                true = game.n_secrets + sum(total(frozenset(int(s) for s in p), depth - 1)
                                            for p in parts.values())
                best = {"none": int(INF), "above": true + 1, "below": true - 1}[best_of]
                search.class_total(guess, parts, depth, best)  # a tree in hand: all split
        finally:
            search.engine.close()
    guesses = [(path, value, exact) for path, value, exact in recorded if len(path) == 3]
    for (guess, fid, second), value, exact in guesses:
        part = game.parts(guess, solver.root())[fid]
        true = len(part) + sum(total(frozenset(int(s) for s in sub), depth - 2)
                               for sub in game.parts(second, part).values())
        assert value == true if exact else value <= true, (guess, fid, second)
    assert len(guesses) >= 5 and any(exact for _, _, exact in guesses)


def test_a_class_of_split_parts_shares_what_is_missing_by_room():
    """With a tree in hand and split parts, each part's weight is its room: its greedy tree's
    total (an upper bound on its value, checked against the plain search) less its bound; with
    no split part, or another cost, its size."""
    from optimizer.search.root_class import RootClass

    game = parse_game("bulls-cows:3x5")
    _, total = plain_values(game, "any")
    solver = NodeSolver(game, "any", table_bits=14)
    search = TotalSearch(solver, InProcess(solver, threads=2))
    try:
        search.split_size = 3
        guess, parts = search.root_classes()[0]
        depth = game.n_codes
        one = RootClass(search, guess, parts, depth, int(INF) - 1)
        one._split()
        one._rooms()
        assert one.splits and one.upper
        for fid, part in one.order:
            if len(part) <= 2:
                assert fid not in one.upper
                continue
            assert one.upper[fid] == solver.greedy_total(part)[0]
            assert one.upper[fid] >= total(frozenset(int(s) for s in part), depth - 1)
        fids = [fid for fid, _ in one.order]
        assert one._weights(fids) == {
            fid: max(1, one.upper[fid] - one.lbs[fid]) if fid in one.upper else 0
            for fid in fids}
        for plain in (RootClass(search, guess, parts, depth, int(INF)),  # no tree in hand
                      RootClass(search, guess, {}, depth, int(INF) - 1)):  # no split part
            plain._split()
            plain._rooms()
            assert plain.upper is None
        search.cost = "deepest"
        deep = RootClass(search, guess, parts, depth, int(INF) - 1)
        deep._split()
        deep._rooms()
        assert deep.upper is None
        assert deep._weights(fids) == {fid: len(parts[fid]) if len(parts[fid]) > 2 else 0
                                       for fid in fids}
    finally:
        search.engine.close()


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("slack", [None, -1, 0, 1, 25])
def test_classes_settled_side_by_side_give_the_plain_optimum(spec, mode, slack, monkeypatch):
    """On two threads the classes by parts run two at a time, sharing the workers (one at a
    time while no tree is in hand: each would solve every part exactly): the least total, its
    tree and the bound are the plain search's, with no value to reach and with one below, at,
    just above and far above the optimum (``upper``, ties counting)."""
    from optimizer.search.root_class import RootClass

    monkeypatch.setattr(RootSearch, "split_size", 3)
    game = parse_game(spec)
    height, least, _ = plain_optimum(game, mode)
    live, seen = set(), {"most": 0, "classes": 0}
    real = RootClass.steps

    def watched(self):
        live.add(id(self))
        seen["most"] = max(seen["most"], len(live))
        assert self.best < INF or len(live) == 1  # no tree to beat: a class at a time
        seen["classes"] += 1
        try:
            return (yield from real(self))
        finally:
            live.discard(id(self))

    monkeypatch.setattr(RootClass, "steps", watched)
    solver = NodeSolver(game, mode, table_bits=14)
    search = TotalSearch(solver, InProcess(solver, threads=2))
    try:
        for depth in (game.n_codes, height):
            _, total = plain_values(game, mode)
            true = total(frozenset(range(game.n_secrets)), depth)
            upper = None if slack is None else true + slack
            out = search.min_total(depth, upper)
            if slack is not None and slack < 0:
                assert out.root is None and out.lower_bound > upper, (depth, out.lower_bound)
                continue
            assert out.optimal and out.value == out.lower_bound == true, (depth, out.value)
            tree = replay(Tree(game, out.root, "total", mode))
            assert tree.total == true and tree.height <= depth
    finally:
        search.engine.close()
    assert least == total(frozenset(range(game.n_secrets)), game.n_codes)
    assert seen["most"] <= 2, seen  # never more classes at once than workers
    if len(search.root_classes()) > 1 and slack is not None and slack >= 0:
        assert seen["most"] == 2, seen  # (with slack -1 each class is refuted at once)


class ShuffledEngine:
    """Runs each job as it is submitted and hands finished jobs back in a random order (from
    ``seed``): the orders in which jobs on real workers may finish, replayed at will. Counts
    the jobs submitted and not yet taken back or cancelled (``live``) and the most at once."""

    round_trip = 0.0
    stopped_cpu = 0.0

    def __init__(self, solver, workers: int, seed: int):
        self.solver, self.workers = solver, workers
        self.rng, self.ids = random.Random(seed), itertools.count()
        self.live: set = set()
        self.most = 0

    def submit(self, fn, *args) -> Job:
        future = cf.Future()
        future.set_result(fn(self.solver, *args))
        job = Job(next(self.ids), future)
        self.live.add(job)
        self.most = max(self.most, len(self.live))
        return job

    def wait(self, jobs, timeout):
        assert jobs, "a wait on no job"
        job = self.rng.choice(jobs)
        self.live.discard(job)
        return job

    def cancel(self, jobs) -> None:
        self.live.difference_update(jobs)

    def close(self) -> None:
        pass


@pytest.mark.parametrize("spec,mode", GAMES[:3])
def test_classes_side_by_side_in_any_order_of_jobs(spec, mode, monkeypatch):
    """Jobs finishing in shuffled orders: the plain optimum each time, never more jobs at once
    than workers, none left running, and no part asked for a cut-off its bound already reaches
    (a class that a better tree found beside it has beaten is stopped at once)."""
    from optimizer.search.root_class import RootClass

    monkeypatch.setattr(RootSearch, "split_size", 3)
    game = parse_game(spec)
    _, total = plain_values(game, mode)
    true = total(frozenset(range(game.n_secrets)), game.n_codes)
    asks = []
    real = RootClass._cutoff

    def cutoff(self, fid, weight, w_left):
        asks.append(self.best - self.lower())
        return real(self, fid, weight, w_left)

    monkeypatch.setattr(RootClass, "_cutoff", cutoff)
    solver = NodeSolver(game, mode, table_bits=14)
    for seed in range(12):
        for upper in (None, true + 25):
            engine = ShuffledEngine(solver, 2, seed)
            out = TotalSearch(solver, engine).min_total(game.n_codes, upper)
            assert out.optimal and out.value == true, (seed, upper)
            assert replay(Tree(game, out.root, "total", mode)).total == true
            assert engine.most <= 2 and not engine.live, (seed, upper)
    assert asks and min(asks) > 0


def test_a_class_refuted_from_outside_clears_its_query_s_note(monkeypatch):
    """A class refuted by a better tree found beside it, while one of its split parts' queries
    is shown beside the bar, takes the note away with it."""
    from optimizer.search.root_class import Refuted

    monkeypatch.setattr(RootSearch, "split_size", 3)
    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=14)
    search = TotalSearch(solver, ShuffledEngine(solver, 2, 0))
    depth, shown = game.n_codes, []
    monkeypatch.setattr(search.board, "note", shown.append)
    for bound, guess, parts in search.first_classes(depth):
        for best in range(bound + 1, bound + 200, 7):
            cls = search.root_class(guess, parts, depth, best, 0)
            steps = cls.steps()
            try:
                waiting = steps.send(None)
                while not (any(s.asked for s in cls.splits.values()) and shown and shown[-1]):
                    waiting = steps.send(search.engine.wait(waiting, None) if waiting else None)
            except StopIteration:
                continue
            cls.best = cls.lower()  # as a better tree beside it lowers the cut-off
            with pytest.raises(StopIteration):
                steps.throw(Refuted())
            assert shown[-1] == ""
            return
    raise AssertionError("no split part's query was shown")


def test_a_slow_query_shows_each_guess_searched(monkeypatch):
    """A split part's query whose guesses take a second or more each shows the count of guesses
    searched after each one, not only every 50 (a query of 32 slow guesses stood at 0)."""
    from optimizer.search import root_class

    monkeypatch.setattr(RootSearch, "split_size", 3)
    real = root_class.total_guesses

    def slow(*args):
        results, nodes, _ = real(*args)
        return results, nodes, 1.5  # CPU seconds, as a long job reports them

    monkeypatch.setattr(root_class, "total_guesses", slow)
    game = parse_game("mastermind:3x3")
    solver = NodeSolver(game, "any", table_bits=14)
    search = TotalSearch(solver, ShuffledEngine(solver, 2, 0))
    shown = []
    monkeypatch.setattr(search.board, "note", shown.append)
    depth = game.n_codes
    for _, guess, parts in search.first_classes(depth):
        search.class_total(guess, parts, depth, int(INF) - 1)
    counts = [int(note.split("? ")[1].split(" of ")[0]) for note in shown if "? " in note]
    assert counts and max(counts) > 0, shown
