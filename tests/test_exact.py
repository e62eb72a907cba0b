"""The exact searches against the plain exhaustive search, rule by rule, and known optima."""

import itertools
import time

import numpy as np
import pytest
from helpers import script
from oracle import plain_optimum, plain_values

from optimizer.games import parse_game
from optimizer.kernels import bundles as B
from optimizer.search.build import build
from optimizer.search.objectives import Objective
from optimizer.search.request import Request
from optimizer.search.solver import NodeSolver
from optimizer.search.strategies import TOTAL_INCUMBENTS
from optimizer.tree import Tree, replay

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks
CHECK_RULES = script("check_rules")  # each rule off, on nodes of the real games

SMALL = [
    ("mastermind:2x3", "any"), ("mastermind:2x3", "consistent"),
    ("mastermind:2x4", "any"), ("mastermind:2x4", "consistent"),
    ("mastermind:3x3", "any"), ("mastermind:3x3", "consistent"),
    ("bulls-cows:2x5", "any"), ("bulls-cows:2x5", "consistent"),
    ("bulls-cows:3x5", "consistent"),
    ("moo:3,4,5", "any"), ("moo:3,4,5", "consistent"),
    ("battleship:2x4x2", "any"), ("battleship:2x4x2", "consistent"),
    ("battleship:1x7x3", "any"),  # scored by squares (three ships)
    ("mastermind:3x4", "consistent"),
]

RULES = {"all": (B.OPT_ALL, True), "no-counting": (B.OPT_ALL, False),
         **{f"no-{name}": (B.OPT_ALL & ~bit, True) for name, bit in B.SWITCHES.items()},
         "none": (0, False)}


def test_every_rule_has_a_switch():
    bits = [getattr(B, name) for name in dir(B) if name.startswith("OPT_") and name != "OPT_ALL"]
    assert sorted(bits) == sorted(B.SWITCHES.values())
    assert sum(bits) == B.OPT_ALL


@pytest.fixture(scope="module")
def plain():
    cache = {}

    def get(spec, mode):
        if (spec, mode) not in cache:
            cache[spec, mode] = plain_optimum(parse_game(spec), mode)
        return cache[spec, mode]

    return get


def solve(spec, mode, opts, counting=True):
    solver = NodeSolver(parse_game(spec), mode, opts=opts, table_bits=14, counting=counting)
    height = solver.min_height()
    total, _ = solver.min_total(solver.root(), solver.game.n_codes)
    limited, _ = solver.min_total(solver.root(), height)
    return solver, (height, total, limited)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("spec,mode", SMALL)
def test_pruned_search_equals_plain_search(spec, mode, rule, plain):
    _, found = solve(spec, mode, *RULES[rule])
    assert found == plain(spec, mode)


@pytest.mark.parametrize("spec", ["mastermind:3x4", "battleship:2x4x2", "bulls-cows:3x5",
                                  "moo:3,4,5"])
def test_the_kernels_answer_ids_split_the_same(spec):
    """The kernels see the feedback ids renumbered densely (games.base.dense_answers): the same
    parts for every guess, the winning part the winning one, the order of ids kept (ties between
    parts of one size are searched in the same order)."""
    from optimizer.games.base import dense_answers

    game = parse_game(spec)
    matrix = game.feedback_matrix()
    dense, win, n_answers = dense_answers(matrix, game.win)
    assert n_answers == len(np.unique(matrix)) and set(np.unique(dense)) == set(range(n_answers))
    assert (dense.diagonal() == win).all()
    order = np.argsort(matrix.ravel(), kind="stable")
    assert (np.diff(dense.ravel()[order].astype(int)) >= 0).all()  # ids keep their order
    assert ((dense == win) == (matrix == game.win)).all()
    pairs = np.unique(np.stack([matrix.ravel(), dense.ravel()]), axis=1)
    assert len(set(pairs[0])) == len(set(pairs[1])) == pairs.shape[1]  # one id for one id


def _plain_scores(solver, pool, cands, dc):
    """score_pool's four figures by numpy: every guess's parts counted from the matrix."""
    problem, LB = solver.problem, solver.bounds.LB[solver.branches]
    out = []
    for g in pool:
        counts = np.bincount(problem.F[g, cands], minlength=problem.nf)
        parts = np.delete(counts, problem.win)
        out.append((parts.max(), np.count_nonzero(parts), LB[parts[parts > 0], dc].sum(),
                    np.count_nonzero(counts)))
    return np.array(out).T


@pytest.mark.parametrize("spec", ["battleship", "battleship:3x4x3", "battleship:2x4x2",
                                  "bulls-cows:4x6", "mastermind:3x4"])
@pytest.mark.parametrize("squares_from", [None, 1])
def test_score_pool_figures_equal_a_plain_count(spec, squares_from):
    """score_pool's largest part, parts, summed bounds and answers, for sets of candidates of
    every size (the counters in bytes and in words; by squares or by the matrix, and by
    squares from a single candidate on)."""
    from optimizer.kernels.scoring import score_pool

    solver = NodeSolver(parse_game(spec), table_bits=10)
    if squares_from:
        solver.problem = solver.problem._replace(squares_from=squares_from)
    rng = np.random.default_rng(7)
    n_secrets = solver.game.n_secrets
    for n in sorted({1, 2, 5, 31, 32, 64, 65, 200, 300, n_secrets} & set(range(n_secrets + 1))):
        cands = np.sort(rng.choice(n_secrets, n, replace=False)).astype(np.int32)
        for pool in (solver.all_codes, cands):
            dc = np.int64(rng.integers(0, 6))
            found = score_pool(solver.problem, solver.run, pool, cands,
                               solver.bounds.LB[solver.branches], dc)
            assert (np.array(found) == _plain_scores(solver, pool, cands, dc)).all(), n


