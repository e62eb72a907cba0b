"""The exact searches against the plain exhaustive search, rule by rule, and known optima."""

import numpy as np
import pytest

from optimizer.games import parse_game
from optimizer.kernels import exact as K
from optimizer.search.driver import build_exact
from optimizer.search.exact import Objective, Solver
from optimizer.search.reference import plain_optimum, plain_values
from optimizer.tree import Tree, replay

SMALL = [
    ("mastermind:2x3", "any"), ("mastermind:2x3", "consistent"),
    ("mastermind:2x4", "any"), ("mastermind:2x4", "consistent"),
    ("mastermind:3x3", "any"), ("mastermind:3x3", "consistent"),
    ("bulls-cows:2x5", "any"), ("bulls-cows:2x5", "consistent"),
    ("bulls-cows:3x5", "consistent"),
    ("moo:3,4,5", "any"), ("moo:3,4,5", "consistent"),
    ("battleship:2x4x2", "any"), ("battleship:2x4x2", "consistent"),
    ("mastermind:3x4", "consistent"),
]

# every pruning rule alone switched off, all of them off, all on
RULES = {
    "all": K.OPT_ALL,
    "no-symmetry": K.OPT_ALL & ~K.OPT_SYMMETRY,
    "no-dedupe": K.OPT_ALL & ~K.OPT_DEDUPE,
    "no-table": K.OPT_ALL & ~K.OPT_TT,
    "no-dead": K.OPT_ALL & ~K.OPT_DEAD,
    "no-probe": K.OPT_ALL & ~K.OPT_PROBE,
    "no-separate": K.OPT_ALL & ~K.OPT_SEPARATE,
    "none": 0,
}


@pytest.fixture(scope="module")
def plain():
    cache = {}

    def get(spec, mode):
        if (spec, mode) not in cache:
            cache[spec, mode] = plain_optimum(parse_game(spec), mode)
        return cache[spec, mode]

    return get


def solve(spec, mode, opts):
    game = parse_game(spec)
    solver = Solver(game, mode, opts=opts, table_bits=14)
    height = solver.min_height()
    total, _ = solver.min_total(solver.root(), game.n_codes)
    limited, _ = solver.min_total(solver.root(), height)
    return solver, (height, total, limited)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("spec,mode", SMALL)
def test_pruned_search_equals_plain_search(spec, mode, rule, plain):
    _, found = solve(spec, mode, RULES[rule])
    assert found == plain(spec, mode)


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("mastermind:3x4", "consistent"),
                                       ("bulls-cows:3x5", "consistent"), ("moo:3,4,5", "any")])
def test_depth_limits_on_real_subproblems(spec, mode):
    """After each first guess, every part at every depth limit, with the true path of guesses:
    the place where depth limits bind and symmetry is only partly left."""
    game = parse_game(spec)
    height, total = plain_values(game, mode)
    solver = Solver(game, mode, table_bits=14)
    root = solver.root()
    first = solver.ctx.representatives(root, [])
    if mode == "consistent":
        first = np.intersect1d(first, root)
    checked = 0
    for guess in first[:6]:
        for part in solver.parts(int(guess), root).values():
            key = frozenset(int(c) for c in part)
            h = height(key)
            assert solver.min_height(part, [int(guess)]) == h
            for depth in range(h, h + 3):
                value, best = solver.min_total(part, depth, path=[int(guess)])
                assert value == total(key, depth)
                assert best >= 0
                checked += 1
            # one below the least height: no tree exists
            assert solver.min_total(part, h - 1, path=[int(guess)])[0] >= K.INF
    assert checked > 10


def test_cut_off_returns_a_lower_bound():
    """Below beta the answer is exact; at or above beta it is a bound that never overshoots."""
    game = parse_game("mastermind:3x3")
    exact = Solver(game, "any").min_total(np.arange(27, dtype=np.int32), 27)[0]
    for beta in range(exact - 5, exact + 3):
        value, _ = Solver(game, "any").min_total(np.arange(27, dtype=np.int32), 27, beta)
        if beta > exact:
            assert value == exact
        else:
            assert beta <= value <= exact


@pytest.mark.parametrize("objective", ["height", "total", "height,total", "total,height",
                                       "total@4"])
