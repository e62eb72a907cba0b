"""Digit games: Bulls and Cows (distinct symbols), Mastermind (repeats), moo over mixed ranges.

All three score a guess the same way: bulls (black) are equal positions, cows (white) are common
symbols counted with multiplicity minus the bulls; with distinct symbols this is the usual rule.
They differ only in which codes exist, which is what this module encodes.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np

from .base import Game, GameError, Symmetry

MAX_CODES = 40_000  # the feedback matrix is N x N bytes: 40000 codes take 1.6 GB


class DigitGame(Game):
    """Codes are tuples of symbols; ``ranges[i]`` bounds position i; ``distinct`` forbids
    repeats."""

    feedback_names = ("bulls", "cows")

    def __init__(self, spec: str, ranges: tuple[int, ...], distinct: bool, names=None):
        if not ranges or len(ranges) > 8:
            raise GameError(f"{spec}: a code needs between 1 and 8 positions")
        if min(ranges) < 1 or max(ranges) > 36:
            raise GameError(f"{spec}: each position needs between 1 and 36 symbols")
        self.spec = spec
        self.ranges = tuple(ranges)
        self.distinct = distinct
        self.n_symbols = max(ranges)
        self.positions = len(ranges)
        if names is not None:
            self.feedback_names = names
        count = _count_codes(self.ranges, distinct)
        if count == 0:
            raise GameError(f"{spec}: no code has distinct symbols within these ranges")
        if count > MAX_CODES:
            raise GameError(f"{spec}: {count} codes is more than this tool handles ({MAX_CODES})")
        self.codes = _enumerate_codes(self.ranges, distinct)
        self.base = self.positions + 1
        self.win = self.feedback_id((self.positions, 0))
        self._counts = [_symbol_counts(row) for row in self.codes.tolist()]

    # --- codes -------------------------------------------------------------------------------
    def format_code(self, index: int) -> str:
        row = self.codes[index]
        if self.n_symbols <= 10:
            return "".join(str(int(v)) for v in row)
        return " ".join(str(int(v)) for v in row)

    def _code_key(self, text: str) -> tuple[int, ...]:
        text = text.strip()
        parts = [t for t in re.split(r"[\s,;]+", text) if t]
        if len(parts) == 1 and self.n_symbols <= 10 and parts[0].isdigit():
            parts = list(parts[0])
        if not all(p.isdigit() for p in parts):
            raise GameError(f"{text!r} is not a code of {self.spec}: {self.code_rule()}")
        return tuple(int(p) for p in parts)

    def code_rule(self) -> str:
        if len(set(self.ranges)) == 1:
            where = f"{self.positions} symbols from 0 to {self.ranges[0] - 1}"
        else:
            where = "position i below " + ",".join(str(r) for r in self.ranges)
        return where + (", all different" if self.distinct else ", repeats allowed")

    # --- feedback ----------------------------------------------------------------------------
    def feedback(self, guess: int, secret: int) -> int:
        g, s = self.codes[guess], self.codes[secret]
        bulls = int(np.count_nonzero(g == s))
        cg, cs = self._counts[guess], self._counts[secret]
        common = sum(min(n, cs.get(x, 0)) for x, n in cg.items())
        return bulls * self.base + (common - bulls)

    def _build_matrix(self) -> np.ndarray:
        from ..kernels.feedback import digit_feedback_matrix

        return digit_feedback_matrix(self.codes, self.n_symbols, self.base)

    # --- symmetry ----------------------------------------------------------------------------
    def symmetry(self) -> Symmetry:
        perms = [
            p
            for p in itertools.permutations(range(self.positions))
            if all(self.ranges[p[j]] == self.ranges[j] for j in range(self.positions))
        ]
        # A symbol may only be exchanged with one that is allowed at exactly the same positions.
        masks = [
            sum(1 << j for j, r in enumerate(self.ranges) if x < r) for x in range(self.n_symbols)
        ]
        labels = {m: i for i, m in enumerate(sorted(set(masks)))}
        symbol_class = np.array([labels[m] for m in masks], dtype=np.int8)
        sizes = sorted(np.bincount(symbol_class).tolist(), reverse=True)
        text = (
            f"{len(perms)} position permutation(s) x symbol relabellings within classes of sizes "
            f"{sizes} (group order {len(perms) * math.prod(math.factorial(s) for s in sizes)})"
        )
        return Symmetry(
            kind="digits",
            position_perms=np.array(perms, dtype=np.int8).reshape(len(perms), self.positions),
            symbol_class=symbol_class,
            code_perms=np.zeros((0, 0), dtype=np.int32),
            description=text,
        )


def _symbol_counts(row: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for v in row:
        counts[v] = counts.get(v, 0) + 1
    return counts


def _count_codes(ranges: tuple[int, ...], distinct: bool) -> int:
    if not distinct:
        return math.prod(ranges)
    # Place positions from the narrowest range up: each excludes one symbol of the wider ones.
    count = 1
    for used, r in enumerate(sorted(ranges)):
        count *= max(r - used, 0)
    return count


def _enumerate_codes(ranges: tuple[int, ...], distinct: bool) -> np.ndarray:
    rows = itertools.product(*(range(r) for r in ranges))
    if distinct:
        rows = (row for row in rows if len(set(row)) == len(row))
    return np.array(list(rows), dtype=np.int8).reshape(-1, len(ranges))


_PXS = re.compile(r"^(\d+)x(\d+)$")


def parse_digit_spec(family: str, args: str | None) -> DigitGame:
    """Build a digit game from the part of the spec after the family name."""
    if family == "moo":
        text = args if args is not None else "10,11,12"
        try:
            ranges = tuple(int(t) for t in text.split(","))
        except ValueError:
            raise GameError(f"moo:{text}: ranges are whole numbers separated by commas") from None
        return DigitGame("moo:" + ",".join(map(str, ranges)), ranges, distinct=True)
    default = "4x10" if family == "bulls-cows" else "4x6"
    match = _PXS.match(args if args is not None else default)
    if not match:
        letter = "S" if family == "bulls-cows" else "C"
        raise GameError(
            f"{family}:{args}: expected {family}:Px{letter}, e.g. {family}:{default}"
        )
    positions, symbols = int(match.group(1)), int(match.group(2))
    spec = f"{family}:{positions}x{symbols}"
    if family == "bulls-cows":
        if positions > symbols:
            raise GameError(f"{spec}: {positions} distinct symbols cannot come from {symbols}")
        return DigitGame(spec, (symbols,) * positions, distinct=True)
    return DigitGame(spec, (symbols,) * positions, distinct=False, names=("black", "white"))