def test_scoring_by_squares_is_battleships_with_three_ships():
    """The default board is scored by squares (its feedback adds up what its three squares say
    of a secret); two ships, and the other games, by the matrix alone."""
    assert NodeSolver(parse_game("battleship"), table_bits=10).problem.square_answer.size == 64
    for spec in ("battleship:2x4x2", "bulls-cows:4x6", "mastermind:3x4"):
        assert NodeSolver(parse_game(spec), table_bits=10).problem.square_answer.size == 0


def _values_by_squares(spec, squares_from):
    solver = NodeSolver(parse_game(spec), table_bits=14)
    solver.problem = solver.problem._replace(squares_from=squares_from)
    height = solver.min_height()
    total, _ = solver.min_total(solver.root(), solver.game.n_codes)
    limited, _ = solver.min_total(solver.root(), height)
    return height, total, limited


@pytest.mark.parametrize("spec", ["battleship:2x3x3", "battleship:1x7x3"])
def test_search_scored_by_squares_equals_plain_search(spec, plain):
    """Every node scored by squares (from one candidate on): the plain search's optima."""
    assert _values_by_squares(spec, 1) == plain(spec, "any")


@pytest.mark.parametrize("spec", ["battleship:2x4x3", "battleship:3x3x3"])
def test_search_scored_by_squares_equals_search_by_the_matrix(spec):
    """Boards too large for the plain search: every node by squares, and none."""
    assert _values_by_squares(spec, 1) == _values_by_squares(spec, 1 << 30)


@pytest.mark.parametrize("spec", ["battleship:2x4x3", "battleship:3x3x3"])
def test_squares_saying_alike_keep_the_optima(spec):
    """Other guesses kept one per pattern of square classes (OPT_DEAD on a game scored by
    squares): the values without the rule, with fewer guesses scored (against the plain search:
    the tests above, where the rule is on)."""
    with_rule, without = (solve(spec, "any", opts) for opts in (B.OPT_ALL,
                                                                 B.OPT_ALL & ~B.OPT_DEAD))
    assert with_rule[1] == without[1]
    assert with_rule[0].stats[B.ST_SCORED] < without[0].stats[B.ST_SCORED]


def _blocks(answers):
    """The blocks a row of feedback splits the candidates into, labels in order of first use."""
    _, first, inverse = np.unique(answers, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse].tobytes()


def _random_nodes(game, rng, low, high, count):
    """(candidates, path, path length) of ``count`` nodes of low to high - 1 candidates, each
    after one to four random guesses and answers (check_rules.random_nodes, the path as the
    kernels take it)."""
    for cands, guesses in CHECK_RULES.random_nodes(game, rng, low, high, count):
        path = np.zeros(game.n_codes + 2, dtype=np.int32)
        path[:len(guesses)] = guesses
        yield cands, path, len(guesses)


@pytest.mark.slow
@pytest.mark.parametrize("spec,low,high,count,seed", [
    ("battleship", 8, 30, 3, 5), ("bulls-cows", 8, 25, 2, 1), ("mastermind", 20, 80, 2, 1)])
def test_each_rule_keeps_the_values_of_real_nodes(spec, low, high, count, seed):
    """scripts/check_rules.py on a few nodes of the classic boards: each solver with one rule off
    returns what a sound search does at every cut-off (the exact value below it, else a bound
    from it up to the exact value), for the total and the deep count at depths 3, 4 and any, and
    the least height. The script sweeps many more nodes."""
    game = parse_game(spec)
    solvers = CHECK_RULES.rule_solvers(game, table_bits=12)
    timed = CHECK_RULES.Timed(None)
    for cands, path in CHECK_RULES.random_nodes(game, np.random.default_rng(seed), low, high,
                                                count):
        assert CHECK_RULES.check_node(solvers, timed, cands, path) == []


@pytest.mark.parametrize("guesses", ["consistent", "hard"])
def test_the_rule_sweep_reaches_nodes_by_allowed_guesses(guesses):
    """check_rules.py --guesses: each guess on the way to a node was allowed where it was made
    (a candidate then, or keeping every hint so far), and the node's candidates are the secrets
    that answer every guess as the path says."""
    game = parse_game("wordle")
    F = game.feedback_matrix()
    for cands, path in CHECK_RULES.random_nodes(game, np.random.default_rng(3), 5, 60, 6,
                                                guesses):
        secret = int(cands[0])
        replies = [int(F[g, secret]) for g in path]
        left = np.arange(game.n_secrets)
        for k, (guess, reply) in enumerate(zip(path, replies, strict=True)):
            if guesses == "consistent":
                assert guess in left
            else:
                earlier = zip(path[:k], replies[:k], strict=True)
                assert all(game.keeps_hints(g, r, guess) for g, r in earlier)
            left = left[F[guess, left] == reply]
        assert (left == cands).all() and 5 <= len(cands) < 60


