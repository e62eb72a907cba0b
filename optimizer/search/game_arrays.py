"""The arrays a game hands the kernels, beside its feedback matrices: the fields of the bundles
(kernels/bundles.py) that NodeSolver builds once per game and guess mode. Plain numpy: the
kernels take them as they are.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..kernels.bundles import MASK_DEPTH, Orbits
from ..kernels.scoring import SQUARES_FROM, VALUES
from ..kernels.symmetry import KIND_DIGITS, KIND_PERMS


def guess_marks(game: Game, n_answers: int, guesses: str) -> np.ndarray:
    """(nf, L) int8: the marks of each of the kernels' feedback ids (answer_matrices renumbers
    the game's ids densely, in order), for hard mode; empty otherwise."""
    if guesses != "hard":
        return np.zeros((0, 0), dtype=np.int8)
    ids = game.answer_ids()
    assert len(ids) == n_answers, "the kernels' feedback ids are the ids that occur"
    return np.array([game.feedback_counts(int(f)) for f in ids], dtype=np.int8)


def square_reach(answer: np.ndarray, win: int, n_answers: int) -> np.ndarray:
    """Problem.square_reach: for three masks of values, how many answers other than the win
    (dense id ``win``, which no guess outside the candidates gets) the ways they allow map to
    (answer: the dense id of each of the 64 ways)."""
    masks = np.arange(1 << VALUES)
    allows = (masks[:, None] >> np.arange(VALUES)[None, :]) & 1  # (16, VALUES)
    ways = (allows[:, None, None, :, None, None] & allows[None, :, None, None, :, None]
            & allows[None, None, :, None, None, :]).reshape(1 << 3 * VALUES, VALUES ** 3)
    onehot = np.zeros((VALUES ** 3, n_answers), dtype=np.float32)  # exact: sums of 64 ones
    onehot[np.arange(VALUES ** 3), answer] = 1
    reached = (ways.astype(np.float32) @ onehot) > 0  # float32: a third of int64's time
    reached[:, win] = False
    return reached.sum(axis=1).astype(np.int64)


def square_fields(game: Game) -> tuple[tuple, np.ndarray]:
    """(Problem's scoring-by-squares fields, Run's scratch for it): empty arrays for a game
    without it (Game.square_answers)."""
    said = game.square_answers()
    if said is None:
        return ((np.zeros((0, 0), dtype=np.uint8), np.zeros((0, 3), dtype=np.int16),
                 np.zeros(0, dtype=np.int64), SQUARES_FROM, np.zeros(0, dtype=np.int64)),
                np.zeros((0, VALUES, 0), dtype=np.uint64))
    values, weights = said
    ways = (weights[:, None, None] + weights[None, :, None] + weights[None, None, :]).ravel()
    ids = game.answer_ids()  # the game's id of each dense id, in order
    win = int(np.searchsorted(ids, game.win))
    answer = np.minimum(np.searchsorted(ids, ways), ids.shape[0] - 1)
    # a way no secret has: its count is always 0; the win's id keeps it out of square_reach
    answer[ids[answer] != ways] = win
    words = (game.n_secrets + 63) // 64
    return ((values, game.codes.astype(np.int16), answer.astype(np.int64), SQUARES_FROM,
             square_reach(answer, win, len(ids))),
            np.zeros((values.shape[1], VALUES, words), dtype=np.uint64))


def orbits_of(game: Game) -> Orbits:
    """The symmetry group as the kernels take it (bundles.Orbits)."""
    sym = game.symmetry()
    ranges = getattr(game, "ranges", None)
    return Orbits(
        codes=game.codes,
        kind=KIND_DIGITS if sym.kind == "digits" else KIND_PERMS,
        position_perms=sym.position_perms,
        symbol_class=sym.symbol_class,
        n_symbols=int(getattr(game, "n_symbols", 1)),
        code_perms=sym.code_perms,
        # dead symbols may stand in for each other only where every position allows every symbol
        dead_ok=bool(sym.kind == "digits" and ranges and len(set(ranges)) == 1),
    )


def memo_arrays(orbits: Orbits) -> tuple[np.ndarray, ...]:
    """The Run's memo of what each path length's guesses allow (bundles.Run)."""
    perms, symbols = max(1, orbits.position_perms.shape[0]), max(1, orbits.n_symbols)
    width = orbits.position_perms.shape[1]
    n = orbits.codes.shape[0]
    return (np.zeros((MASK_DEPTH, MASK_DEPTH + 3), dtype=np.int32),
            np.zeros((MASK_DEPTH, n), dtype=np.bool_),
            np.zeros((MASK_DEPTH, n), dtype=np.int32),
            np.zeros((MASK_DEPTH, perms, width), dtype=np.int8),
            np.zeros((MASK_DEPTH, perms, symbols), dtype=np.int16),
            np.zeros((MASK_DEPTH, symbols), dtype=np.bool_))
