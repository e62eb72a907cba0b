"""Exact objectives and the value a replayed tree has under each. No numba: ``moo verify``
checks a file's claims against its objective and must start instantly.

- ``height``, ``total``, ``total@K`` (height at most K), ``height,total``, ``total,height``;
- ``deepest@K``: among trees of height at most K, the fewest secrets solved with exactly K
  guesses, then the least total; ``height,deepest``: the same with K the least height.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

# The exact objectives, as messages and help name them.
EXACT_NAMES = "height, total, height,total, total,height, total@K, height,deepest, deepest@K"
# The greedy strategies' names (search.strategies): what a tree's objective is when it is not
# an exact objective. Here, so that reading a tree file loads no search module.
CONSISTENT_ONLY = ("first-consistent", "random-consistent")  # they guess only candidates
HEURISTICS = ("minimax", "expected-size", "entropy", "most-parts")


class Figures(Protocol):
    """What a replay measures (``tree.Replay``)."""

    height: int
    total: int
    histogram: dict[int, int]


@dataclass(frozen=True)
class Objective:
    """``height``, ``total``, ``total@K``, ``height,total``, ``total,height``."""

    first: str  # "height" or "total"
    tie: str | None  # the second component, if any
    depth: int | None  # explicit depth limit (total@K)

    @property
    def name(self) -> str:
        text = self.first + (f",{self.tie}" if self.tie else "")
        return text + (f"@{self.depth}" if self.depth else "")

    @classmethod
    def parse(cls, text: str) -> Objective:
        text = text.strip()
        match = re.fullmatch(r"(height|total|deepest)(?:,(height|total|deepest))?"
                             r"(?:@([0-9]+))?", text)
        known = match is not None and (match.group(1), match.group(2)) in _PAIRS
        if not known or (match.group(1) == "deepest" and match.group(3) is None):
            raise ValueError(
                f"unknown objective {text[:40]!r}: use one of {EXACT_NAMES}"
            )
        if match.group(3) and len(match.group(3)) > 9:  # past any game's number of secrets
            raise ValueError(f"objective {text[:40]!r}: the depth limit is at most 999999999")
        depth = int(match.group(3)) if match.group(3) else None
        if depth is not None and depth < 1:
            raise ValueError(f"objective {text!r}: the depth limit must be at least 1")
        if depth is not None and match.group(1) == "height":
            raise ValueError(f"objective {text!r}: a depth limit applies to total and deepest "
                             "(total@K, deepest@K)")
        return cls(match.group(1), match.group(2), depth)

    @property
    def components(self) -> tuple[str, ...]:
        """What is minimised, in order (the deepest count is always followed by the total)."""
        parts = (self.first,) + ((self.tie,) if self.tie else ())
        return parts + (("total",) if parts[-1] == "deepest" else ())

    def figure(self, name: str, figures: Figures) -> int:
        """One component of a replayed tree: its height, total, or the secrets it solves at the
        last level allowed (the depth limit, else its own height)."""
        if name == "deepest":
            return figures.histogram.get(self.depth or figures.height, 0)
        return getattr(figures, name)

    def value(self, figures: Figures) -> tuple[int, ...]:
        """What the objective minimises, compared lexicographically."""
        return tuple(self.figure(part, figures) for part in self.components)


# What each least-cost search minimises: guess_cost x (guesses summed over the secrets) +
# last_cost x (secrets solved at the last level allowed). Here, not in kernels.bundles (which
# imports them): importing the kernels package loads numba, which the commands that only read
# trees must not.
LAST_FIRST = 1 << 22  # above any total of any game: the deepest count comes first
COSTS = {"total": (1, 0), "deepest": (1, LAST_FIRST), "deep": (0, 1)}


def cost_text(cost: str, value: int) -> str:
    """A cost as people read it: deepest's value packs the count at the depth limit above the
    total (4194304 x count + total), shown as the two numbers."""
    if cost != "deepest":
        return str(value)
    deep, total = divmod(int(value), LAST_FIRST)
    return f"{deep} at the depth limit (total {total})"


def cost_value(cost: str, depth: int, figures: Figures) -> int:
    """What a least-cost search (``COSTS``) counts for a replayed tree whose depth limit is
    ``depth``."""
    guess_cost, last_cost = COSTS[cost]
    return guess_cost * figures.total + last_cost * figures.histogram.get(depth, 0)


# (first, tie-break) pairs that are objectives; deepest needs its depth: deepest@K
_PAIRS = {("height", None), ("total", None), ("height", "total"), ("total", "height"),
          ("height", "deepest"), ("deepest", None)}


def exact_objective(text: str) -> Objective | None:
    """The exact objective a tree file names, or None for a greedy strategy's name."""
    try:
        return Objective.parse(text)
    except ValueError:
        return None


def proven_bounds(tree) -> list[tuple[str, str, int]]:
    """What is proven about a tree not proven optimal, as (component, "=" or ">=", value): the
    file's ``lower_bound`` is on the objective's first component (a ``height,total`` tree's is
    its height); what the searches proved of the second is in ``meta``."""
    objective = exact_objective(tree.objective)
    if objective is None or tree.lower_bound is None:
        return []
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    search = meta.get(f"{objective.first}_search")
    proven = objective.tie and isinstance(search, dict) and search.get("optimal") is True
    bounds = [(objective.first, "=" if proven else ">=", tree.lower_bound)]
    if objective.tie == "total" and isinstance(meta.get("total_lower_bound"), int):
        bounds.append(("total", ">=", meta["total_lower_bound"]))
    if objective.tie == "deepest" and isinstance(meta.get("deepest_proven"), int):
        bounds.append(("deepest", "=", meta["deepest_proven"]))
    elif objective.tie == "deepest" and isinstance(meta.get("deepest_lower_bound"), int):
        bounds.append(("deepest", ">=", meta["deepest_lower_bound"]))
    return bounds


def bound_note(tree) -> str:
    """``height = 6, total >= 19951``: each bound named by what it bounds."""
    return ", ".join(f"{name} {op} {value}" for name, op, value in proven_bounds(tree))
