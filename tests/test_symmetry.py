"""The orbit representatives the searches keep (kernels.symmetry, kernels.guesses) against the
group itself: every (position permutation, symbol renaming within classes) that maps each guess
made so far to itself, applied to every code."""

import itertools

import numpy as np
import pytest

from optimizer.games import parse_game
from optimizer.search.solver import NodeSolver

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

GAMES = ["mastermind:3x4", "mastermind:2x5", "bulls-cows:3x5", "bulls-cows:3x6", "moo:3,4,5",
         "moo:4,4,6", "mastermind:3x3"]


def _group(game):
    """Every symmetry of the game, as a map from code index to code index."""
    sym = game.symmetry()
    index = {tuple(int(x) for x in code): i for i, code in enumerate(game.codes)}
    classes = [np.flatnonzero(sym.symbol_class == c) for c in np.unique(sym.symbol_class)]
    group = []
    for perm in sym.position_perms:
        for images in itertools.product(*(itertools.permutations(c) for c in classes)):
            rename = np.arange(game.n_symbols)
            for members, image in zip(classes, images, strict=True):
                rename[members] = image
            mapped = rename[game.codes[:, perm]]
            group.append(np.array([index[tuple(int(x) for x in row)] for row in mapped]))
    return np.array(group)


def _smallest_of_orbit(group, path):
    """Codes that no symmetry fixing each guess of path maps to a smaller code."""
    fixing = group[np.all(group[:, path] == path, axis=1)] if path else group
    return np.all(fixing >= np.arange(group.shape[1]), axis=0)


@pytest.mark.parametrize("spec", GAMES)
def test_the_kept_guesses_are_the_smallest_of_their_orbits(spec):
    game = parse_game(spec)
    solver = NodeSolver(game, "any", table_bits=8)
    group = _group(game)
    rng = np.random.default_rng(7)
    for length in (0, 1, 1, 1, 2, 2, 2, 3):
        path = [int(g) for g in rng.choice(game.n_codes, size=length, replace=False)]
        expected = _smallest_of_orbit(group, path)
        kept = solver.representatives(solver.root(), path)
        assert np.array_equal(np.flatnonzero(expected), kept), (spec, path)
