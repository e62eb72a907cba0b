"""A game's symmetry group (``Symmetry``) and its orbits over the codes, by numpy alone (the
player and ``moo info`` must start without the kernels): which first guesses the search keeps,
and the class each code stands in."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Symmetry:
    """The symmetry group the search may use, as plain arrays for the numba kernels.

    kind "digits": a code c maps to s(c[p[0]]), s(c[p[1]]), ... for a position permutation p in
    ``position_perms`` and a symbol permutation s that keeps ``symbol_class``.
    kind "perms": an explicit list of code permutations (``code_perms[m, code] = image``).
    """

    kind: str
    position_perms: np.ndarray  # (m, P) int8; empty for "perms"
    symbol_class: np.ndarray  # (S,) int8; empty for "perms"
    code_perms: np.ndarray  # (m, N) int32; empty for "digits"
    description: str


def smallest_in_orbits(n: int, generators: list[np.ndarray]) -> np.ndarray:
    """least[i]: the smallest code of i's orbit under the group the code permutations
    ``generators`` generate. Each code takes the least label among its neighbours (both ways of
    every generator), then the label of its label, until nothing changes: a label is always a
    code of the same orbit, and at the end every code of an orbit holds the orbit's least."""
    label = np.arange(n)
    steps = []
    for g in generators:
        inverse = np.empty_like(g)
        inverse[g] = np.arange(n, dtype=g.dtype)
        steps += [g, inverse]
    while True:
        new = label
        for g in steps:
            new = np.minimum(new, new[g])
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new


def generators(sym: Symmetry, codes: np.ndarray) -> list[np.ndarray]:
    """Code permutations (image[code]) that generate the group of ``sym``: its explicit
    permutations, or for digit games the exchanges of two neighbouring positions of a block of
    exchangeable positions and of two neighbouring symbols of a class (a block's or a class's
    every order is in the group). A position group that is not such a product is taken whole."""
    if sym.kind != "digits":
        return list(sym.code_perms)
    width = codes.shape[1]
    symbols = len(sym.symbol_class)
    weights = symbols ** np.arange(width - 1, -1, -1, dtype=np.int64)
    keys = codes.astype(np.int64) @ weights  # increasing: codes are in lexicographic order

    def index(images: np.ndarray) -> np.ndarray:
        wanted = images.astype(np.int64) @ weights
        found = np.searchsorted(keys, wanted)
        if not np.array_equal(keys[np.minimum(found, len(keys) - 1)], wanted):
            raise AssertionError("a symmetry maps a code outside the game")
        return found

    perms = sym.position_perms
    blocks = sorted({tuple(sorted(set(perms[:, j].tolist()))) for j in range(width)})
    orders = [math.factorial(len(b)) for b in blocks]
    if math.prod(orders) == len(perms):
        swaps = [(b[i], b[i + 1]) for b in blocks for i in range(len(b) - 1)]
        position_maps = []
        for a, b in swaps:
            order = list(range(width))
            order[a], order[b] = b, a
            position_maps.append(order)
    else:
        position_maps = perms.tolist()
    out = [index(codes[:, order]) for order in position_maps]
    for c in np.unique(sym.symbol_class):
        members = np.flatnonzero(sym.symbol_class == c)
        for x, y in zip(members[:-1], members[1:], strict=True):
            images = np.where(codes == x, y, np.where(codes == y, x, codes))
            out.append(index(images))
    return out
