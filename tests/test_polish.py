"""Exact subtrees for a tree in hand (search/polish.py), against the plain search: once every node
below the root is polished, each part of the first guess costs its plain optimum, the tree stays
whole and within its depth, and it never costs more than before."""

import re
import time

import numpy as np
import pytest
from oracle import plain_cost

from optimizer.games import parse_game
from optimizer.objective import COSTS, cost_value
from optimizer.search.engine import InProcess
from optimizer.search.polish import _node_at, polish, spots, subtree_cost
from optimizer.search.solver import NodeSolver
from optimizer.search.strategies import greedy
from optimizer.tree import Node, Tree, replay

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

GAMES = [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"),
         ("battleship:2x4x2", "any"), ("bulls-cows:3x4", "any")]


def _cost(game, mode, root, depth, cost):
    return cost_value(cost, depth, replay(Tree(game, root, cost, mode)))


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("cost", ["total", "deep", "deepest"])
@pytest.mark.parametrize("threads", [1, 2])
def test_every_part_of_the_opening_gets_its_plain_optimum(spec, mode, cost, threads):
    game = parse_game(spec)
    plain = plain_cost(game, mode)
    height, _, start = greedy(game, "first-consistent", mode)
    for depth in (height, height + 1, game.n_secrets):
        if cost != "total" and depth == game.n_secrets:
            continue  # the last level weighs only within a depth limit
        solver = NodeSolver(game, mode, table_bits=14)
        root = greedy(game, "first-consistent", mode)[2]
        before = _cost(game, mode, root, depth, cost)
        engine = InProcess(solver, threads)
        try:
            root, saved, settled = polish(solver, engine, root, depth, time.monotonic() + 60,
                                          cost=cost)
        finally:
            engine.close()
        result = replay(Tree(game, root, cost, mode))
        assert not result.defects and result.height <= depth
        after = cost_value(cost, depth, result)
        assert after == before - saved and saved >= 0
        assert root.guess == start.guess  # the root is the search's, not the polish's
        guess_cost, last_cost = COSTS[cost]
        secrets = solver.root()
        want = guess_cost * len(secrets) + last_cost * int(depth == 1 and root.guess in secrets)
        for part in game.parts(root.guess, secrets).values():
            want += plain(frozenset(int(s) for s in part), depth - 1, guess_cost, last_cost)
        assert after == want and settled


def test_a_subtree_cost_is_what_replay_counts():
    game = parse_game("bulls-cows:3x5")
    height, total, root = greedy(game, "first-consistent", "any")
    solver = NodeSolver(game, "any", table_bits=14)
    for depth in (height, height + 2):
        for cost in COSTS:
            assert subtree_cost(game, root, solver.root(), depth, cost) == _cost(
                game, "any", root, depth, cost)
    assert subtree_cost(game, root, solver.root(), height, "total") == total


def test_nodes_come_smallest_first_below_the_root():
    game = parse_game("mastermind:3x3")
    root = greedy(game, "first-consistent", "any")[2]
    solver = NodeSolver(game, "any", table_bits=14)
    found = spots(game, root, solver.root(), 5)
    sizes = [len(s.cands) for s in found]
    assert sizes == sorted(sizes) and min(sizes) > 2
    for spot in found:
        assert spot.key and spot.left == 5 - len(spot.key) // 2
        assert _node_at(root, spot.key)[1] is not None
    assert _node_at(root, (root.guess + 1, 0)) == (None, None)  # a path the tree does not take


def test_a_deadline_already_past_changes_nothing():
    game = parse_game("bulls-cows:3x4")
    root = greedy(game, "first-consistent", "any")[2]
    before = replay(Tree(game, root, "total", "any")).total
    solver = NodeSolver(game, "any", table_bits=14)
    engine = InProcess(solver)
    try:
        root, saved, settled = polish(solver, engine, root, game.n_secrets,
                                      time.monotonic() - 1)
    finally:
        engine.close()
    assert saved == 0 and replay(Tree(game, root, "total", "any")).total == before
    assert not settled  # the first-consistent tree's parts are not all at their bounds