def test_the_rule_sweep_switches_off_the_rules_named():
    """check_rules.py --rules: "all" and one solver per rule named, that rule alone off."""
    solvers = CHECK_RULES.rule_solvers(parse_game("mastermind:2x4"), table_bits=8,
                                       rules=["few-answers", "table"])
    assert {name: solver.key.opts for name, solver in solvers.items()} == {
        "all": B.OPT_ALL, "no-few-answers": B.OPT_ALL & ~B.OPT_FEW_ANSWERS,
        "no-table": B.OPT_ALL & ~B.OPT_TT}


def test_square_patterns_keep_a_guess_for_every_partition():
    """Nodes of 8 to 63 candidates of the default board, after one to four guesses: every other
    guess that square_patterns drops splits the candidates as a kept one does, the kept ones
    stay in order, and it drops a third or more of them in all."""
    from optimizer.kernels.guesses import other_guesses, square_patterns

    game = parse_game("battleship")
    F = game.feedback_matrix()
    solver = NodeSolver(game, table_bits=10)
    sizes = []
    for cands, path, plen in _random_nodes(game, np.random.default_rng(5), 8, 64, 12):
        every = other_guesses(solver.problem, solver.orbits, solver.run, cands, path, plen)
        kept = square_patterns(solver.problem, cands, every)
        assert (every[np.isin(every, kept)] == kept).all()
        blocks = {_blocks(F[g, cands]) for g in kept}
        assert all(_blocks(F[g, cands]) in blocks for g in every)
        sizes.append((len(kept), len(every)))
    kept, every = np.sum(sizes, axis=0)
    assert 3 * kept <= 2 * every, sizes


def _answers_within_said_values(game, cands, pool) -> np.ndarray:
    """For each guess of pool: the non-winning feedbacks that occur in the game and that its
    squares give when each says any value it says of some candidate, counted from the game's
    weights, apart from the kernel's table and its index."""
    values, weights = game.square_answers()
    occurring = set(int(f) for f in game.answer_ids()) - {int(game.win)}
    said = [set(values[cands, q].tolist()) for q in range(values.shape[1])]
    out = []
    for g in pool:
        s1, s2, s3 = (int(q) for q in game.codes[g])
        out.append(len({int(weights[a] + weights[b] + weights[c])
                        for a in said[s1] for b in said[s2] for c in said[s3]} & occurring))
    return np.array(out)


def _reach_read(problem, cands, pool) -> np.ndarray:
    """What few_answers reads for each guess: Problem.square_reach at its squares' said masks."""
    from optimizer.kernels.scoring import said_values

    said = said_values(problem.square_values, cands)
    sq = problem.guess_squares[pool]
    return problem.square_reach[(said[sq[:, 0]] * 16 + said[sq[:, 1]]) * 16 + said[sq[:, 2]]]


def test_few_answers_leave_out_only_guesses_bounded_above_the_cut_off():
    """Nodes of 8 to 299 candidates of the default board, bound tables of three branchings and
    depths, cut-offs at quartiles of the other guesses' summed bounds: no guess gets more
    non-winning answers than Problem.square_reach allows it; each guess few_answers leaves out
    has its floor and its summed bound (score_pool's) at or above the cut-off, the floor at most
    the summed bound (both taken at INF at most), and no more answers than the most it is given;
    the kept ones are the others, in order; and it leaves out some in all."""
    from optimizer.kernels.bounds import split_floor
    from optimizer.kernels.guesses import other_guesses, square_patterns
    from optimizer.kernels.scoring import few_answers, score_pool

    game = parse_game("battleship")
    solver = NodeSolver(game, table_bits=10)
    problem = solver.problem
    left_out = 0
    for cands, path, plen in _random_nodes(game, np.random.default_rng(11), 8, 300, 12):
        every = other_guesses(problem, solver.orbits, solver.run, cands, path, plen)
        pool = square_patterns(problem, cands, every)
        reach = _answers_within_said_values(game, cands, pool)
        assert (reach == _reach_read(problem, cands, pool)).all()
        for bmax, dc in ((solver.branches, B.DCAP), (8, 4), (4, 3)):
            LB = solver.bounds.LB[bmax]
            _, parts, lb1, _ = (x.copy() for x in score_pool(problem, solver.run, pool, cands,
                                                             LB, dc))
            assert (parts <= reach).all()
            lb1 = np.minimum(lb1, B.INF)
            floor = np.array([min(split_floor(LB, dc, len(cands), a), B.INF) if a else 0
                              for a in reach])
            most = int(score_pool(problem, solver.run, cands, cands, LB, dc)[1].max())
            for need in np.percentile(lb1, [25, 50, 75]).astype(np.int64):
                kept = few_answers(problem, cands, pool, LB, dc, need, most)
                out = ~np.isin(pool, kept)
                assert (pool[~out] == kept).all()
                assert (floor[out] >= need).all() and (lb1[out] >= floor[out]).all()
                assert (parts[out] <= most).all()
                left_out += int(out.sum())
    assert left_out > 0


