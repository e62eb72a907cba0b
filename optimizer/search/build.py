"""One entry point that turns a request (greedy strategy or exact objective) into a Tree."""

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
        from .objectives import build_exact  # numba and the engines: exact searches only

        return build_exact(game, objective, guesses, time_limit=time_limit,
                           checkpoint=checkpoint)
    if checkpoint is not None:
        raise ValueError("--checkpoint goes with an exact objective")
    name = strategy or "first-consistent"
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    if name in ("first-consistent", "random-consistent"):
        guesses = "consistent"  # these strategies only ever guess consistent codes
    choose = STRATEGIES[name](game, seed)
    root = grow_tree(game, choose, guesses)
    meta = {"seed": seed} if name.startswith("random") else {}
    return Tree(game=game, root=root, objective=name, guesses=guesses, optimal=False, meta=meta)
