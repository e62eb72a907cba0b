"""A plain exhaustive search with no pruning: the definition the fast searches are tested against.

Every allowed guess is tried at every node; the only rules are the definitions themselves: a
guess that tells nothing apart (one non-winning part holding every candidate) is never part of an
optimal tree, and the value of a candidate set is a function of the set (so it is memoised).
Exponential: for games of a few dozen codes only.

Guesses are all ``game.n_codes`` codes; candidates are secrets, the first ``game.n_secrets``
codes (all of them except in word games, whose other codes are allowed guesses only), and
"consistent" guesses are the candidates themselves.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from optimizer.games import Game

INFINITY = float("inf")


def useful_parts(matrix, g: int, cands: frozenset) -> dict[int, list[int]] | None:
    """The candidates other than ``g`` by the feedback ``g`` gets from them, or None when ``g``
    tells nothing apart (one part holding every candidate, ``g`` not among them)."""
    parts: dict[int, list[int]] = {}
    for s in cands:
        if s != g:
            parts.setdefault(int(matrix[g, s]), []).append(s)
    if len(parts) == 1 and g not in cands:
        return None
    return parts


def plain_values(game: Game, guesses: str = "any"):
    """Functions height(cands) and total(cands, depth) over frozensets of secrets (code
    indices below ``game.n_secrets``)."""
    matrix = game.feedback_matrix()
    everything = range(game.n_codes)

    def splits(cands: frozenset):
        pool = sorted(cands) if guesses == "consistent" else everything
        for g in pool:
            parts = useful_parts(matrix, g, cands)
            if parts is not None:
                yield g, [frozenset(p) for p in parts.values()]

    @cache
    def height(cands: frozenset) -> int:
        if len(cands) == 1:
            return 1
        best = INFINITY
        for _, parts in splits(cands):
            best = min(best, 1 + max((height(p) for p in parts), default=0))
        return best

    @cache
    def total(cands: frozenset, depth: int) -> float:
        if depth < 1:
            return INFINITY
        if len(cands) == 1:
            return 1
        best = INFINITY
        for _, parts in splits(cands):
            best = min(best, len(cands) + sum(total(p, depth - 1) for p in parts))
        return best

    return height, total


def plain_cost(game: Game, guesses: str = "any"):
    """cost(cands, depth, guess_cost, last_cost): the least guess_cost x (guesses summed over the
    secrets) + last_cost x (secrets solved with exactly ``depth`` guesses) among trees of height
    at most ``depth``, by its definition (kernels.bundles.COSTS names the weights searched)."""
    matrix = game.feedback_matrix()
    everything = range(game.n_codes)

    @cache
    def cost(cands: frozenset, depth: int, guess_cost: int, last_cost: int) -> float:
        if depth < 1:
            return INFINITY
        if len(cands) == 1:
            return guess_cost + (last_cost if depth == 1 else 0)
        best = INFINITY
        for g in (sorted(cands) if guesses == "consistent" else everything):
            parts = useful_parts(matrix, g, cands)
            if parts is None:
                continue
            here = guess_cost * len(cands)  # the winning candidate, if any, is solved at depth 1
            best = min(best, here + sum(cost(frozenset(p), depth - 1, guess_cost, last_cost)
                                        for p in parts.values()))
        return best

    return cost


def plain_hard(game: Game):
    """Functions height(cands, allowed) and total(cands, depth, allowed) of hard mode: a node's
    guesses are the codes ``allowed`` (a frozenset) keeps, and each answer keeps, of them, the
    codes that keep its hints (Game.keeps_hints): a node is its candidates and its allowed codes."""
    matrix = game.feedback_matrix()

    def splits(cands: frozenset, allowed: frozenset):
        for g in sorted(allowed):
            parts = useful_parts(matrix, g, cands)
            if parts is None:
                continue
            yield [(frozenset(p), frozenset(h for h in allowed if game.keeps_hints(g, f, h)))
                   for f, p in parts.items()]

    @cache
    def height(cands: frozenset, allowed: frozenset) -> float:
        if len(cands) == 1:
            return 1
        return min((1 + max((height(*c) for c in children), default=0)
                    for children in splits(cands, allowed)), default=INFINITY)

    @cache
    def total(cands: frozenset, depth: int, allowed: frozenset) -> float:
        if depth < 1:
            return INFINITY
        if len(cands) == 1:
            return 1
        return min((len(cands) + sum(total(p, depth - 1, a) for p, a in children)
                    for children in splits(cands, allowed)), default=INFINITY)

    return height, total


def plain_optimum(game: Game, guesses: str = "any", depth: int | None = None):
    """(min height, min total, min total within the min height) of the whole game."""
    root = frozenset(range(game.n_secrets))
    if guesses == "hard":
        hard_height, hard_total = plain_hard(game)
        every = frozenset(range(game.n_codes))
        h = hard_height(root, every)
        return (int(h), int(hard_total(root, depth or game.n_secrets, every)),
                int(hard_total(root, h, every)))
    height, total = plain_values(game, guesses)
    h = height(root)
    unlimited = total(root, depth or game.n_secrets)
    return int(h), int(unlimited), int(total(root, h))


__all__ = ["plain_values", "plain_optimum", "plain_cost", "plain_hard", "np"]