def test_few_answers_keep_each_nodes_ranking_and_bounds():
    """rank_total with and without OPT_FEW_ANSWERS, on nodes of 8 to 599 candidates of the
    default board, for the total and the deep count, depths 3, 4 and unlimited, inherited
    branchings 4, 8 and all, and cut-offs from just above the node's bound to far above: the
    same guesses worth searching with the same bounds, the same least bound of those left out,
    branching and completeness (so a search visits the same nodes), and fewer guesses scored in
    all. The second set of nodes holds cases where leaving guesses out at the cut-off, rather
    than at the least bound of the guesses it refuted, would change that bound (so such a
    mutation fails here)."""
    from optimizer.kernels.total import rank_total

    game = parse_game("battleship")
    solver = NodeSolver(game, table_bits=10)
    scored = {}
    nodes = [*_random_nodes(game, np.random.default_rng(13), 8, 300, 6),
             *_random_nodes(game, np.random.default_rng(3), 8, 600, 48)]
    for (cands, path, plen), cost in itertools.product(nodes, ("total", "deep")):
        bounds = solver.cost(cost)[0]
        for d, bmax in itertools.product((3, 4, game.n_codes), (4, 8, solver.branches)):
            lb0 = bounds.LB[bmax, len(cands), min(d, B.DCAP)]
            if lb0 >= B.INF:
                continue
            for extra in (1, 4, 16, 64):
                answers = []
                for opts in (B.OPT_ALL, B.OPT_ALL & ~B.OPT_FEW_ANSWERS):
                    run = solver.run._replace(opts=opts, stats=np.zeros(3, dtype=np.int64))
                    found = rank_total(solver.problem, solver.orbits, bounds, run, cands, d,
                                       lb0 + extra, bmax, lb0, path, plen)
                    answers.append([np.asarray(x).tolist() for x in found])
                    scored[opts] = scored.get(opts, 0) + int(run.stats[B.ST_SCORED])
                assert answers[0] == answers[1], (len(cands), cost, d, bmax, extra)
    assert scored[B.OPT_ALL] < scored[B.OPT_ALL & ~B.OPT_FEW_ANSWERS], scored


def test_few_answers_keep_each_nodes_search():
    """min_total with and without OPT_FEW_ANSWERS, each on fresh tables, on nodes of 8 to 60
    candidates of the default board, depths 3 and unlimited, cut-offs just above the node's
    bound to far above: the same answer (value or bound, and guess) from the same nodes, and
    fewer guesses scored in all."""
    game = parse_game("battleship")
    solvers = {opts: NodeSolver(game, opts=opts, table_bits=14)
               for opts in (B.OPT_ALL, B.OPT_ALL & ~B.OPT_FEW_ANSWERS)}
    for cands, path, plen in _random_nodes(game, np.random.default_rng(17), 8, 60, 8):
        for d in (3, game.n_codes):
            lb0 = solvers[B.OPT_ALL].bounds.LB[solvers[B.OPT_ALL].branches, len(cands),
                                               min(d, B.DCAP)]
            for beta in (lb0 + 1, lb0 + 6, B.INF):
                answers = []
                for solver in solvers.values():
                    solver.forget()
                    before = int(solver.stats[B.ST_NODES])
                    got = solver.min_total(cands, d, int(beta), path[:plen])
                    answers.append((got, int(solver.stats[B.ST_NODES]) - before))
                assert answers[0] == answers[1], (len(cands), d, beta)
    scored = [int(solver.stats[B.ST_SCORED]) for solver in solvers.values()]
    assert scored[0] < scored[1], scored


@pytest.mark.parametrize("cost", ["total", "deepest", "deep"])
@pytest.mark.parametrize("branches", [1, 3, 19])
def test_bound_tables_are_convex_in_the_size(cost, branches):
    """split_floor takes the most even split for the cheapest: each secret added to a part costs
    at least as much as the one before, at every depth (finite entries first, then INF)."""
    from optimizer.kernels.bounds import bound_tables

    LB = bound_tables(300, branches, True, cost).LB
    for b in range(branches + 1):
        for dc in range(B.DCAP + 1):
            column = LB[b, :, dc]
            k = int(np.argmax(column >= B.INF)) if (column >= B.INF).any() else len(column)
            assert (column[k:] >= B.INF).all()
            assert (np.diff(column[:k], 2) >= 0).all(), (b, dc)


@pytest.mark.parametrize("spec", ["battleship:2x4x3", "battleship:3x3x3"])
def test_few_answers_keep_the_optima(spec):
    """Other guesses bounded by their answers before scoring (OPT_FEW_ANSWERS): the values
    without the rule, from the same nodes (a node returns the bound scoring would give), with
    fewer guesses scored."""
    with_rule, without = (solve(spec, "any", opts) for opts in (B.OPT_ALL,
                                                                 B.OPT_ALL & ~B.OPT_FEW_ANSWERS))
    assert with_rule[1] == without[1]
    assert with_rule[0].stats[B.ST_NODES] == without[0].stats[B.ST_NODES]
    assert with_rule[0].stats[B.ST_SCORED] < without[0].stats[B.ST_SCORED]


# Games on which each rule should do some work (it is checked that it does).
FIRES_ON = [("mastermind:3x3", "any"), ("mastermind:3x4", "any"), ("bulls-cows:3x5", "any"),
            ("moo:3,4,5", "any"), ("battleship:2x4x2", "any"), ("mastermind:3x4", "consistent"),
            ("battleship:1x7x3", "any")]


