"""The seed 003 search game: K ships on an R x C board, a guess names K different squares.

Feedback counts each guessed square once, by its distance to the closest ship (Chebyshev, so the
eight neighbours are at distance 1): exact, one away, two away. A code is a set of K squares; its
notation lists the squares as column letter + row number, sorted by column then row ("A1 C3 H2").
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np

from .base import CODE_DTYPE, Game, GameError, Symmetry, check_size, quote


class Battleship(Game):
    feedback_names = ("exact", "one-away", "two-away")

    def __init__(self, rows: int, columns: int, ships: int):
        self.spec = f"battleship:{rows}x{columns}x{ships}"
        if not (1 <= rows <= 9 and 1 <= columns <= 26):
            raise GameError(f"{self.spec}: the board needs 1-9 rows and 1-26 columns")
        squares = rows * columns
        if not 1 <= ships <= min(squares, 5):
            # feedback ids are bytes: (K + 1) ** 3 of them must stay below 256
            raise GameError(f"{self.spec}: between 1 and {min(squares, 5)} ships are supported")
        self.rows, self.columns, self.ships = rows, columns, ships
        check_size(self.spec, math.comb(squares, ships))  # before any placement is listed
        # Square id = column * rows + row, so id order is "by column, then row".
        combos = list(itertools.combinations(range(squares), ships))
        self.codes = np.array(combos, dtype=CODE_DTYPE).reshape(-1, ships)
        self.base = ships + 1
        self.win = self.feedback_id((ships, 0, 0))
        col, row = np.divmod(np.arange(squares), rows)
        self.distance = np.maximum(
            np.abs(col[:, None] - col[None, :]), np.abs(row[:, None] - row[None, :])
        ).astype(np.int8)
        self._rows = [tuple(row) for row in self.codes.tolist()]
        self._distance = self.distance.tolist()
        self._weights_of: dict[int, bytes] = {}  # by secret (feedback)

    # --- codes -------------------------------------------------------------------------------
    def square_name(self, square: int) -> str:
        column, row = divmod(int(square), self.rows)
        return f"{chr(ord('A') + column)}{row + 1}"

    def _code_text(self, index: int) -> str:
        return " ".join(self.square_name(q) for q in self._rows[index])

    def _code_key(self, text: str) -> tuple[int, ...]:
        names = [t for t in re.split(r"[\s,;]+", text.strip().upper()) if t]
        squares = []
        for name in names:
            match = re.fullmatch(r"([A-Z])([0-9])", name)  # ASCII: rows are 1 to 9
            if not match:
                raise GameError(self._not_a_square(name))
            column, row = ord(match.group(1)) - ord("A"), int(match.group(2)) - 1
            if not (0 <= column < self.columns and 0 <= row < self.rows):
                raise GameError(self._not_a_square(name))
            squares.append(column * self.rows + row)
        if len(set(squares)) != len(squares):
            raise GameError(f"{quote(text)}: the squares of a guess must be different")
        return tuple(sorted(squares))

    def _not_a_square(self, name: str) -> str:
        return f"{quote(name)} is not a square of {self.spec} (A1 to {self._last()})"

    def _last(self) -> str:
        return self.square_name(self.rows * self.columns - 1)

    def code_rule(self) -> str:
        squares = "1 square" if self.ships == 1 else f"{self.ships} different squares"
        return f"{squares} from A1 to {self._last()}"

    # --- feedback ----------------------------------------------------------------------------
    def feedback(self, guess: int, secret: int) -> int:
        weights = self._weights_of.get(secret)
        if weights is None:
            weights = self._weights_of[secret] = self._square_weights(secret)
        return sum(map(weights.__getitem__, self._rows[guess]))

    def _square_weights(self, secret: int) -> bytes:
        """What each square adds to a guess's feedback id against ``secret`` (feedback_rows'
        weights, at most 36), kept per secret met: replaying a checkpoint's 2420 trees asks
        583,800 pairs of 4960 secrets, each of which took nine distances and three minima."""
        ships = self._rows[secret]
        out = []
        for near in self._distance:
            d = min(near[s] for s in ships)
            out.append(self.base ** (2 - d) if d <= 2 else 0)
        return bytes(out)

    def feedback_rows(self, guesses: np.ndarray) -> np.ndarray:
        """Each guessed square adds base^2, base or 1 by its distance to the closest ship (0, 1
        or 2; nothing farther): a table of those weights per square and secret, summed over
        the guess's squares."""
        table = getattr(self, "_weights", None)
        if table is None:
            table = self._weights = self._saying_weights()[self._sayings()]
        squares = self.codes[guesses]
        out = table[squares[:, 0]]
        for j in range(1, self.ships):
            out += table[squares[:, j]]
        return out

    def square_answers(self) -> tuple[np.ndarray, np.ndarray] | None:
        if self.ships != 3:
            return None
        return np.ascontiguousarray(self._sayings().T), self._saying_weights().astype(np.int64)

    def _sayings(self) -> np.ndarray:
        """(squares, N) uint8: what each square says of each secret, its distance to the
        closest ship, 3 standing for any farther."""
        near = self.distance[:, self.codes].min(axis=2)
        return np.minimum(near, 3).astype(np.uint8)

    def _saying_weights(self) -> np.ndarray:
        """(4,) uint8: what each saying of _sayings adds to a feedback id."""
        return np.array([self.base ** 2, self.base, 1, 0], dtype=np.uint8)

    def _build_matrix(self) -> np.ndarray:
        """By numpy, a block of rows at a time (16 MB of temporaries at most): 0.04 s for the
        default board, where loading the parallel kernel (kernels.feedback, which tests
        compare it with) took 0.3 s."""
        n = self.n_codes
        out = np.empty((n, n), dtype=np.uint8)
        step = max(1, (1 << 24) // n)
        for start in range(0, n, step):
            out[start:start + step] = self.feedback_rows(np.arange(start, min(n, start + step)))
        return out

    # --- symmetry ----------------------------------------------------------------------------
    def symmetry(self) -> Symmetry:
        """The board's mirror images (a square board's rotations are left out: they would need
        the board's rows and columns to be exchangeable, which only holds for R == C)."""
        squares = np.arange(self.rows * self.columns)
        col, row = np.divmod(squares, self.rows)
        mirrors = []
        for flip_col, flip_row in ((False, False), (True, False), (False, True), (True, True)):
            c = self.columns - 1 - col if flip_col else col
            r = self.rows - 1 - row if flip_row else row
            mirrors.append(c * self.rows + r)
        # A code's image is its squares' images, sorted: found among the codes (which are in
        # lexicographic order) by its number in base (squares).
        weights = len(squares) ** np.arange(self.ships - 1, -1, -1, dtype=np.int64)
        keys = self.codes.astype(np.int64) @ weights
        perms = np.empty((len(mirrors), self.n_codes), dtype=np.int32)
        for m, image in enumerate(mirrors):
            perms[m] = np.searchsorted(keys, np.sort(image[self.codes], axis=1) @ weights)
        return Symmetry(
            kind="perms",
            position_perms=np.zeros((0, 0), dtype=np.int8),
            symbol_class=np.zeros(0, dtype=np.int8),
            code_perms=perms,
            description=f"{len(mirrors)} mirror images of the board",
        )
