"""Exact objectives (``height``, ``total``, ``total@K``, ``height,total``, ``total,height``) and
the value a replayed tree has under each. No numba: ``moo verify`` checks a file's claims against
its objective and must start instantly."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol


class Figures(Protocol):
    """What a replay measures (``tree.Replay``)."""

    height: int
    total: int


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
        match = re.fullmatch(r"(height|total)(?:,(height|total))?(?:@([0-9]{1,9}))?", text.strip())
        if not match or match.group(1) == match.group(2):
            raise ValueError(
                f"unknown objective {text[:40]!r}: use height, total, height,total, total,height "
                "or total@K"
            )
        depth = int(match.group(3)) if match.group(3) else None
        if depth is not None and depth < 1:
            raise ValueError(f"objective {text!r}: the depth limit must be at least 1")
        if depth is not None and match.group(1) == "height":
            raise ValueError(f"objective {text!r}: a depth limit applies to total (total@K)")
        return cls(match.group(1), match.group(2), depth)

    def value(self, figures: Figures) -> tuple[int, ...]:
        """What the objective minimises, compared lexicographically: (first, tie-break)."""
        parts = (self.first,) + ((self.tie,) if self.tie else ())
        return tuple(getattr(figures, part) for part in parts)


def exact_objective(text: str) -> Objective | None:
    """The exact objective a tree file names, or None for a greedy strategy's name."""
    try:
        return Objective.parse(text)
    except ValueError:
        return None
