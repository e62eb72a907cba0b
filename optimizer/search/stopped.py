"""What a build stopped early (a time limit, a signal) writes: the best tree in hand, which may
be neither the search's nor the first-consistent one, so that a stop never writes a worse tree
than a greedy strategy builds in a second or than the checkpoint file already holds."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..objective import Objective
from .root import Outcome
from .strategies import total_incumbent

if TYPE_CHECKING:
    from .objectives import Search


def best_in_hand(search: Search, obj: Objective, depth: int, out: Outcome) -> Outcome:
    """``out`` of a stopped build, its tree replaced by a better greedy or checkpoint tree."""
    return _checkpoint_tree(search, obj, depth, _greedy_tree(search, obj, depth, out))


def _greedy_tree(search: Search, obj: Objective, depth: int, out: Outcome) -> Outcome:
    """A stopped least-total search of the whole game as one job, which builds no greedy tree
    (Search.total_start): the better of its tree and a greedy one (first-consistent's 7441
    against entropy's 4935 on Battleship 4x5x3)."""
    if obj.first != "total" or not search.total_search(gap=search.gap).whole_game():
        return out
    value, root = total_incumbent(search.game, search.guesses, depth, None, (
        out.value if out.root is not None else None, out.root), search.opening)
    return out if root is out.root else replace(out, value=value, root=root)


def _checkpoint_tree(search: Search, obj: Objective, depth: int, out: Outcome) -> Outcome:
    """A least-cost search stopped before it took the checkpoint's best tree (a signal while
    the greedy tree was built, or deepest@K's height search): that tree when better, or when
    the search had none (Bulls and Cows: 28024 written over a file's 26424)."""
    if obj.first not in ("total", "deepest") or search.checkpoint is None:
        return out
    value, best = None, out.root
    if best is not None:
        value = search.cost_of(obj.first, depth, best)
    for cost in (obj.first,) + ("deep",) * (obj.first == "deepest"):  # a count search's tree
        _, root = search.checkpoint.better_incumbent(cost, depth, None, None)  # too
        if root is not None:
            mine = search.cost_of(obj.first, depth, root)
            if value is None or mine < value:
                value, best = mine, root
    return out if best is out.root else replace(out, value=value, root=best)
