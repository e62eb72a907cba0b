"""Re-proving what a checkpoint claims (``moo checkpoint verify``): each claim is searched again
by this program's own exhaustive search, a class fact through the class search (or the lookahead
bound it names), a fact below the root as the one job that would have proved it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..formats.checkpoint_io import part_place, path_text
from ..formats.facts import claimed as fact_value
from .jobs import class_bound, total_guess, total_part

if TYPE_CHECKING:
    from .objectives import Search


def check_claim(search: Search, kind: str, guess: int, depth: int, entry: dict) -> tuple:
    """(whether a checkpoint's claim about the first guess ``guess`` holds, re-proved by
    exhaustive search, or None when stopped first; the claim in words). ``kind`` "height":
    refuted within ``depth`` guesses, by searching for a tree of that height opening with
    it; a cost (kernels.bundles.COSTS): ``entry`` its least cost within ``depth``, exact or
    a lower bound (shown again the way it was: the lookahead bound, or the search)."""
    code = search.game.format_code(guess)
    parts = search.game.parts(guess, search.solver.root())
    try:
        if kind == "height":
            text = f"{code} refuted within {depth} guesses"
            return search.height_search().class_tree(guess, parts, depth - 1) is None, text
        claimed = fact_value(entry)
        text = (f"{code} within {depth}: least {kind} "
                + (f"exactly {claimed}" if "exact" in entry else f"at least {claimed}"))
        if "lookahead" in entry:
            levels = entry["lookahead"]
            text += f" (lookahead bound, {levels} levels)"
            job = search.engine.submit(class_bound, guess, sorted(
                parts.values(), key=len, reverse=True), depth, levels, claimed, kind)
            if not _finished(search, job):
                return None, ""
            if job.result()[0] >= claimed:
                return True, text
            # The run that wrote it may have had a tighter bound: its worker's table held
            # values from earlier searches. The exact search decides.
        ceiling = claimed + 1 if "exact" in entry else claimed
        value, root = search.total_search(kind).class_total(guess, parts, depth, ceiling)
    except (TimeoutError, KeyboardInterrupt):
        return None, ""
    if "exact" in entry:
        return root is not None and value == claimed, text
    return root is None or value >= claimed, text  # a tree found may cost that much too

def check_part(search: Search, cost: str, path: tuple, depth: int, entry: dict) -> tuple:
    """check_claim for a fact below the root: the part ``path`` leads to (or its trees
    opening with the guess that ends ``path``) searched again with the claim as cut-off."""
    secrets, left, _ = part_place(search.game, path, depth)
    claimed = fact_value(entry)
    text = (f"{'/'.join(path_text(search.game, path))} within {depth}: least {cost} "
            + (f"exactly {claimed}" if "exact" in entry else f"at least {claimed}"))
    ceiling = claimed + 1 if "exact" in entry else claimed
    above = [int(g) for g in path[0::2]]
    if len(path) % 2 == 0:
        job = search.engine.submit(total_part, secrets, left, ceiling, above, cost)
    else:
        job = search.engine.submit(total_guess, secrets, int(path[-1]), left, ceiling,
                                 search.solver.branches, above[:-1], cost)
    if not _finished(search, job):
        return None, ""
    value, tree = job.result()[:2]
    if "exact" in entry:
        return tree is not None and value == claimed, text
    return value >= claimed, text

def _finished(search: Search, job) -> bool:
    """Wait for one job of a claim's re-proof; False (the job cancelled) when the time
    limit or a signal comes first."""
    try:
        left = None if search.deadline is None else max(0.0, search.deadline - time.monotonic())
        if search.engine.wait([job], left) is not None:
            return True
    except KeyboardInterrupt:
        pass
    search.engine.cancel([job])
    return False
