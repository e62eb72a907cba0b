"""What a build is asked for, in one value: the game, an exact objective or a greedy strategy, the
guess mode, the limits and the engine's options. ``build.build(request)`` turns it into a checked
tree; ``objectives.Search(request)`` runs its exact searches (a request without an objective
serves searches asked for step by step: ``moo prove``, ``moo checkpoint verify``). Every
inconsistency is refused here, before any work (ValueError, exit status 2 at the command line)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..games import Game
from ..games.base import check_guess_mode

GREEDY_DEFAULT = "first-consistent"
TABLE_BITS = (16, 28)  # what --table-bits may ask: 2^16 to 2^28 slots (48 bytes each, 12 GB)


@dataclass(frozen=True)
class Request:
    game: Game
    objective: str | None = None  # an exact objective (objective.Objective), or None: greedy
    strategy: str | None = None  # a greedy strategy (strategies.STRATEGIES); None: the default
    guesses: str = "any"  # games.base.GUESS_MODES: any, consistent or hard (word games)
    seed: int = 0  # of the random strategies
    time_limit: float | None = None  # seconds, counted from ``started``
    started: float | None = None  # time.monotonic() of the start (None: when the search opens)
    workers: int | None = None  # engine.open_engine
    scheduler: str | None = None
    checkpoint: str | None = None  # a checkpoint file's path
    lookahead: int = 0  # levels of the lookahead bound raised at the root
    improve: float = 0.0  # seconds spent on a better tree to beat first (rollouts, polish)
    first: str | None = None  # an opening: the best trees that start with this code only
    gap: float = 0.0  # percent: the least total proven within this of the best tree, not exact
    table_bits: int | None = None  # transposition tables of 2^this slots (None: the game's)

    def __post_init__(self):
        check_guess_mode(self.game, self.guesses)
        if self.objective is not None and self.strategy is not None:
            raise ValueError("give an exact objective or a greedy strategy, not both")
        if self.lookahead < 0:
            raise ValueError("--lookahead must be 0 or more levels")
        if self.improve < 0:
            raise ValueError("--improve must be 0 or more seconds")
        if not 0 <= self.gap <= 100:
            raise ValueError("--gap must be a percentage from 0 to 100")
        least, most = TABLE_BITS
        if self.table_bits is not None and not least <= self.table_bits <= most:
            raise ValueError(f"--table-bits must be {least} to {most}")
        if self.first is not None:
            opening = self.opening()  # GameError for a code the game does not have
            if self.guesses == "consistent" and opening >= self.game.n_secrets:
                raise ValueError(f"--first {self.first}: with --guesses consistent the first "
                                 f"guess must be a possible secret, and {self.first} is only "
                                 "allowed as a guess")
            if opening >= self.game.n_secrets > 1 and self._tells_nothing(opening):
                raise ValueError(f"--first {self.first}: every secret gives it the same answer, "
                                 "so it tells them nothing apart: no optimal tree opens with it")
            if self.objective is None:
                raise ValueError("--first goes with an exact objective (--objective)")
            if self.checkpoint is not None or self.improve:
                raise ValueError("--first cannot go with --checkpoint or --improve: their facts "
                                 "and trees are about every opening")

    def _tells_nothing(self, guess: int) -> bool:
        """Whether every secret gives ``guess`` one answer (its one feedback row, numpy alone)."""
        row = self.game.feedback_rows(np.array([guess]))[0]
        return bool((row == row[0]).all())

    def opening(self) -> int | None:
        """The code index of ``first`` (None: every opening)."""
        return None if self.first is None else self.game.parse_code(self.first)

    @property
    def exact(self) -> bool:
        return self.objective is not None

    def check_greedy(self) -> None:
        """A greedy build (no objective) refuses the exact search's options."""
        if self.lookahead or self.improve or self.gap or self.table_bits is not None:
            raise ValueError("--lookahead, --improve, --gap and --table-bits apply to exact "
                             "objectives (--objective), not to greedy strategies")
        if self.workers is not None or self.scheduler is not None:
            raise ValueError("--workers and --scheduler apply to exact objectives (--objective): "
                             "a greedy strategy is built in this process")
        if self.checkpoint is not None:
            raise ValueError("--checkpoint goes with an exact objective")

    def check_engine(self) -> None:
        """EngineError, before any work, for engine settings that cannot run
        (engine.engine_plan: an address Dask cannot take, more workers than this machine
        holds, tables larger than its memory)."""
        from .engine import check_table_bits, engine_plan

        engine_plan(self.game, self.workers, self.scheduler, self.table_bits)
        if self.table_bits is not None:
            check_table_bits(self.game, self.table_bits)

    def deadline(self) -> float | None:
        """The time limit as a time.monotonic() value (from ``started``, else from now)."""
        if self.time_limit is None:
            return None
        return (self.started if self.started is not None else time.monotonic()) + self.time_limit
