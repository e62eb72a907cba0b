"""One game, one guess mode, its transposition tables: the exact searches for single nodes, in the
process that owns the solver, and trees rebuilt from what they learnt.

The numba kernels (optimizer.kernels.height and .total) answer one node at a time and remember
what they learn in the tables kept here, so rebuilding a tree after a search is mostly table
look-ups. Trees are rebuilt with the true path of guesses, which the symmetry rule needs.
Worker threads of one engine each have a solver of their own (its stop flag, its scratch), built
with ``share`` so that all of them use one set of tables.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..games import Game
from ..games.base import check_guess_mode
from ..kernels.bounds import bound_tables
from ..kernels.bundles import (
    DCAP,
    INF,
    OPT_ALL,
    OPT_SYMMETRY,
    ST_NODES,
    Problem,
    Run,
    Table,
)
from ..kernels.height import feasible, rank_height
from ..kernels.heuristics import ENTROPY, greedy_total
from ..kernels.lookahead import lookahead
from ..kernels.symmetry import representative_mask
from ..kernels.table import clear, new_table, shared_table
from ..kernels.table import table_bits as default_table_bits
from ..kernels.total import min_total, rank_total
from ..tree import Node
from .game_arrays import guess_marks, memo_arrays, orbits_of, square_fields
from .observer import compiling

HASH_SEED = 20261122
# the kernels of each search, as warm_up compiles them: the height search's (with the guess
# pools every search uses), the least cost's, the lookahead bound's; and the rollouts' (LOCAL)
KERNELS = ("height", "total", "lookahead")
LOCAL = ("rollout",)  # run by the command itself (--improve), never by a worker's job: warmed
# only when asked for by name, never by default
# What each is called while numba compiles it on an empty cache (observer.compiling): the first
# run would otherwise be silent that long.
COMPILING = {"height": "the least-height search's kernels",
             "total": "the least-cost search's kernels",
             "lookahead": "the lookahead bound's kernels",
             "rollout": "the rollouts' kernel"}


@dataclass(frozen=True)
class SolverKey:
    """Everything a solver's answers depend on: what a worker needs to build the same solver."""

    game: str  # spec
    guesses: str = "any"
    opts: int = OPT_ALL
    table_bits: int | None = None  # kernels.table.table_bits of the game when None
    counting: bool = True  # counting bounds (off only in tests)
    words: str = ""  # a word game's lists' digest (WordGame.digest), which the spec may not give

    def build(self, game: Game | None = None) -> NodeSolver:
        """The solver of this key; ``game``: the key's game when the spec cannot rebuild it
        here (a word game shipped to a Dask worker)."""
        from ..games import parse_game

        game = game if game is not None else parse_game(self.game)
        return NodeSolver(game, self.guesses, self.opts, self.table_bits, self.counting)