@pytest.mark.parametrize("workers", [0, 2])
def test_build_exact_trees_replay(objective, workers):
    game = parse_game("mastermind:3x3")
    tree = build_exact(game, objective, "any", workers=workers, progress=False)
    result = replay(tree)
    assert not result.defects and tree.optimal
    h, total, limited = plain_optimum(game, "any")
    if objective.startswith("height"):
        assert result.height == h
    if objective in ("total", "total,height"):
        assert result.total == total
    if objective in ("height,total", "total@4"):
        assert result.total == limited


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("moo:3,4,5", "any"), ("mastermind:3x4", "consistent"),
                                       ("battleship:2x4x2", "any")])
def test_parts_split_across_workers_equal_plain_search(spec, mode, plain):
    """With every part large enough to split, its second guesses are jobs of their own (fed as
    others finish, with cut-offs from the best so far; two per height job): the optima must not
    change."""
    from optimizer.search.driver import Driver

    game = parse_game(spec)
    height, total, limited = plain(spec, mode)
    driver = Driver(Solver(game, mode, table_bits=14), workers=2, progress=False)
    driver.split_size = 2
    driver.chunk = 2
    try:
        assert driver.min_height().value == height
        for depth, expected in ((game.n_codes, total), (height, limited)):
            found = driver.min_total(depth)
            assert found.optimal and found.value == expected
            assert replay(Tree(game=game, root=found.root, objective="total",
                               guesses=mode)).total == expected
    finally:
        driver.close()


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("battleship:2x4x2", "any"), ("battleship:2x4x2",
                                                                     "consistent")])
def test_root_classes_screened_in_parallel_equal_plain_search(spec, mode, plain):
    """Screening the root classes a largest part per worker, results taken in the classes'
    order: the least height and the first guess must be those of the sequential search."""
    from optimizer.search.driver import Driver

    game = parse_game(spec)
    height, _, _ = plain(spec, mode)
    screened = Driver(Solver(game, mode, table_bits=14), workers=2, progress=False)
    screened.screen_from, screened.screen_window = 1, 3
    alone = Driver(Solver(game, mode, table_bits=14), workers=0, progress=False)
    try:
        found, expected = screened.min_height(), alone.min_height()
    finally:
        screened.close()
    assert found.optimal and found.value == expected.value == height
    assert found.root.guess == expected.root.guess
    tree = Tree(game=game, root=found.root, objective="height", guesses=mode)
    assert replay(tree).height == height


def test_depth_limit_below_the_optimum_is_a_clear_error():
    with pytest.raises(ValueError, match="no tree of height 2"):
        build_exact(parse_game("mastermind:3x3"), "total@2", "any", workers=0, progress=False)


def test_objective_parsing():
    assert Objective.parse("total@5").name == "total@5"
    assert Objective.parse("height,total").tie == "total"
    for bad in ("size", "total,total", "total@0", "height;total", "height@5", "height,total@6"):
        with pytest.raises(ValueError):
            Objective.parse(bad)


def test_warm_up_leaves_no_trace_in_the_tables():
    """The warm-up compiles on a set the game cannot reach: nothing learnt there may be kept."""
    from optimizer.search.driver import Driver

    solver = Solver(parse_game("bulls-cows:3x5"), "any", table_bits=12)
    Driver(solver, workers=0, progress=False)
    for _, vals in (solver.height_table, solver.total_table):
        assert (vals[:, 0] == -1).all()
    assert solver.opts == K.OPT_ALL


def test_time_limit_writes_the_best_tree_with_a_bound():
    """An interrupted total search still gives a valid tree, marked not optimal, with the
    proven lower bound below or at its total."""
    game = parse_game("mastermind:4x4")
    tree = build_exact(game, "total", "any", time_limit=0.01, workers=0, progress=False)
    result = replay(tree)
    assert not result.defects
    assert tree.optimal is False
    assert tree.lower_bound is not None and tree.lower_bound <= result.total


# --- known optima (published results reproduced) ----------------------------------------------
def test_mastermind_4x6_optima():
    game = parse_game("mastermind:4x6")
    solver = Solver(game, "any")
    assert solver.min_height() == 5
    assert solver.min_total(solver.root(), game.n_codes)[0] == 5625  # Koyama and Lai
    assert solver.min_total(solver.root(), 5)[0] == 5626
    hard = Solver(game, "consistent")
    assert hard.min_height() == 6


def test_bulls_and_cows_needs_seven(capsys):
    from optimizer.cli import main

    assert main(["prove", "bulls-cows", "--height", "7", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "height 6 is impossible" in out and "PROVEN" in out