@pytest.fixture(scope="module")
def effort():
    """(nodes, guesses scored) of the three searches of ``solve`` per game and rule set."""
    cache = {}

    def get(spec, mode, opts, counting=True):
        key = (spec, mode, opts, counting)
        if key not in cache:
            solver, _ = solve(spec, mode, opts, counting)
            cache[key] = (int(solver.stats[B.ST_NODES]), int(solver.stats[B.ST_SCORED]))
        return cache[key]

    return get


@pytest.mark.parametrize("rule", list(B.SWITCHES) + ["counting"])
def test_every_rule_fires(rule, effort):
    """Each rule saves nodes or scored guesses on some small game: none is dead code."""
    if rule == "counting":
        pairs = [(effort(s, m, B.OPT_ALL), effort(s, m, B.OPT_ALL, False)) for s, m in FIRES_ON]
    else:
        bit = B.SWITCHES[rule]
        pairs = [(effort(s, m, B.OPT_ALL), effort(s, m, B.OPT_ALL & ~bit)) for s, m in FIRES_ON]
    assert any(with_[0] < without[0] or with_[1] < without[1] for with_, without in pairs), pairs


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("mastermind:3x4", "consistent"),
                                       ("bulls-cows:3x5", "consistent"), ("moo:3,4,5", "any")])
def test_depth_limits_on_real_subproblems(spec, mode):
    """After each first guess, every part at every depth limit, with the true path of guesses:
    the place where depth limits bind and symmetry is only partly left."""
    game = parse_game(spec)
    height, total = plain_values(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    root = solver.root()
    first = solver.representatives(root, [])
    if mode == "consistent":
        first = np.intersect1d(first, root)
    checked = 0
    for guess in first[:6]:
        for part in game.parts(int(guess), root).values():
            key = frozenset(int(c) for c in part)
            h = height(key)
            assert solver.min_height(part, [int(guess)]) == h
            for depth in range(h, h + 3):
                value, best = solver.min_total(part, depth, path=[int(guess)])
                assert value == total(key, depth)
                assert best >= 0
                checked += 1
            # one below the least height: no tree exists
            assert solver.min_total(part, h - 1, path=[int(guess)])[0] >= B.INF
    assert checked > 10


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("battleship:2x4x2", "any")])
def test_a_node_searched_slice_by_slice_equals_the_whole(spec, mode):
    """The kernels' exported steps, as the parallel driver uses them: a node's guesses in the
    kernel's order, searched one slice (height) or one guess (total) at a time, give the node's
    own answer."""
    game = parse_game(spec)
    height, total = plain_values(game, mode)
    solver = NodeSolver(game, mode, table_bits=14)
    root = solver.root()
    guess = int(solver.representatives(root, [])[0])
    for part in game.parts(guess, root).values():
        if len(part) <= 2:
            continue
        key, path = frozenset(int(c) for c in part), [guess]
        h = height(key)
        for depth in (h - 1, h):
            if depth < 3:
                continue
            ranked, branching = solver.rank_height(part, depth, path)
            found = any(solver.feasible(part, depth, path, branching, ranked[i:i + 2]) >= 0
                        for i in range(0, len(ranked), 2))
            assert found == (depth >= h)
        ranked, branching, _ = solver.rank_total(part, h + 1, path)
        values = [solver.min_total(part, h + 1, path=path, bmax=branching, only=[g])[0]
                  for _, g in ranked]
        assert min(values) == total(key, h + 1)
        guesses = [g for _, g in ranked]  # several at once, in any order: the least of them
        for order in (guesses[::-1], guesses[1::2] + guesses[::2]):
            value = solver.min_total(part, h + 1, path=path, bmax=branching, only=order)[0]
            assert value == min(values)


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
                                       ("battleship:2x4x2", "any")])
def test_trees_opening_with_a_given_guess_on_the_smallest_parts(spec, mode):
    """min_total(only=[g]) on parts of one or two candidates is the cost of opening with g, not
    the part's own least cost: a code that is no candidate costs a guess more, and one that
    tells them nothing apart two more (its tree needs a level more than the part has codes)."""
    game = parse_game(spec)
    _, total = plain_values(game, mode)
    matrix = game.feedback_matrix()
    solver = NodeSolver(game, mode, table_bits=14)
    root, depth, checked = solver.root(), 4, set()
    for first in range(game.n_codes):
        for part in game.parts(first, root).values():
            if len(part) > 2:
                continue
            key = frozenset(int(c) for c in part)
            for g in sorted(key) if mode == "consistent" else range(game.n_codes):
                parts: dict[int, set] = {}
                for s in key - {g}:
                    parts.setdefault(int(matrix[g, s]), set()).add(s)
                want = len(key) + sum(total(frozenset(p), depth - 1) for p in parts.values())
                got = solver.min_total(part, depth, path=[first], only=[g])[0]
                assert got == want, (game.format_code(first), sorted(key), g)
                checked.add((len(key), g in key, len(parts)))
    assert mode == "consistent" or checked >= {(1, True, 0), (1, False, 1), (2, True, 1),
                                               (2, False, 1), (2, False, 2)}


