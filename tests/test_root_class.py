"""A first-guess class settled by RootClass (its parts raised in shares of what they miss, the
largest maybe guess by guess) against the plain search: below the cut-off it is the exact least
total with a tree that replays to it, otherwise a bound between the cut-off and the true value;
with the rule on and off, on one thread and two."""

from __future__ import annotations

import pytest
from oracle import plain_optimum, plain_values

from optimizer.games import parse_game
from optimizer.kernels.bundles import INF, OPT_ALL, OPT_SHARES
from optimizer.search.engine import InProcess
from optimizer.search.root import RootSearch
from optimizer.search.solver import NodeSolver
from optimizer.search.total import TotalSearch
from optimizer.tree import Tree, replay

GAMES = [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"), ("battleship:2x4x2", "any"),
         ("bulls-cows:3x4", "any")]


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("opts", [OPT_ALL, OPT_ALL & ~OPT_SHARES])
@pytest.mark.parametrize("threads,split_size", [(1, 200), (2, 3)])
def test_every_class_at_every_cut_off_is_the_plain_search(spec, mode, opts, threads, split_size,
                                                          monkeypatch):
    monkeypatch.setattr(RootSearch, "split_size", split_size)
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
