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

from .base import CODE_DTYPE, Game, GameError, Symmetry, check_size, counted, quote


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
        check_size(spec, count)
        self.codes = _enumerate_codes(self.ranges, distinct)
        self.base = self.positions + 1
        self.win = self.feedback_id((self.positions, 0))
        self._rows = [tuple(row) for row in self.codes.tolist()]
        self._counts = [_symbol_counts(row) for row in self._rows]

    # --- codes -------------------------------------------------------------------------------
    def _code_text(self, index: int) -> str:
        return ("" if self.n_symbols <= 10 else " ").join(map(str, self._rows[index]))

    def _code_key(self, text: str) -> tuple[int, ...]:
        text = text.strip()
        parts = [t for t in re.split(r"[\s,;]+", text) if t]
        if len(parts) == 1 and self.n_symbols <= 10 and _SYMBOL.fullmatch(parts[0]):
            parts = list(parts[0])
        # ASCII digits only (str.isdigit and int() also take other scripts' digits), and no
        # more of them than a symbol can have: nothing long reaches int().
        if not parts or not all(_SYMBOL.fullmatch(p) and len(p) <= 2 for p in parts):
            raise GameError(f"{quote(text)} is not a code of {self.spec}: {self.code_rule()}")
        return tuple(int(p) for p in parts)

    def code_rule(self) -> str:
        if len(set(self.ranges)) == 1:
            where = f"{counted(self.positions, 'symbol')} from 0 to {self.ranges[0] - 1}"
        else:
            where = "position i below " + ",".join(str(r) for r in self.ranges)
        return where + (", all different" if self.distinct else ", repeats allowed")

    # --- feedback ----------------------------------------------------------------------------
    def feedback(self, guess: int, secret: int) -> int:
        # Plain Python on tuples: 4 times faster than numpy on rows this short, which is what
        # lets the player and the verifier replay a 10000-code tree in a fraction of a second.
        bulls = 0
        for a, b in zip(self._rows[guess], self._rows[secret], strict=True):
            if a == b:
                bulls += 1
        cs = self._counts[secret]
        common = 0
        for x, n in self._counts[guess].items():
            m = cs.get(x, 0)
            common += n if n < m else m
        return bulls * self.base + (common - bulls)

    def feedback_rows(self, guesses: np.ndarray) -> np.ndarray:
        return feedback_block(self.codes[guesses], self.codes, self.n_symbols, self.base)

    def _build_matrix(self) -> np.ndarray:
        if self.n_codes <= SMALL_MATRIX:
            return small_feedback_matrix(self.codes, self.n_symbols, self.base)
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


# Up to this many codes the matrix is built by numpy: for Mastermind 4x6 that takes 0.03 s, where
# loading the compiled parallel kernel from numba's cache takes 0.4-0.9 s (most of a small
# game's command). Above it, the kernel's compiled loops win (Bulls and Cows: 25 M entries).
SMALL_MATRIX = 3000


def small_feedback_matrix(codes: np.ndarray, n_symbols: int, base: int) -> np.ndarray:
    """F[guess, secret] = bulls * base + cows by whole-array operations (feedback_block of
    every code)."""
    return feedback_block(codes, codes, n_symbols, base)


def feedback_block(guesses: np.ndarray, codes: np.ndarray, n_symbols: int,
                   base: int) -> np.ndarray:
    """F[g, secret] for the guesses' codes ``guesses`` against ``codes``: bulls are equal
    positions, bulls + cows the common symbols counted with multiplicity (the same rule as
    kernels.feedback.digit_feedback_matrix, which tests compare it with)."""
    def symbol_counts(rows: np.ndarray) -> np.ndarray:
        n, width = rows.shape
        counts = np.zeros((n, n_symbols), dtype=np.uint8)
        np.add.at(counts, (np.repeat(np.arange(n), width), rows.ravel()), 1)
        return counts

    mine, theirs = symbol_counts(guesses), symbol_counts(codes)
    shape = (len(guesses), len(codes))
    bulls = np.zeros(shape, dtype=np.uint8)
    for j in range(codes.shape[1]):
        bulls += guesses[:, None, j] == codes[None, :, j]
    common = np.zeros(shape, dtype=np.uint8)
    for x in range(n_symbols):
        common += np.minimum(mine[:, None, x], theirs[None, :, x])
    return bulls * np.uint8(base - 1) + common


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
    return np.array(list(rows), dtype=CODE_DTYPE).reshape(-1, len(ranges))


_SYMBOL = re.compile(r"[0-9]+")
_PXS = re.compile(r"([0-9]{1,6})x([0-9]{1,6})")  # ASCII, and short enough for int()


def parse_digit_spec(family: str, args: str | None) -> DigitGame:
    """Build a digit game from the part of the spec after the family name."""
    if family == "moo":
        text = args if args is not None else "10,11,12"
        texts = [t.strip() for t in text.split(",")]
        if not all(re.fullmatch(r"[0-9]{1,6}", t) for t in texts):
            raise GameError(f"{quote('moo:' + text)}: ranges are whole numbers separated by commas")
        ranges = tuple(int(t) for t in texts)
        return DigitGame("moo:" + ",".join(map(str, ranges)), ranges, distinct=True)
    default = "4x10" if family == "bulls-cows" else "4x6"
    match = _PXS.fullmatch(args if args is not None else default)
    if not match:
        letter = "S" if family == "bulls-cows" else "C"
        raise GameError(
            f"{quote(f'{family}:{args}')}: expected {family}:Px{letter}, e.g. {family}:{default}"
        )
    positions, symbols = int(match.group(1)), int(match.group(2))
    spec = f"{family}:{positions}x{symbols}"
    if family == "bulls-cows":
        if positions > symbols:
            raise GameError(f"{spec}: {positions} distinct symbols cannot come from {symbols}")
        return DigitGame(spec, (symbols,) * positions, distinct=True)
    return DigitGame(spec, (symbols,) * positions, distinct=False, names=("black", "white"))