def test_cut_off_returns_a_lower_bound():
    """Below beta the answer is exact; at or above beta it is a bound that never overshoots."""
    game = parse_game("mastermind:3x3")
    exact = NodeSolver(game, "any").min_total(np.arange(27, dtype=np.int32), 27)[0]
    for beta in range(exact - 5, exact + 3):
        value, _ = NodeSolver(game, "any").min_total(np.arange(27, dtype=np.int32), 27, beta)
        if beta > exact:
            assert value == exact
        else:
            assert beta <= value <= exact


def test_a_stopped_search_stores_nothing():
    """The stop flag (a cancelled job) ends the kernels at once and leaves the tables as they
    were: an unfinished answer is not a fact."""
    solver = NodeSolver(parse_game("mastermind:3x4"), "any", table_bits=12)
    solver.stop[0] = 1
    solver.min_total(solver.root(), 64)
    solver.feasible(solver.root(), 4)
    for table in (solver.height_table, solver.total_table):
        assert (table.vals[:, 0] == 0).all()
    assert solver.stats[B.ST_NODES] == 2


@pytest.mark.parametrize("objective", ["height", "total", "height,total", "total,height",
                                       "total@4"])
def test_build_exact_trees_replay(objective):
    game = parse_game("mastermind:3x3")
    tree = build(Request(game, objective, guesses="any", workers=1))
    result = replay(tree)
    assert not result.defects and tree.optimal
    h, total, limited = plain_optimum(game, "any")
    if objective.startswith("height"):
        assert result.height == h
    if objective in ("total", "total,height"):
        assert result.total == total
    if objective == "total,height":  # the least height among least-total trees
        assert result.height == _least_height_at_least_total(game)
    if objective in ("height,total", "total@4"):
        assert result.total == limited


def _least_height_at_least_total(game) -> int:
    """The first depth limit within which the unlimited least total is reached (plain search)."""
    _, total = plain_values(game, "any")
    root = frozenset(range(game.n_codes))
    return next(d for d in range(1, game.n_codes + 1)
                if total(root, d) == total(root, game.n_codes))


def test_depth_limit_below_the_optimum_is_a_clear_error():
    with pytest.raises(ValueError, match="no tree of height 2"):
        build(Request(parse_game("mastermind:3x3"), "total@2", guesses="any", workers=1))


def test_objective_parsing():
    assert Objective.parse("total@5").name == "total@5"
    assert Objective.parse("height,total").tie == "total"
    for bad in ("size", "total,total", "total@0", "height;total", "height@5", "height,total@6"):
        with pytest.raises(ValueError):
            Objective.parse(bad)
    with pytest.raises(ValueError, match="the depth limit is at most 999999999"):
        Objective.parse("total@" + "9" * 20)  # was 'unknown objective'
    assert Objective.parse("total@999999999").depth == 999999999


def test_warm_up_leaves_no_trace_in_the_tables():
    """The warm-up compiles on a set the game cannot reach: nothing learnt there may be kept."""
    solver = NodeSolver(parse_game("bulls-cows:3x5"), "any", table_bits=12)
    solver.warm_up()
    for table in (solver.height_table, solver.total_table):
        assert (table.vals[:, 0] == 0).all()
    assert solver.opts == B.OPT_ALL


def test_the_time_limit_stops_a_search_whose_jobs_are_all_finished():
    """Past the deadline a search stops though finished jobs wait to be taken up (it once went
    on for ten minutes: its threads finished jobs faster than it took them up)."""
    from optimizer.search.engine import InProcess
    from optimizer.search.root import RootSearch

    solver = NodeSolver(parse_game("mastermind:2x3"), "any", table_bits=10)
    engine = InProcess(solver)
    try:
        jobs = [engine.submit(getattr, "key") for _ in range(2)]
        search = RootSearch(solver, engine, deadline=time.monotonic() + 60)
        assert next(search.finished(jobs)).result() == solver.key  # in time: taken up
        search.deadline = time.monotonic() - 1
        with pytest.raises(TimeoutError):
            next(search.finished(jobs))
    finally:
        engine.close()


def test_time_limit_writes_the_best_tree_with_a_bound():
    """A stopped total search still gives a valid tree, marked not optimal, with the proven lower
    bound below or at its total, and says it stopped. (Mastermind 4x4's whole search takes 13
    ms: a limit of 10 ms let 3 runs in 20 finish it.)"""
    game = parse_game("mastermind:4x6")
    tree = build(Request(game, "total", guesses="any", time_limit=0.01, workers=1))
    result = replay(tree)
    assert not result.defects
    assert tree.optimal is False and tree.meta["stopped"] is True
    assert tree.lower_bound is not None and tree.lower_bound <= result.total
    searches = [v for k, v in tree.meta.items() if k.endswith("_search") and v.get("stopped")]
    assert all(v["nodes_counted"] == "finished jobs only" for v in searches)
    # the whole game as one job builds no greedy tree to beat; stopped, it wrote seed 000's
    # (7471 here), worse than the first greedy tree an incumbent is (entropy's, 5722)
    greedy = build(Request(game, strategy=TOTAL_INCUMBENTS[0], guesses="any"))
    assert result.total <= replay(greedy).total


@pytest.mark.parametrize("spec", ["mastermind:1x1", "moo:1", "battleship:1x2x2"])
@pytest.mark.parametrize("objective", ["height", "total", "height,total", "total,height"])
def test_a_game_of_one_code(spec, objective):
    tree = build(Request(parse_game(spec), objective, guesses="any", workers=1))
    result = replay(tree)
    assert tree.optimal and result.total == 1 and result.height == 1


