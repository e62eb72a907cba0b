"""The common interface every game family provides to the search, the trees and the player.

A game is a finite list of codes in lexicographic order; secrets and allowed guesses are both that
list (index = position in it), so a guess or a secret is a small integer everywhere. Feedback is a
small integer id as well; each family says how ids map to the printed numbers of the tree format.
Nothing here imports numba: the player and the verifier must start instantly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np


class GameError(ValueError):
    """A game spec, code or feedback that the game does not allow."""


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


_SPLIT = re.compile(r"[^0-9]+")


def tells_nothing(parts: dict, n: int) -> bool:
    """Whether a guess with these non-winning ``parts`` of ``n`` candidates tells them nothing
    apart (one part holds them all): no optimal tree makes such a guess, and no strategy should.
    The kernels' twin is ``optimizer.kernels.partition.tells_nothing``."""
    return n > 1 and any(len(part) >= n for part in parts.values())


class Game:
    """Rules of one code-breaking game; subclasses fill in the family specifics."""

    spec: str  # canonical spec string, as the command line accepts it and trees store it
    codes: np.ndarray  # (N, width) int8, lexicographic order
    feedback_names: tuple[str, ...]  # e.g. ("bulls", "cows")
    base: int  # feedback id = sum of counts[i] * base ** (len - 1 - i)
    win: int  # feedback id of a solved game

    # --- sizes ---------------------------------------------------------------------------
    @property
    def n_codes(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_feedback(self) -> int:
        """Number of feedback ids (an upper bound on distinct values, for array sizes)."""
        return self.base ** len(self.feedback_names)

    # --- codes -------------------------------------------------------------------------------
    def format_code(self, index: int) -> str:
        raise NotImplementedError

    def _code_key(self, text: str) -> tuple[int, ...]:
        raise NotImplementedError

    def parse_code(self, text: str) -> int:
        """Code index of ``text``; a GameError names what is wrong."""
        key = self._code_key(text)
        index = self._index().get(key)
        if index is None:
            raise GameError(f"{text!r} is not a code of {self.spec}: {self.code_rule()}")
        return index

    def code_rule(self) -> str:
        raise NotImplementedError

    def _index(self) -> dict[tuple[int, ...], int]:
        cached = getattr(self, "_index_cache", None)
        if cached is None:
            cached = {tuple(int(v) for v in row): i for i, row in enumerate(self.codes)}
            self._index_cache = cached
        return cached

    # --- feedback ----------------------------------------------------------------------------
    def feedback_counts(self, fid: int) -> tuple[int, ...]:
        counts = []
        for _ in self.feedback_names:
            counts.append(fid % self.base)
            fid //= self.base
        return tuple(reversed(counts))

    def feedback_id(self, counts: tuple[int, ...]) -> int:
        fid = 0
        for c in counts:
            fid = fid * self.base + c
        return fid

    def format_feedback(self, fid: int) -> str:
        return " ".join(str(c) for c in self.feedback_counts(fid))

    def parse_feedback(self, text: str) -> int:
        """Feedback id from forgiving input: ``1 2``, ``1,2``, ``1b2c``, ``(1, 2)``."""
        numbers = [int(t) for t in _SPLIT.split(text.strip()) if t != ""]
        names = " ".join(self.feedback_names)
        if len(numbers) != len(self.feedback_names):
            raise GameError(
                f"feedback {text!r} should be {len(self.feedback_names)} numbers ({names})"
            )
        if any(n < 0 or n >= self.base for n in numbers):
            raise GameError(f"feedback {text!r}: each number must be between 0 and {self.base - 1}")
        if sum(numbers) > self.base - 1:
            raise GameError(
                f"feedback {text!r}: the numbers add up to more than {self.base - 1}, "
                f"which cannot happen in {self.spec}"
            )
        return self.feedback_id(tuple(numbers))

    def feedback(self, guess: int, secret: int) -> int:
        """Feedback id of one pair, in plain Python (the player and verifier use it)."""
        raise NotImplementedError

    def feedback_matrix(self) -> np.ndarray:
        """(N, N) uint8 matrix F[guess, secret], built once by a numba kernel and cached."""
        matrix = getattr(self, "_matrix", None)
        if matrix is None:
            matrix = self._build_matrix()
            self._matrix = matrix
        return matrix

    def _build_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def parts(self, guess: int, candidates: np.ndarray) -> dict[int, np.ndarray]:
        """The candidates other than ``guess`` grouped by the feedback ``guess`` gets from them,
        in feedback-id order (the winning block is left out: it is at most the guess itself)."""
        feedback = self.feedback_matrix()[guess, candidates]
        order = np.argsort(feedback, kind="stable")
        values, starts = np.unique(feedback[order], return_index=True)
        ends = list(starts[1:]) + [len(order)]
        return {int(v): np.ascontiguousarray(candidates[order[a:b]])
                for v, a, b in zip(values, starts, ends, strict=True) if v != self.win}

    # --- symmetry ----------------------------------------------------------------------------
    def symmetry(self) -> Symmetry:
        raise NotImplementedError

    def describe(self) -> dict:
        """Facts for ``moo info``."""
        return {"game": self.spec, "codes": self.n_codes, "feedback": " ".join(self.feedback_names)}
