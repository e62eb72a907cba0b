"""Exact searches driven from Python: minimal height, minimal total, their combinations.

The numba kernels (optimizer.kernels.exact) answer one node at a time and remember what they
learn in transposition tables that live here, so rebuilding a tree after a search is mostly
table look-ups. Trees are rebuilt with the true path of guesses, which the symmetry rule needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..games import Game
from ..kernels import exact as K
from ..tree import Node
from .context import Context


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
        match = re.fullmatch(r"(height|total)(?:,(height|total))?(?:@(\d+))?", text.strip())
        if not match or match.group(1) == match.group(2):
            raise ValueError(
                f"unknown objective {text!r}: use height, total, height,total, total,height "
                "or total@K"
            )
        depth = int(match.group(3)) if match.group(3) else None
        if depth is not None and depth < 1:
            raise ValueError(f"objective {text!r}: the depth limit must be at least 1")
        if depth is not None and match.group(1) == "height":
            raise ValueError(f"objective {text!r}: a depth limit applies to total (total@K)")
        return cls(match.group(1), match.group(2), depth)


class Solver:
    """One game, one guess mode, its tables. ``opts`` switches pruning rules (tests)."""

    def __init__(self, game: Game, guesses: str = "any", opts: int = K.OPT_ALL,
                 table_bits: int = 22):
        if guesses not in ("any", "consistent"):
            raise ValueError("guesses must be 'any' or 'consistent'")
        self.game = game
        self.guesses = guesses
        self.opts = opts
        ctx = Context.of(game)
        self.ctx = ctx
        n = game.n_codes
        values = np.unique(ctx.matrix)
        self.branches = int(np.count_nonzero(values != game.win))
        self.M, self.LB, self.LBN = K.bound_tables(n, self.branches)
        rng = np.random.default_rng(20261122)
        self.z1 = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.z2 = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.all_codes = np.arange(n, dtype=np.int32)
        # dead symbols may stand in for each other only where every position allows every symbol
        ranges = getattr(game, "ranges", None)
        self.dead_ok = bool(ctx.kind == 0 and ranges and len(set(ranges)) == 1)
        self.height_table = K.new_table(table_bits)
        self.total_table = K.new_table(table_bits)
        self.stats = np.zeros(3, dtype=np.int64)
        self.out = np.zeros(1, dtype=np.int64)

    # --- one node ------------------------------------------------------------------------------
    def _path(self, path: list[int]) -> np.ndarray:
        arr = np.zeros(self.game.n_codes + 2, dtype=np.int32)
        arr[: len(path)] = path
        return arr

    def feasible(self, cands: np.ndarray, depth: int, path: list[int] = ()) -> int:
        """A guess that solves ``cands`` within ``depth`` guesses, or -1 when none does."""
        c = self.ctx
        keys, vals = self.height_table
        ok = K.feasible(
            cands, depth, self.branches, self._path(list(path)), len(path), c.matrix, c.matrix_t,
            self.all_codes, c.codes,
            c.kind, c.position_perms, c.symbol_class, c.n_symbols, c.code_perms,
            self.guesses == "consistent", self.game.win, self.game.n_feedback, self.M, self.LB,
            self.z1, self.z2, keys, vals, self.stats, self.opts, self.dead_ok, self.out,
        )
        return int(self.out[0]) if ok else -1

    def min_total(self, cands: np.ndarray, depth: int, beta: int = int(K.INF),
                  path: list[int] = (), branching: int | None = None) -> tuple[int, int]:
        """(least total within ``depth``, a guess achieving it) when below ``beta``;
        otherwise (a proven lower bound >= beta, -1). ``branching``: the most non-winning
        answers any guess gets on a superset of ``cands`` (sharper bounds when known)."""
        c = self.ctx
        keys, vals = self.total_table
        value = K.min_total(
            cands, depth, beta, self.branches if branching is None else branching,
            self._path(list(path)), len(path), c.matrix, c.matrix_t, self.all_codes,
            c.codes, c.kind, c.position_perms, c.symbol_class, c.n_symbols, c.code_perms,
            self.guesses == "consistent", self.game.win, self.game.n_feedback, self.M, self.LB,
            self.LBN, self.z1, self.z2, keys, vals, self.stats, self.opts, self.dead_ok, self.out,
        )
        return int(value), int(self.out[0])

    # --- whole problems --------------------------------------------------------------------
    def root(self) -> np.ndarray:
        return self.all_codes.copy()

    def min_height(self, cands: np.ndarray | None = None, path: list[int] = ()) -> int:
        """Iterative deepening: the first depth that is feasible (the last failure proves it)."""
        cands = self.root() if cands is None else cands
        depth = 1
        while self.M[self.branches, min(depth, K.DCAP)] < len(cands):
            depth += 1
        while self.feasible(cands, depth, path) < 0:
            depth += 1
        return depth

    def height_tree(self, depth: int, cands: np.ndarray | None = None,
                    path: list[int] = ()) -> Node:
        cands = self.root() if cands is None else cands
        guess = self.feasible(cands, depth, path)
        if guess < 0:
            raise RuntimeError(f"no tree of height {depth} exists for these candidates")
        node = Node(guess)
        for fid, part in self.parts(guess, cands).items():
            node.next[fid] = self.height_tree(depth - 1, part, list(path) + [guess])
        return node

    def total_tree(self, depth: int, cands: np.ndarray | None = None,
                   path: list[int] = ()) -> Node:
        cands = self.root() if cands is None else cands
        value, guess = self.min_total(cands, depth, path=path)
        if guess < 0:
            raise RuntimeError(f"no tree of height {depth} exists for these candidates")
        node = Node(guess)
        for fid, part in self.parts(guess, cands).items():
            node.next[fid] = self.total_tree(depth - 1, part, list(path) + [guess])
        return node

    def parts(self, guess: int, cands: np.ndarray) -> dict[int, np.ndarray]:
        """Non-winning parts of ``cands`` under ``guess``."""
        feedback = self.ctx.matrix[guess, cands]
        parts = {}
        for fid in np.unique(feedback):
            if fid != self.game.win:
                parts[int(fid)] = np.ascontiguousarray(cands[feedback == fid])
        return parts
