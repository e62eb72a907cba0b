"""The lookahead bound against the plain exhaustive search: never above the true least total, on
every set it meets, at every level and depth; exact once it looks deep enough; and sharper than
the counting bound on real parts."""

import numpy as np
import pytest
from oracle import plain_cost

from optimizer.games import parse_game
from optimizer.kernels import bundles as B
from optimizer.search.solver import NodeSolver

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

GAMES = [("mastermind:3x3", "any"), ("mastermind:3x4", "consistent"), ("bulls-cows:3x5", "any"),
         ("moo:3,4,5", "any"), ("battleship:2x4x2", "any"), ("mastermind:3x4", "any")]


def _parts(game, solver, guesses=2):
    """The parts after the first few first-guess classes, with their paths."""
    root = solver.root()
    for guess in solver.representatives(root, [])[:guesses]:
        for part in game.parts(int(guess), root).values():
            yield part, [int(guess)]


@pytest.mark.slow
@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("cost", ["total", "deepest"])
def test_never_above_the_least_cost(spec, mode, cost):
    """Every level, with and without a cut-off and a depth limit; a fresh table each time, and
    one shared table across all (bounds stored by one call are read by the next)."""
    game = parse_game(spec)
    plain = plain_cost(game, mode)
    weights = B.COSTS[cost]
    shared = NodeSolver(game, mode, table_bits=14)
    checked = 0
    for part, path in _parts(game, shared):
        key = frozenset(int(c) for c in part)
        for depth in (3, 4, game.n_codes):
            exact = plain(key, depth, *weights)
            for levels in range(0, 4):
                for solver in (NodeSolver(game, mode, table_bits=14), shared):
                    bound = solver.lookahead(part, depth, levels, path=path, cost=cost)
                    assert bound <= exact or exact == float("inf") and bound >= B.INF
                    for beta in (bound - 3, bound + 2, int(B.INF)):
                        if beta > 0:
                            cut = solver.lookahead(part, depth, levels, beta, path=path,
                                                   cost=cost)
                            assert min(cut, beta) <= exact
                    checked += 1
    assert checked > 50