# --- known optima (published results reproduced) ----------------------------------------------
def test_mastermind_4x6_optima():
    game = parse_game("mastermind:4x6")
    solver = NodeSolver(game, "any")
    assert solver.min_height() == 5
    assert solver.min_total(solver.root(), game.n_codes)[0] == 5625  # Koyama and Lai
    assert solver.min_total(solver.root(), 5)[0] == 5626
    hard = NodeSolver(game, "consistent")
    assert hard.min_height() == 6


@pytest.mark.slow
def test_bulls_and_cows_needs_seven(capsys):
    from optimizer.cli import main

    assert main(["prove", "bulls-cows", "--height", "7", "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "height 6 is impossible: exhaustive search" in out and "PROVEN" in out


def test_build_tree_keeps_the_greedy_incumbents_apart(monkeypatch):
    """The first greedy tree too deep for the limit does not end the list: with most-parts
    first (its Mastermind 4x4 tree has height 5), the incumbent within 4 is the next rule's."""
    from optimizer.search import strategies
    from optimizer.search.strategies import greedy, total_incumbent

    game = parse_game("mastermind:4x4")
    first, second = "most-parts", "entropy"
    assert greedy(game, first, "any", None)[0] > 4  # the premise: the first does not fit
    height, expected, _ = greedy(game, second, "any", None)
    assert height <= 4
    monkeypatch.setattr(strategies, "TOTAL_INCUMBENTS", (first, second))
    total, root = total_incumbent(game, "any", 4)
    tree = Tree(game=game, root=root, objective="", guesses="any")
    assert total == expected and replay(tree).height <= 4 and replay(tree).total == total


def test_the_work_left_counts_the_classes_below_the_best_at_the_measured_pace():
    """A least-cost root search's estimate: the classes not settled whose bound is below the
    best cost in hand, at the mean CPU seconds of search a class settled."""
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10)
    assert pace.update(10, waiting=1, running=0, cpu=20.0) == "left 3 classes, ~0.0 core-h"
    assert pace.left == {"classes": 3, "core_hours": round(3 * 20 / 3600, 2),
                         "seconds_per_class": 20.0, "classes_settled": 1, "runs": 1}
    pace.update(7, waiting=2, running=0, cpu=60.0)  # a better tree: none after the 2nd below 7
    assert pace.left["classes"] == 0 and pace.left["seconds_per_class"] == 30.0
    assert pace.update(10, waiting=3, running=0, cpu=60.0).startswith("left 1 class, ~")


def test_the_bar_s_last_state_shows_the_estimate_after_the_last_class(tmp_path, capsys):
    """The board was drawn before the estimate was updated: the last line said "left 1 classes"
    after the last class was settled, where the checkpoint said none were left."""
    from optimizer.cli import main

    assert main(["build", "mastermind:3x4", "--objective", "total", "--workers", "1",
                 "--checkpoint", str(tmp_path / "c.json"), "-o", str(tmp_path / "t.json")]) == 0
    last = [line for line in capsys.readouterr().err.splitlines() if "root parts" in line][-1]
    assert "gap 0.00%, left 0 classes" in last, last


def test_the_run_s_own_pace_is_told_beside_the_mean_of_every_run():
    """The estimate's pace is the mean over every run on record; the run's own is told beside
    it (classes get dearer as their bounds rise), and only once it has settled a class."""
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10, cpu=100.0, before=(300.0, 3, 2))
    pace.update(10, waiting=0, running=1, cpu=110.0, settled=0)
    assert pace.own() is None
    pace.update(10, waiting=1, running=0, cpu=130.0)
    assert pace.own() == {"classes": 1, "seconds_per_class": 30.0}
    assert pace.left["seconds_per_class"] == 82.5  # (300 + 30) / 4


def test_the_bar_tells_the_hours_at_the_run_s_own_pace_once_it_has_ten_classes():
    """Fewer than ten classes of a run are too few to say what its pace is (one settled from
    part facts is quick); from ten, the bar says the hours at it beside the mean's."""
    from optimizer.search import progress

    pace = progress.Pace(list(range(40)), 100, before=(3600.0, 360, 1))  # 10 s a class before
    for settled in range(1, 10):
        text = pace.update(100, waiting=settled, running=0, cpu=36.0 * settled)
        assert text.startswith(f"left {40 - settled} classes, ~") and "pace" not in text
    text = pace.update(100, waiting=10, running=0, cpu=360.0)
    assert text == "left 30 classes, ~0.1 core-h (~0.3 core-h at this run's pace)"  # 36 s a class
    same = progress.Pace(list(range(40)), 100)  # its only run: the mean is its own pace
    for settled in range(1, 12):
        text = same.update(100, waiting=settled, running=0, cpu=36.0 * settled)
    assert text == "left 29 classes, ~0.3 core-h"


def test_the_work_left_counts_classes_taken_up_and_not_settled():
    """Classes settle out of order when several run at once (search/openings.py): the estimate
    counts those still running and those not yet taken up below the best, never one settled."""
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10)
    pace.update(10, waiting=3, running=2, cpu=1.0)  # the 2nd settled first; 1st, 3rd still run
    assert pace.left["classes"] == 3  # those two, and the fourth
    pace.update(10, waiting=3, running=1, cpu=2.0)
    assert pace.left["classes"] == 2