class NodeSolver:
    """``opts`` switches pruning rules and ``counting`` the counting bounds (tests compare each
    with the plain search). ``share``: a solver of the same key in this process whose tables
    (and bounds) this one uses too, with a stop flag and scratch of its own: the engine's worker
    threads share one table, so that a part asked again finds what any of them proved."""

    def __init__(self, game: Game, guesses: str = "any", opts: int = OPT_ALL,
                 table_bits: int | None = None, counting: bool = True,
                 share: NodeSolver | None = None):
        check_guess_mode(game, guesses)
        self.game, self.guesses = game, guesses
        n = game.n_codes  # guesses: the scoring scratch is per guess
        table_bits = table_bits or default_table_bits(game.n_secrets)
        self.key = SolverKey(game.spec, guesses, opts, table_bits, counting, game.digest)
        self._share = share
        self.stop = np.zeros(1, dtype=np.int8)
        if share is not None:
            assert share.key == self.key, "tables are shared between solvers of one key only"
            # the kernels only read these: one copy per process, not per worker thread
            self.problem, self.orbits, self.bounds = share.problem, share.orbits, share.bounds
            square_sets = np.zeros_like(share.run.square_sets)
            self.height_table = shared_table(share.height_table, self.stop)
        else:
            self.problem, square_sets = self._new_problem(game, guesses)
            self.orbits = orbits_of(game)
            # the total's bounds (and M: the height's), by number of candidates
            self.bounds = bound_tables(game.n_secrets, self.problem.nf - 1, counting)
            self.height_table = self._new_table()
        self.all_codes = self.problem.all_codes
        n_answers = self.problem.nf
        self.branches = n_answers - 1  # every answer but the win occurs
        # least-cost searches (bounds.COSTS): bounds and table each, built on first use
        self._costs: dict[str, tuple] = {}
        self._costs_lock = threading.Lock()  # a shared solver's are built from other threads
        self.total_table = self.cost("total")[1]
        self.stats = np.zeros(3, dtype=np.int64)
        self.run = Run(opts, self.stats, np.zeros(1, dtype=np.int64),
                       np.zeros((n, n_answers), dtype=np.uint16),
                       np.zeros((n, n_answers), dtype=np.uint8),
                       np.zeros((4, n), dtype=np.int64), square_sets,
                       *memo_arrays(self.orbits))
        self._lock = threading.Lock()
        self._job = None  # the id of the job running on this solver, for cancel()

    @staticmethod
    def _new_problem(game: Game, guesses: str) -> tuple[Problem, np.ndarray]:
        """(the kernels' read-only arrays of the game, the scoring-by-squares scratch)."""
        matrix, transposed, win, n_answers = game.answer_matrices()
        squares, square_sets = square_fields(game)
        return Problem(matrix, transposed, np.arange(game.n_codes, dtype=np.int32), win,
                       n_answers, guesses == "consistent", guesses == "hard",
                       guess_marks(game, n_answers, guesses), *squares), square_sets

    @property
    def opts(self) -> int:
        return self.run.opts

    @property
    def nodes(self) -> int:
        return int(self.stats[ST_NODES])

    # --- jobs and cancellation ----------------------------------------------------------------
    def start(self, job_id, cancelled=()) -> bool:
        """A job begins: the stop flag of the previous one is cleared, or set if the job is in
        ``cancelled`` (a cancel that came after the worker took the job but before this call
        found no job of that id running; the engine notes such ids there first). Whether it
        is stopped already."""
        with self._lock:
            self._job = job_id
            self.stop[0] = int(job_id in cancelled)
            return bool(self.stop[0])

    def finish(self) -> bool:
        """A job ends; whether it was cancelled while running (its answers are then not facts).
        The flag is cleared: the caller's own solver also serves calls outside jobs (the
        rollouts of --improve after a height search, which once found it set and failed)."""
        with self._lock:
            self._job = None
            stopped = bool(self.stop[0])
            self.stop[0] = 0
            return stopped

    def cancel(self, job_ids) -> bool:
        """Stop the running job if it is one of ``job_ids`` (from another thread); the kernels
        return at their next node and store nothing more."""
        with self._lock:
            if self._job is not None and self._job in job_ids:
                self.stop[0] = 1
                return True
        return False

    def forget(self) -> None:
        """Empty both tables (a fresh start for benchmarks)."""
        clear(self.height_table)
        for _, table in self._costs.values():
            clear(table)

    # --- one node ------------------------------------------------------------------------------
    def _path(self, path, cands: np.ndarray | None = None) -> np.ndarray:
        """The guesses that led to ``cands``, as the kernels take them. The kernels' symmetry
        and hard-mode rules read the node from them: a part below the root with no path is
        refused here while symmetry is on (its rule would index past the kernels' arrays)."""
        if (cands is not None and len(path) == 0 and len(cands) != self.game.n_secrets
                and self.run.opts & OPT_SYMMETRY):
            raise ValueError("a part below the root needs the guesses that led to it (path)")
        arr = np.zeros(self.game.n_codes + 2, dtype=np.int32)
        arr[: len(path)] = path
        return arr

    def _only(self, only) -> np.ndarray:
        return np.asarray(only if only is not None else (), dtype=np.int32)

    def feasible(self, cands: np.ndarray, depth: int, path=(), bmax: int | None = None,
                 only=None) -> int:
        """A guess that solves ``cands`` within ``depth`` guesses, or -1 when none does.
        ``only``: try just these guesses (a slice of ``rank_height``'s, ``bmax`` its branching)."""
        bmax = self.branches if bmax is None else bmax
        ok = feasible(self.problem, self.orbits, self.bounds, self.height_table, self.run,
                      cands, depth, bmax, self._path(path, cands), len(path), self._only(only))
        return int(self.run.out[0]) if ok else -1

    def cost(self, cost: str):
        """(bounds, table) of a least-cost objective: "total", "deepest" or "deep"."""
        with self._costs_lock:
            if cost not in self._costs:
                self._costs[cost] = self._new_cost(cost)
            return self._costs[cost]

    def _new_cost(self, cost: str) -> tuple:
        if self._share is not None:
            bounds, table = self._share.cost(cost)
            return bounds, shared_table(table, self.stop)
        key, game = self.key, self.game
        bounds = self.bounds if cost == "total" else bound_tables(
            game.n_secrets, self.branches, key.counting, cost)
        return bounds, self._new_table()

    def _new_table(self) -> Table:
        return new_table(self.key.table_bits, self.game.n_codes, HASH_SEED, self.stop)

    def min_total(self, cands: np.ndarray, depth: int, beta: int = int(INF), path=(),
                  bmax: int | None = None, only=None, cost: str = "total") -> tuple[int, int]:
        """(least total within ``depth``, a guess achieving it) when below ``beta``; otherwise
        (a proven lower bound >= beta, -1). ``bmax``: the most non-winning answers any guess gets
        on a superset of ``cands`` (sharper bounds when known). ``only``: trees opening with one
        of these guesses (in ``rank_total``'s order) only."""
        bounds, table = self.cost(cost)
        value = min_total(self.problem, self.orbits, bounds, table, self.run,
                          cands, depth, beta, self.branches if bmax is None else bmax,
                          self._path(path, cands), len(path), self._only(only))
        return int(value), int(self.run.out[0])

    def lookahead(self, cands: np.ndarray, depth: int, levels: int, beta: int = int(INF),
                  path=(), bmax: int | None = None, cost: str = "total") -> int:
        """A lower bound on the least cost of ``cands`` within ``depth``, ``levels`` guesses
        deep (kernels.lookahead); once it is shown to reach ``beta``, some value >= beta."""
        bounds, table = self.cost(cost)
        return int(lookahead(self.problem, self.orbits, bounds, table, self.run, cands, depth,
                             levels, beta, self.branches if bmax is None else bmax,
                             self._path(path, cands), len(path)))

    def counting(self, size: int, depth: int, cost: str = "total") -> int:
        """The counting bound of ``size`` candidates within ``depth`` guesses (bounds.py): what
        a set of that size costs at least, before any search."""
        bounds, _ = self.cost(cost)
        return int(bounds.LB[self.branches, size, min(depth, DCAP)])

    def separation(self, cands: np.ndarray, depth: int, path=(), cost: str = "total") -> int:
        """A lower bound on the least cost of ``cands`` within ``depth`` from the height search,
        for the costs that count the secrets at the last level: when the candidates cannot all
        be told apart within ``depth - 1`` guesses, one of them takes all ``depth``, which costs
        the last level's weight on top of the total's counting bound. 0 when they can (or the
        cost does not count that level). A cancelled job's answer is no bound (jobs.run_job)."""
        bounds, _ = self.cost(cost)
        if bounds.last_cost == 0 or depth < 2 or len(cands) < 2:
            return 0  # one or two guesses left: the counting bound is already this one
        if self.feasible(cands, depth - 1, path) >= 0:
            return 0
        return int(bounds.last_cost + bounds.guess_cost * self.counting(len(cands), depth))

    def greedy_total(self, cands: np.ndarray, rule: int = ENTROPY) -> tuple[int, int]:
        """(total, height) of ``rule``'s greedy tree on ``cands`` (kernels.heuristics), not
        built: a quick upper bound on their least total."""
        matrix, transposed, win, n_answers = self.game.answer_matrices()
        total, height = greedy_total(matrix, transposed, cands, self.all_codes,
                                     self.guesses != "any", rule, win, n_answers)
        return int(total), int(height)

    def rank_height(self, cands: np.ndarray, depth: int, path=()) -> tuple[list[int], int]:
        """(the node's guesses in the height search's order, the node's branching)."""
        ranked, _, branching, _ = rank_height(self.problem, self.orbits, self.bounds, self.run,
                                              cands, depth, self.branches, self._path(path, cands),
                                              len(path))
        return [int(g) for g in ranked], int(branching)

    def rank_total(self, cands: np.ndarray, depth: int, path=(), beta: int = int(INF),
                   cost: str = "total") -> tuple[list[tuple[int, int]], int, bool]:
        """([(one-step bound, guess), ...] in the total search's order, the node's branching,
        whether every allowed guess was scored) for a node of more than two candidates."""
        bounds, _ = self.cost(cost)
        if bounds.last_cost == 0:
            depth = min(depth, len(cands))
        lb0 = self.counting(len(cands), depth, cost)
        ranked, bound, _, _, branching, complete, solved = rank_total(
            self.problem, self.orbits, bounds, self.run, cands, depth, beta, self.branches,
            lb0, self._path(path, cands), len(path))
        return ([(int(b), int(g)) for b, g in zip(bound, ranked, strict=True)], int(branching),
                bool(complete) or solved >= 0)

    def warm_up(self, kernels: tuple[str, ...] = KERNELS, announce: bool = False) -> None:
        """Compile (or load from numba's cache) the kernels of these searches (KERNELS), on a set
        the game cannot reach: every rule off (symmetry would not hold for it) and the tables
        left untouched. Only those a command needs: on an empty cache each costs seconds, and
        ``announce`` says so on stderr while it happens (``compiling``). The set is the game's
        own first secrets, never an index past its matrix (the kernels do not check bounds;
        a word game's guess-only words are no candidates: they have no column)."""
        saved = self.run
        self.run = saved._replace(opts=0)
        small = self.all_codes[:min(3, self.game.n_secrets)]  # fewer in a game of fewer
        try:
            for group in (k for k in KERNELS + LOCAL if k in kernels):
                with compiling(COMPILING[group], announce):
                    self._warm(group, small)
        finally:
            self.run = saved

    def _warm(self, group: str, small: np.ndarray) -> None:
        if group == "height":
            self.feasible(small, 2)
            self.feasible(small, 3)
            self.rank_height(small, 3)
        elif group == "total":
            self.min_total(small, 3)
            self.min_total(small, 3, only=[0])
            if len(small) > 2:  # rank_total scores nodes of more than two candidates only
                self.rank_total(small, 3)
            self.greedy_total(small)  # the rooms of a class's parts (root_class._rooms)
        elif group == "lookahead":
            self.lookahead(small, 3, 2)
        elif group == "rollout":  # before --improve's seconds start: 3.4 s of its 1 uncached
            from ..kernels.heuristics import ENTROPY, best_guesses

            _, transposed, _, n_answers = self.game.answer_matrices()
            best_guesses(transposed, small, small, ENTROPY, 2, n_answers)

    # --- whole problems ------------------------------------------------------------------------
    def root(self) -> np.ndarray:
        """The candidates before any guess: every secret (the first ``n_secrets`` codes)."""
        return self.all_codes[:self.game.n_secrets].copy()

    def representatives(self, guesses: np.ndarray, path) -> np.ndarray:
        """The guesses that are the smallest of their orbit, given the guesses made so far (all of
        them when the symmetry rule is off)."""
        if not self.opts & OPT_SYMMETRY:
            return np.asarray(guesses)
        guesses = np.asarray(guesses, dtype=np.int32)
        return guesses[representative_mask(self.orbits, guesses, self._path(path), len(path))]

    def counting_height(self, size: int) -> int:
        """The least depth whose counting bound (bounds.M: the most candidates any tree of that
        depth can solve) holds ``size`` candidates: no tree is shorter."""
        depth = 1
        while self.bounds.M[self.branches, min(depth, DCAP)] < size:
            depth += 1
        return depth

    def min_height(self, cands: np.ndarray | None = None, path=()) -> int:
        """Iterative deepening: the first depth that is feasible (the last failure proves it)."""
        cands = self.root() if cands is None else cands
        depth = self.counting_height(len(cands))
        while self.feasible(cands, depth, path) < 0:
            depth += 1
        return depth

    def height_tree(self, depth: int, cands: np.ndarray | None = None, path=()) -> Node:
        return self._tree(depth, cands, list(path), lambda c, d, p: self.feasible(c, d, p))

    def total_tree(self, depth: int, cands: np.ndarray | None = None, path=(),
                   cost: str = "total") -> Node:
        return self._tree(depth, cands, list(path),
                          lambda c, d, p: self.min_total(c, d, path=p, cost=cost)[1])

    def _tree(self, depth: int, cands, path: list[int], choose) -> Node:
        cands = self.root() if cands is None else cands
        guess = choose(cands, depth, path)
        if guess < 0:
            raise RuntimeError(f"no tree of height {depth} exists for these candidates")
        node = Node(guess)
        for fid, part in self.game.parts(guess, cands).items():
            node.next[fid] = self._tree(depth - 1, part, path + [guess], choose)
        return node
