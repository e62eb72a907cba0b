"""One entry point that turns a request (strategy or exact objective) into a Tree."""

from __future__ import annotations

from ..games import Game
from ..tree import Tree
from .strategies import STRATEGIES, grow_tree


def build_tree(
    game: Game,
    strategy: str | None = None,
    objective: str | None = None,
    guesses: str = "any",
    seed: int = 0,
    time_limit: float | None = None,
    checkpoint: str | None = None,
) -> Tree:
    if objective is not None:
        from .driver import build_exact

        return build_exact(game, objective, guesses, time_limit=time_limit,
                           checkpoint=checkpoint)
    if checkpoint is not None:
        raise ValueError("--checkpoint goes with an exact height objective")
    name = strategy or "first-consistent"
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    if name in ("first-consistent", "random-consistent"):
        guesses = "consistent"  # these strategies only ever guess consistent codes
    choose = STRATEGIES[name](game, seed)
    root = grow_tree(game, choose, guesses)
    meta = {"seed": seed} if name.startswith("random") else {}
    return Tree(game=game, root=root, objective=name, guesses=guesses, optimal=False, meta=meta)


# Greedy strategies tried, in order, for the starting upper bound of exact total searches.
INCUMBENTS = ("entropy", "expected-size", "minimax", "first-consistent")


def incumbent_tree(game: Game, guesses: str, depth: int):
    """(total, root) of the best quick greedy tree within ``depth``, or (None, None): a known
    strategy the exact search must beat or tie, and what it writes if stopped early."""
    from ..tree import replay

    best = (None, None)
    for name in INCUMBENTS:
        if name not in STRATEGIES:
            continue
        mode = "consistent" if name == "first-consistent" else guesses
        root = grow_tree(game, STRATEGIES[name](game, 0), mode)
        result = replay(Tree(game=game, root=root, objective=name, guesses=mode))
        if result.height <= depth and (best[0] is None or result.total < best[0]):
            best = (result.total, root)
        if name != "first-consistent":
            break  # one good heuristic is enough
    return best


def height_incumbent(game: Game, guesses: str):
    """(height, root) of the lowest greedy tree (ties: lower total), the starting point of the
    least-height search."""
    from ..tree import replay

    best, best_key = (None, None), None
    for name in ("minimax", "expected-size"):
        if name not in STRATEGIES:
            continue
        root = grow_tree(game, STRATEGIES[name](game, 0), guesses)
        result = replay(Tree(game=game, root=root, objective=name, guesses=guesses))
        key = (result.height, result.total)
        if best_key is None or key < best_key:
            best, best_key = (result.height, root), key
    return best