def test_a_node_under_a_replaced_subtree_is_left_alone():
    below = Node(2, {0: Node(3)})
    root = Node(1, {5: below})
    assert _node_at(root, (1, 5, 2, 0))[1] is below.next[0]
    root.next[5] = Node(4, {0: Node(3)})  # an exact subtree put in, guessing otherwise
    assert _node_at(root, (1, 5, 2, 0)) == (None, None)


@pytest.mark.parametrize("objective", ["total", "height,deepest", "total@4"])
def test_searches_that_improve_their_tree_first_stay_exact(objective, tmp_path):
    from optimizer.search.build import build
    from optimizer.search.request import Request

    game = parse_game("bulls-cows:3x4")
    plain = build(Request(game, objective, workers=1))
    for checkpoint in (None, str(tmp_path / "c.json")):
        tree = build(Request(game, objective, workers=1, improve=2, checkpoint=checkpoint))
        assert tree.optimal and plain.optimal
        assert (replay(tree).total, replay(tree).height) == (replay(plain).total,
                                                             replay(plain).height)


def test_the_tree_records_what_improving_did(tmp_path):
    from optimizer.search.build import build
    from optimizer.search.request import Request

    tree = build(Request(parse_game("mastermind:3x3"), "total", workers=1, improve=2))
    step = tree.meta["improve"]["total"]
    assert step["to"] <= step["from"] and step["to"] >= replay(tree).total
    assert 0 <= step["seconds"] <= 10
    tree = build(Request(parse_game("bulls-cows:3x6"), "height,deepest", workers=1, improve=1))
    step = tree.meta["improve"]["deepest"]  # its two numbers, not deepest * 2**22 + total
    result = replay(tree)
    assert step["to"] == {"deepest": result.histogram[result.height], "total": result.total}
    assert (step["to"]["deepest"], step["to"]["total"]) <= (step["from"]["deepest"],
                                                            step["from"]["total"])


def test_what_improving_says_of_the_deepest_count_is_its_two_numbers(capsys):
    """It printed 'deepest 2260735489 -> 2260735483' (4194304 x 539 + 5633)."""
    from optimizer.objective import LAST_FIRST, cost_text
    from optimizer.search.build import build
    from optimizer.search.observer import Observer
    from optimizer.search.request import Request

    assert cost_text("deepest", 539 * LAST_FIRST + 5633) == "539 at the depth limit (total 5633)"
    assert cost_text("total", 5633) == "5633"
    build(Request(parse_game("bulls-cows:3x6"), "height,deepest", workers=1, improve=1),
          Observer(quiet=False))
    notes = [line for line in capsys.readouterr().out.splitlines() if "exact subtrees:" in line]
    numbers = [int(n) for line in notes for n in re.findall(r"\d+", line)]
    assert notes and max(numbers) < LAST_FIRST  # no packed value
    assert any("at the depth limit (total " in line for line in notes if "deepest" in line)


def test_an_opening_shown_optimal_is_a_class_fact_that_verifies(tmp_path, capsys):
    from optimizer.cli import main as moo
    from optimizer.formats.checkpoint import Checkpoint
    from optimizer.formats.tree_file import read_tree

    game = parse_game("bulls-cows:3x5")
    plain = plain_cost(game, "any")
    checkpoint, out = tmp_path / "c.json", tmp_path / "t.json"
    moo(["build", "bulls-cows:3x5", "--objective", "total", "--improve", "5", "--workers", "2",
         "--quiet", "--checkpoint", str(checkpoint), "-o", str(out)])
    tree = read_tree(out)
    start = tree.meta["improve"]["total"]
    log = Checkpoint(checkpoint, game, "any")
    classes = log.totals["total", game.n_secrets].classes
    # the improved tree's opening: its least total by the plain search
    opening = [g for g, fact in classes.items() if fact.get("exact") == start["to"]]
    assert opening
    secrets = frozenset(range(game.n_secrets))
    for g in opening:
        parts = game.parts(g, np.arange(game.n_secrets, dtype=np.int32))
        want = len(secrets) + sum(plain(frozenset(int(s) for s in p), game.n_secrets - 1, 1, 0)
                                  for p in parts.values())
        assert classes[g]["exact"] == want
    assert moo(["checkpoint", "verify", str(checkpoint)]) == 0
    capsys.readouterr()
