"""The arrays a search kernel needs about a game, gathered once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games import Game
from ..kernels.symmetry import KIND_DIGITS, KIND_PERMS, representative_mask


@dataclass
class Context:
    game: Game
    matrix: np.ndarray  # F[guess, secret] uint8
    matrix_t: np.ndarray  # F transposed, contiguous: the kernels read it one secret at a time
    codes: np.ndarray
    kind: int
    position_perms: np.ndarray
    symbol_class: np.ndarray
    n_symbols: int
    code_perms: np.ndarray

    @classmethod
    def of(cls, game: Game) -> Context:
        sym = game.symmetry()
        matrix = game.feedback_matrix()
        return cls(
            game=game,
            matrix=matrix,
            matrix_t=np.ascontiguousarray(matrix.T),
            codes=game.codes,
            kind=KIND_DIGITS if sym.kind == "digits" else KIND_PERMS,
            position_perms=sym.position_perms,
            symbol_class=sym.symbol_class,
            n_symbols=int(getattr(game, "n_symbols", 1)),
            code_perms=sym.code_perms,
        )

    def representatives(self, guesses: np.ndarray, path: list[int]) -> np.ndarray:
        """The guesses that are the smallest of their orbit, given the guesses made so far."""
        path_arr = np.array(path + [0], dtype=np.int32)
        mask = representative_mask(
            guesses.astype(np.int32), path_arr, len(path), self.codes, self.kind,
            self.position_perms, self.symbol_class, self.n_symbols, self.code_perms,
        )
        return guesses[mask]


def root_classes(game: Game) -> np.ndarray:
    """One code per class of equivalent first guesses."""
    return Context.of(game).representatives(np.arange(game.n_codes, dtype=np.int32), [])
