"""The fewest secrets at the last level (objectives deepest@K and height,deepest, and
`moo prove --deepest`) against the plain exhaustive search, rule by rule, in both guess modes."""

from __future__ import annotations

import pytest
from oracle import plain_cost, plain_values

from optimizer.cli import main as moo
from optimizer.games import parse_game
from optimizer.kernels import bundles as B
from optimizer.objective import cost_value
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.search.solver import NodeSolver
from optimizer.tree import replay

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

GAMES = [("mastermind:2x4", "any"), ("mastermind:3x3", "any"), ("mastermind:3x3", "consistent"),
         ("bulls-cows:3x5", "consistent"), ("moo:3,4,5", "any"), ("battleship:2x4x2", "any"),
         ("battleship:2x4x2", "consistent"), ("mastermind:3x4", "consistent")]
# Every rule but two that never act here: separate is the height search's, and few-answers
# acts on games scored by squares (three-ship Battleship), none of which is in GAMES.
IDLE = {"separate", "few-answers"}
RULES = {"all": (B.OPT_ALL, True), "no-counting": (B.OPT_ALL, False),
         **{f"no-{name}": (B.OPT_ALL & ~bit, True) for name, bit in B.SWITCHES.items()
            if name not in IDLE},
         "none": (0, False)}


@pytest.fixture(scope="module")
def plain():
    cache = {}

    def get(spec, mode):
        if (spec, mode) not in cache:
            game = parse_game(spec)
            height, _ = plain_values(game, mode)
            cache[spec, mode] = (height(frozenset(range(game.n_codes))), plain_cost(game, mode))
        return cache[spec, mode]

    return get


@pytest.mark.slow
@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("spec,mode", GAMES)
def test_least_costs_equal_plain_search(spec, mode, rule, plain):
    """The count at the last level alone ("deep") and before the total ("deepest"), at the least
    height and one above, every rule switched off in turn."""
    game = parse_game(spec)
    height, cost = plain(spec, mode)
    opts, counting = RULES[rule]
    solver = NodeSolver(game, mode, opts=opts, table_bits=14, counting=counting)
    everything = frozenset(range(game.n_codes))
    for depth in (height, height + 1):
        for kind, (guess_cost, last_cost) in (("deep", B.COSTS["deep"]),
                                              ("deepest", B.COSTS["deepest"])):
            value, guess = solver.min_total(solver.root(), depth, cost=kind)
            assert value == cost(everything, depth, guess_cost, last_cost), (kind, depth)
            assert guess >= 0


def test_a_cut_off_gives_a_lower_bound():
    game = parse_game("mastermind:3x3")
    _, cost = plain_values(game, "any")[0], plain_cost(game, "any")
    exact = cost(frozenset(range(27)), 4, *B.COSTS["deep"])
    for beta in range(max(0, exact - 3), exact + 2):
        value, _ = NodeSolver(game, "any", table_bits=12).min_total(
            NodeSolver(game, "any", table_bits=12).root(), 4, beta, cost="deep")
        assert value == exact if beta > exact else beta <= value <= exact


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("battleship:2x4x2", "any"),
                                       ("bulls-cows:3x5", "consistent")])
@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_built_trees_are_the_plain_optimum(spec, mode, workers, plain):
    """height,deepest and deepest@K (at the least height and one more): the trees replay to the
    plain search's (fewest at the last level, then total)."""
    game = parse_game(spec)
    height, cost = plain(spec, mode)
    everything = frozenset(range(game.n_codes))
    for objective, depth in (("height,deepest", height), (f"deepest@{height}", height),
                             (f"deepest@{height + 1}", height + 1)):
        tree = build(Request(game, objective, guesses=mode, workers=workers))
        result = replay(tree)
        assert tree.optimal and not result.defects and result.height <= depth
        assert cost_value("deepest", depth, result) == cost(everything, depth,
                                                             *B.COSTS["deepest"])
        assert tree.meta["deepest_proven"] == cost_value("deep", depth, result)


def test_deepest_below_the_least_height_is_a_clear_error():
    with pytest.raises(ValueError, match="no tree of height 3"):
        build(Request(parse_game("mastermind:3x3"), "deepest@3", guesses="any", workers=1))


def test_prove_deepest(capsys, plain):
    """Both halves of the claim, and a false claim named as such."""
    height, cost = plain("mastermind:3x3", "any")
    fewest = cost(frozenset(range(27)), height, *B.COSTS["deep"])
    argv = ["prove", "mastermind:3x3", "--height", str(height), "--workers", "1", "--quiet"]
    assert moo(argv + ["--deepest", str(fewest)]) == 0
    out = capsys.readouterr().out
    secrets = "secret" if fewest == 1 else "secrets"
    assert f"with {fewest} {secrets} at depth {height}" in out and "PROVEN" in out
    assert moo(argv + ["--deepest", str(fewest + 1)]) == 1
    out = capsys.readouterr().out
    assert f"CLAIM FAILS: the fewest is {fewest}" in out
    assert f"  [yes] {fewest + 1} or fewer is achievable: a tree" in out  # was [no] beside it
    assert f"  [no]  fewer than {fewest + 1} is possible: a tree " in out
    assert moo(argv + ["--deepest", str(fewest - 1)]) == 1
    out = capsys.readouterr().out
    assert f"  [no]  {fewest - 1} or fewer is not achievable: exhaustive search found none " \
        f"with fewer than {fewest}" in out
    assert f"  [yes] fewer than {fewest - 1} is impossible: " in out


@pytest.mark.parametrize("spec,mode", GAMES)
def test_the_floor_from_the_least_height_holds_for_every_class(spec, mode, plain):
    """Once the least height is proven to be the depth limit, every first-guess class's bound on
    the count at the last level is at least one, and never above the plain search's value."""
    from optimizer.search.engine import InProcess
    from optimizer.search.total import TotalSearch

    game = parse_game(spec)
    height, cost = plain(spec, mode)
    solver = NodeSolver(game, mode, table_bits=12)
    search = TotalSearch(solver, InProcess(solver))
    search.least_height = height
    for kind in ("deep", "deepest"):
        search.cost = kind
        guess_cost, last_cost = B.COSTS[kind]
        values = []
        for bound, _, parts in search.first_classes(height):
            true = guess_cost * game.n_secrets + sum(
                cost(frozenset(int(s) for s in p), height - 1, guess_cost, last_cost)
                for p in parts.values())
            assert last_cost <= bound <= true
            values.append(true)
        assert min(values) == cost(frozenset(range(game.n_codes)), height, guess_cost,
                                   last_cost)


def test_a_signal_in_deepest_s_height_search_stops_the_build(monkeypatch):
    """deepest@K whose first-consistent tree is too tall asks the least height first: a signal
    there went on to the deepest searches and wrote an "optimal" tree beside a stopped height
    search (a defect by verify's unfinished-search rule)."""
    from optimizer.provenance import verify
    from optimizer.search.height import HeightSearch

    def interrupted(self, classes, depth):
        raise KeyboardInterrupt

    monkeypatch.setattr(HeightSearch, "_height_at", interrupted)
    tree = build(Request(parse_game("bulls-cows:3x6"), objective="deepest@5", workers=1))
    assert not tree.optimal and tree.meta["stopped"] is True
    assert verify(tree).defects == []