def test_the_work_left_leaves_out_classes_another_run_settled_on_file():
    """Two processes may share a checkpoint (scripts/bench_class.py --sample --record beside a
    run): a class not yet taken up that the file now says reaches the best is not left."""
    from optimizer.search import progress

    on_file = {3: 10}  # the fourth class settled by the other process
    pace = progress.Pace([5, 6, 7, 9, 12], 10, on_file=lambda i: on_file.get(i, 0))
    pace.update(10, waiting=1, running=0, cpu=20.0)
    assert pace.left["classes"] == 2  # the 2nd and 3rd
    on_file[1] = 9  # a bound on file still below the best: the class is left
    pace.update(10, waiting=2, running=0, cpu=40.0)
    assert pace.left["classes"] == 1


def test_ten_classes_drawn_at_random_set_the_pace_of_the_work_left():
    """The runs take the classes in one order, and their cost follows it: from ten classes
    drawn at random on record (Pace.drawn_least), their mean is the pace, and it says so."""
    from optimizer.formats.facts import pace_text
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10, before=(2300.0, 10, 4), drawn=(90.0, 9))
    pace.update(10, waiting=1, running=0, cpu=10.0)
    assert pace.left["seconds_per_class"] == round(2310 / 11, 3)  # nine drawn: the runs' mean
    pace = progress.Pace([5, 6, 7, 9, 12], 10, before=(2300.0, 10, 4), drawn=(620.0, 10))
    assert pace.update(10, waiting=1, running=0, cpu=10.0) == "left 3 classes, ~0.1 core-h"
    assert pace.left == {"classes": 3, "core_hours": round(3 * 62 / 3600, 2),
                         "seconds_per_class": 62.0, "drawn": 10}
    assert pace_text(pace.left) == ("62.0 CPU seconds a class (the mean of 10 classes drawn at "
                                    "random among those open)")
    assert progress.Pace([5, 6], 10, drawn=(620.0, 10)).update(10, 0, 0, 0.0, settled=0) == (
        "left 2 classes, ~0.0 core-h")  # before this run or any other settled a class


def test_the_pace_starts_from_the_search_cpu_at_its_start():
    """The lookahead bounds' jobs ran before the classes: their time is no class's."""
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10, cpu=100.0)
    pace.update(10, waiting=1, running=0, cpu=103.0)
    assert pace.left["seconds_per_class"] == 3.0
    assert pace.spent() == (3.0, 1) and pace.spent() == (0.0, 0)  # each second told once


def test_the_pace_is_every_run_s_spending_over_every_run_s_classes():
    """A class an earlier run half searched settles fast, and a run stopped in a long class
    settles none: only the sums over the runs on record give the pace (one 7-minute Battleship
    run, one class settled from part facts, said 3.8 core-hours where 57 to 84 was measured)."""
    from optimizer.formats.facts import pace_text
    from optimizer.search import progress

    pace = progress.Pace([5, 6, 7, 9, 12], 10, before=(1000.0, 4, 3))  # 250 s a class so far
    pace.update(10, waiting=1, running=1, cpu=2.0)  # a class half searched before: 2 s
    assert pace.left["seconds_per_class"] == round(1002 / 5, 3)
    pace.finish(cpu=600.0)  # stopped 10 minutes into the next class: what it spent counts
    assert pace.left == {"classes": 4, "core_hours": round(4 * 1600 / 5 / 3600, 2),
                         "seconds_per_class": 320.0, "classes_settled": 5, "runs": 3}
    assert pace.spent() == (600.0, 1)
    assert pace_text(pace.left) == ("320.0 CPU seconds a class (the mean of 5 classes "
                                             "settled in 3 runs)")
    assert pace_text(pace.left, "lifted to the goal") == (
        "320.0 CPU seconds a class (the mean of 5 classes lifted to the goal in 3 runs)")


def test_no_estimate_before_a_class_is_settled_on_record():
    from optimizer.search import progress

    pace = progress.Pace([5, 6], 10)
    pace.finish(cpu=50.0)
    assert pace.left is None and pace.spent() == (50.0, 0)


def test_a_long_class_s_cpu_is_recorded_before_it_settles(tmp_path, monkeypatch):
    """A run killed outright (SIGKILL) writes nothing at its end: what it spent in a class not
    yet settled is recorded as it goes (``Pace.record_every``), not only when a class settles."""
    from optimizer.formats.checkpoint import Checkpoint
    from optimizer.search import progress

    calls, record = [], Checkpoint.record_spent

    def spy(self, cost, depth, cpu, classes, *args, **kwargs):
        calls.append((cpu, classes))
        record(self, cost, depth, cpu, classes, *args, **kwargs)

    monkeypatch.setattr(progress.Pace, "record_every", 0.0)
    monkeypatch.setattr(Checkpoint, "record_spent", spy)
    ckpt = tmp_path / "c.json"
    tree = build(Request(parse_game("bulls-cows:3x6"), objective="total", workers=1,
                         checkpoint=str(ckpt)))
    assert tree.optimal
    first = next(i for i, (_, classes) in enumerate(calls) if classes)
    assert any(cpu > 0 and not classes for cpu, classes in calls[:first]), calls