@pytest.mark.slow
@pytest.mark.parametrize("spec,mode", GAMES)
def test_exact_when_looking_deep_enough(spec, mode):
    """With as many levels as the part has candidates every branch ends in an exact part, so
    the bound is the least total itself; it never falls as the levels grow."""
    game = parse_game(spec)
    plain = plain_cost(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    for part, path in _parts(game, solver):
        key = frozenset(int(c) for c in part)
        exact = plain(key, game.n_codes, 1, 0)
        levels = [NodeSolver(game, mode, table_bits=14).lookahead(part, game.n_codes, k, path=path)
                  for k in range(len(part) + 1)]
        assert levels == sorted(levels), levels
        assert levels[-1] == exact


def test_sharper_than_the_counting_bound():
    """On Mastermind 4x6's parts after 0011 the first levels raise the bound: what the rule is
    for (the exact search itself finds 5625 for the whole game)."""
    game = parse_game("mastermind:4x6")
    solver = NodeSolver(game, "any")
    root = solver.root()
    guess = game.parse_code("0011")
    totals = [game.n_codes, game.n_codes, game.n_codes]
    for part in game.parts(guess, root).values():
        for k in range(3):
            totals[k] += NodeSolver(game, "any").lookahead(part, 40, k, path=[guess])
    assert totals[0] < totals[1] < totals[2] <= 5625 + 100  # 0011 is not the best first guess
    exact_after = solver.min_total(root, 40, only=[guess])[0]
    assert totals[2] <= exact_after


def test_a_stopped_search_answers_a_bound_and_stores_nothing():
    game = parse_game("mastermind:3x4")
    solver = NodeSolver(game, "any", table_bits=14)
    plain = plain_cost(game, "any")
    solver.stop[0] = 1
    for part, path in _parts(game, solver):
        bound = solver.lookahead(part, game.n_codes, 3, path=path)
        assert bound <= plain(frozenset(int(c) for c in part), game.n_codes, 1, 0)
    solver.stop[0] = 0
    assert not np.any(solver.total_table.vals[:, 0])


@pytest.mark.parametrize("spec,mode", [("mastermind:3x4", "any"), ("bulls-cows:3x5", "any"),
                                       ("battleship:2x4x2", "any"), ("moo:3,4,5", "consistent")])
@pytest.mark.slow
def test_raised_first_guess_bounds_hold_and_verify(spec, mode, tmp_path):
    """The root phase of --lookahead alone: every first guess's raised bound is at most its
    true least total, each is recorded in the checkpoint with its level, and `moo checkpoint
    verify` re-proves every one by the same bound."""
    from argparse import Namespace

    from optimizer.cli.checkpoints import verify
    from optimizer.search.objectives import Search
    from optimizer.search.request import Request

    game = parse_game(spec)
    plain = plain_cost(game, mode)
    n = game.n_codes
    log = tmp_path / "facts.json"
    with Search(Request(game, "total", guesses=mode, workers=1, checkpoint=str(log),
                        lookahead=2)) as search:
        search.ready()
        total = search.total_search()
        classes = total.first_classes(n)
        before = {g: b for b, g, _ in classes}
        raised = total.raise_bounds(classes, n, int(B.INF))
    assert any(b > before[g] for b, g, _ in raised)
    for bound, guess, parts in raised:
        true = n + sum(plain(frozenset(int(c) for c in p), n - 1, 1, 0) for p in parts.values())
        assert before[guess] <= bound <= true
    facts = search.checkpoint.totals[("total", n)].classes
    assert facts and all(e["lookahead"] == 2 for e in facts.values())
    args = Namespace(file=str(log), sample=None, seed=None, started=0.0, time_limit=None,
                     workers=1, scheduler=None, table_bits=None, quiet=True)
    assert verify(args) == 0


@pytest.mark.parametrize("spec,mode", [("mastermind:3x4", "any"), ("bulls-cows:3x5", "any"),
                                       ("battleship:2x4x2", "any")])
@pytest.mark.parametrize("cost", ["total", "deep"])
@pytest.mark.slow
def test_raised_part_bounds_hold_are_kept_and_verify(spec, mode, cost, tmp_path):
    """Each part bound a sweep job raises (the separation bound among them) is at most the
    part's plain least cost, is recorded in the checkpoint as a fact below the first guess and
    stays there (the sweep's class bounds carry their level, so they settle nothing), is what
    the class's next job starts from, and `moo checkpoint verify` re-proves it."""
    from argparse import Namespace

    from optimizer.cli.checkpoints import verify
    from optimizer.formats.facts import settles
    from optimizer.search import jobs
    from optimizer.search.objectives import Search
    from optimizer.search.request import Request

    game = parse_game(spec)
    plain = plain_cost(game, mode)
    weights = B.COSTS[cost]
    everything = frozenset(range(game.n_codes))
    depth = game.n_codes if cost == "total" else next(
        d for d in range(1, game.n_codes) if plain(everything, d, 1, 0) < float("inf"))
    log = tmp_path / "facts.json"
    root = np.arange(game.n_codes, dtype=np.int32)
    handed: dict = {}  # (guess, feedback id) -> the bounds the jobs were handed for that part
    bound_job = jobs.class_bound

    def watched(solver, guess, parts, depth, levels, beta, cost, known):
        fids = {tuple(int(c) for c in p): f for f, p in game.parts(guess, root).items()}
        for part, bound in zip(parts, known, strict=True):
            handed.setdefault((guess, fids[tuple(int(c) for c in part)]), set()).add(bound)
        return bound_job(solver, guess, parts, depth, levels, beta, cost, known)

    import optimizer.search.root_bounds as bounds_module

    with Search(Request(game, "total", guesses=mode, workers=1, checkpoint=str(log),
                        lookahead=1)) as search:
        search.ready()
        total = search.total_search(cost)
        record, first = search.checkpoint.record_part, {}

        def recorded(cost, depth, path, value, tree):  # every part fact the sweep records
            first[tuple(path)] = {"at_least": value}
            record(cost, depth, path, value, tree)

        search.checkpoint.record_part = recorded
        total.raise_bounds(total.first_classes(depth), depth, int(B.INF))
        search.checkpoint.record_part = record
        facts = search.checkpoint.totals[(cost, depth)]
        assert facts.classes and not any(settles(e) for e in facts.classes.values())
        bounds_module.class_bound, before = watched, bounds_module.class_bound
        try:
            total.lookahead = 2  # a next level: its jobs start from the recorded part bounds
            total.raise_bounds(total.first_classes(depth), depth, int(B.INF))
        finally:
            bounds_module.class_bound = before
    parts = search.checkpoint.totals[(cost, depth)].parts
    assert first or cost == "total"
    for path, fact in first.items():
        assert parts[path]["at_least"] >= fact["at_least"]  # kept (or raised)
        assert fact["at_least"] in handed[path]
    for path, fact in parts.items():
        guess, fid = path
        part = game.parts(guess, root)[fid]
        assert fact["at_least"] <= plain(frozenset(int(c) for c in part), depth - 1, *weights)
    args = Namespace(file=str(log), sample=None, seed=None, started=0.0, time_limit=None,
                     workers=1, scheduler=None, table_bits=None, quiet=True)
    assert verify(args) == 0


def test_a_sweep_on_a_new_checkpoint_takes_nothing_and_counts_nodes(tmp_path):
    """The sweep's own part facts, read back by the class search, are not facts taken from
    an earlier run, and a sweep job's nodes (not its seconds) are counted."""
    from optimizer.search.build import build
    from optimizer.search.request import Request

    game = parse_game("mastermind:3x4")
    tree = build(Request(game, "total", workers=1, lookahead=1,
                         checkpoint=str(tmp_path / "new.json")))
    assert tree.optimal and not tree.meta.get("checkpoint_facts")
    assert isinstance(tree.meta["total_search"]["nodes"], int)


@pytest.mark.parametrize("spec,mode", [("mastermind:3x4", "any"), ("bulls-cows:3x5", "any"),
                                       ("battleship:2x4x2", "any")])
@pytest.mark.slow
def test_a_search_with_raised_bounds_stays_exact(spec, mode):
    from optimizer.search.build import build
    from optimizer.search.request import Request
    from optimizer.tree import replay

    game = parse_game(spec)
    plain = plain_cost(game, mode)
    tree = build(Request(game, "total", guesses=mode, lookahead=2, improve=5))
    assert tree.optimal
    assert replay(tree).total == plain(frozenset(range(game.n_codes)), game.n_codes, 1, 0)


CLASS_GAMES = [("mastermind:3x3", "any"), ("mastermind:3x4", "any"), ("bulls-cows:3x5", "any"),
               ("battleship:2x4x2", "any"), ("mastermind:3x4", "consistent")]


def _class_cost(plain, game, guess, parts, depth, weights) -> float:
    """The plain least cost of the trees opening with ``guess`` within ``depth``."""
    solved_first = weights[1] if depth == 1 else 0  # the guess's own secret, at depth 1
    return (weights[0] * game.n_secrets + solved_first
            + sum(plain(frozenset(int(c) for c in p), depth - 1, *weights) for p in parts))


@pytest.mark.parametrize("spec,mode", CLASS_GAMES)
def test_class_bounds_never_exceed_the_class_cost(spec, mode):
    """jobs.class_bound, the --lookahead sweep's job (and verify's), for every cost: never above
    the class's plain least cost. It once took the total's lookahead for every cost, so a deep
    count's class bound was a total: `moo build mastermind:4x6 --objective height,deepest
    --lookahead 1` called 694 secrets at depth 5 optimal, where 539 is."""
    from optimizer.search.jobs import class_bound

    game = parse_game(spec)
    plain = plain_cost(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    root = solver.root()
    checked = 0
    for cost in ("total", "deep", "deepest"):
        weights = B.COSTS[cost]
        for depth in (3, 4, 5):
            for guess in (int(g) for g in solver.representatives(root, [])):
                parts = sorted(game.parts(guess, root).values(), key=len, reverse=True)
                exact = _class_cost(plain, game, guess, parts, depth, weights)
                for levels in (0, 1, 2):
                    bound = class_bound(solver, guess, parts, depth, levels, int(B.INF), cost)[0]
                    assert bound <= exact or exact == float("inf"), (cost, depth, levels)
                    checked += 1
    assert checked > 20


@pytest.mark.parametrize("spec,mode,depth", [("bulls-cows:3x5", "any", 5),
                                             ("mastermind:3x4", "any", 4),
                                             ("battleship:2x4x2", "any", 5),
                                             ("mastermind:3x4", "consistent", 4)])
@pytest.mark.parametrize("cost", ["deep", "deepest"])
def test_the_separation_bound_holds_and_fires(spec, mode, depth, cost):
    """NodeSolver.separation: a part that cannot be solved in one guess fewer than it is allowed
    puts a secret at the last level. Never above the plain least cost, and above the counting
    bound (what the search knew before) on some parts."""
    game = parse_game(spec)
    plain = plain_cost(game, mode)
    weights = B.COSTS[cost]
    solver = NodeSolver(game, mode, table_bits=14)
    bounds, _ = solver.cost(cost)
    fired = 0
    for part, path in _parts(game, solver, guesses=3):
        for left in range(1, depth):
            bound = solver.separation(part, left, path, cost)
            exact = plain(frozenset(int(c) for c in part), left, *weights)
            assert bound <= exact
            counted = int(bounds.LB[solver.branches, len(part), min(left, B.DCAP)])
            fired += bound > counted
    assert fired > 0


@pytest.mark.slow
def test_the_lookahead_sweep_keeps_the_least_deepest_count(tmp_path):
    """The whole command, with and without the sweep: the same count, proven both ways."""
    import orjson

    from optimizer.cli import main as moo

    counts = []
    for extra in ([], ["--lookahead", "1"]):
        out = tmp_path / f"t{len(extra)}.json"
        assert moo(["build", "mastermind:4x6", "--objective", "height,deepest", "--quiet",
                    "-o", str(out), *extra]) == 0
        meta = orjson.loads(out.read_bytes())["meta"]
        counts.append(meta["deepest_proven"])
    assert counts == [539, 539]
