"""The one way from a request to a tree: ``build(request, observer)``, an exact objective's
search (``objectives.Search``) or a greedy strategy grown into a tree; either way the tree comes
back checked, replayed once over every secret (``Tree.replayed``, from which it is written)."""

from __future__ import annotations

from ..tree import Tree, checked
from .observer import QUIET, Observer
from .request import GREEDY_DEFAULT, Request
from .strategies import CONSISTENT_ONLY, STRATEGIES, grow_tree


def build(request: Request, observer: Observer = QUIET) -> Tree:
    """The tree ``request`` asks for, checked (``checked``): an exact objective's marked optimal
    only when its search finished (stopped early: the best tree found, ``meta.stopped``)."""
    if request.exact:
        from .objectives import Search  # numba and the engines: exact searches only

        with Search(request, observer) as search:
            return search.build()
    request.check_greedy()
    name = request.strategy or GREEDY_DEFAULT
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    # the consistent-only strategies only ever guess consistent codes
    guesses = "consistent" if name in CONSISTENT_ONLY else request.guesses
    root = grow_tree(request.game, STRATEGIES[name](request.game, request.seed), guesses)
    meta = {"seed": request.seed} if name.startswith("random") else {}
    return checked(Tree(game=request.game, root=root, objective=name, guesses=guesses,
                        optimal=False, meta=meta))
