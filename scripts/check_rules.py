"""Check every pruning rule against the search without it, on nodes of a real game: the
small-game optima (tests/test_exact.py) miss a bound that is unsound only in rare nodes, and
such nodes are found by sweeping many nodes of the games the searches are run on.

    python scripts/check_rules.py battleship --nodes 200 --sizes 8 40
    python scripts/check_rules.py bulls-cows --nodes 50 --sizes 8 60 --seed 2 --limit 20
    python scripts/check_rules.py wordle --guesses hard --nodes 30 --sizes 8 60
    python scripts/check_rules.py battleship --rules few-answers --sizes 60 600 --limit 120

For each node (the candidates left after one to four random guesses and answers), objective
(the least total, the fewest deep secrets), depth (3, 4, any) and cut-off beta (just above the
counting bound, halfway to the exact value, the exact value, one above it, none), every solver
with one rule switched off answers as a sound search must: the exact value when it lies below
beta, else a bound from beta up to the exact value (the exact value itself when beta is it).
The least height is checked likewise (feasible at the least height, not one below). --guesses
picks the rule of play (any code, candidates only, or a word game's hard mode, whose nodes are
reached by guesses keeping every hint so far). The exact values come from the search with every
rule on; a disagreement between two rules' values shows as a failure of one of them. --rules
switches off only the rules named. A search taking more than --limit seconds is left out and
counted. Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from collections.abc import Iterator

import numpy as np
from tqdm import tqdm

from optimizer.games import parse_game
from optimizer.games.base import Game, GameError
from optimizer.kernels import bundles as B
from optimizer.search.solver import NodeSolver


def random_nodes(game: Game, rng: np.random.Generator, low: int, high: int, count: int,
                 guesses: str = "any") -> Iterator[tuple[np.ndarray, list[int]]]:
    """(candidates, guesses so far) of ``count`` nodes of low to high - 1 candidates, each
    after one to four random guesses and answers, every guess allowed by ``guesses`` where it
    was made."""
    F = game.feedback_matrix()
    while count:
        cands = np.arange(game.n_secrets, dtype=np.int32)
        path = []
        for _ in range(4):
            guess = random_guess(game, rng, cands, path, guesses)
            reply = F[guess, rng.choice(cands)]
            path.append((guess, reply))
            cands = cands[F[guess, cands] == reply]
            if len(cands) < high:
                break
        if low <= len(cands) < high:
            count -= 1
            yield cands, [guess for guess, _ in path]


def random_guess(game: Game, rng: np.random.Generator, cands: np.ndarray,
                 path: list[tuple[int, int]], guesses: str) -> int:
    """A code drawn from those the rule of play allows after ``path`` (guess, answer pairs)."""
    if guesses == "consistent":
        return int(rng.choice(cands))
    while True:  # a candidate keeps every hint, so the draw ends
        guess = int(rng.integers(game.n_codes))
        if guesses == "any" or all(game.keeps_hints(g, r, guess) for g, r in path):
            return guess


class Timed:
    """Runs a solver's search with a time limit: its stop flag is raised when time is up, and
    the call reports None."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.skipped = 0

    def __call__(self, solver: NodeSolver, search, *args, **kwargs):
        timer = None
        if self.limit is not None:
            timer = threading.Timer(self.limit, solver.stop.__setitem__, (0, 1))
            timer.start()
        try:
            found = search(*args, **kwargs)
        finally:
            if timer is not None:
                timer.cancel()
        if solver.stop[0]:
            solver.stop[0] = 0
            self.skipped += 1
            return None
        return found


def sound(got: int, exact: int, beta: int) -> bool:
    """What a sound least-cost search returns at cut-off beta, given the exact value."""
    return got == exact if exact < beta else beta <= got <= exact


def check_node(solvers: dict[str, NodeSolver], timed: Timed, cands: np.ndarray,
               path: list[int], costs=("total", "deep"), depths=(3, 4, None)) -> list[str]:
    """Every solver against the exact values of the "all" one on one node; the failures found."""
    reference = solvers["all"]
    game = reference.game
    failures = []
    for cost, depth in itertools.product(costs, depths):
        d = game.n_codes if depth is None else depth
        reference.forget()
        found = timed(reference, reference.min_total, cands, d, path=path, cost=cost)
        if found is None:
            continue
        exact = found[0]
        lb0 = reference.counting(len(cands), d, cost)
        betas = {lb0 + 1, int(B.INF)}
        if exact < B.INF:
            betas |= {(lb0 + exact) // 2 + 1, exact, exact + 1}
        for (name, solver), beta in itertools.product(solvers.items(), sorted(betas)):
            solver.forget()
            found = timed(solver, solver.min_total, cands, d, beta, path=path, cost=cost)
            if found is not None and not sound(found[0], exact, beta):
                failures.append(f"{len(cands)} candidates after {path}: {cost} within {d}, "
                                f"{name}, beta {beta}: {found[0]}, exact {exact}")
    reference.forget()
    height = timed(reference, reference.min_height, cands, path)
    if height is None:
        return failures
    for name, solver in solvers.items():
        solver.forget()
        for depth, expected in ((height, True), (height - 1, False)):
            found = timed(solver, solver.feasible, cands, depth, path)
            if found is not None and (found >= 0) != expected:
                failures.append(f"{len(cands)} candidates after {path}: height {height}, "
                                f"{name} says {depth} {'fails' if expected else 'does'}")
    return failures


def rule_solvers(game: Game, guesses: str = "any", table_bits: int = 16,
                 rules: list[str] | None = None) -> dict[str, NodeSolver]:
    """A solver with every rule ("all"), then one without each rule (of ``rules``: all)."""
    return {"all": NodeSolver(game, guesses, opts=B.OPT_ALL, table_bits=table_bits),
            **{f"no-{name}": NodeSolver(game, guesses, opts=B.OPT_ALL & ~B.SWITCHES[name],
                                        table_bits=table_bits)
               for name in (rules or B.SWITCHES)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("game")
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--sizes", type=int, nargs=2, default=(8, 40), metavar=("LOW", "HIGH"),
                        help="candidates per node: LOW to HIGH - 1")
    parser.add_argument("--guesses", choices=("any", "consistent", "hard"), default="any",
                        help="the rule of play: any code, candidates only, or hard mode")
    parser.add_argument("--rules", nargs="+", choices=list(B.SWITCHES), metavar="RULE",
                        help="switch off only these, one at a time (default: every rule; "
                        f"one of {', '.join(B.SWITCHES)})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=30.0, help="seconds per search, at most")
    args = parser.parse_args()
    try:
        game = parse_game(args.game)
    except GameError as error:
        parser.error(str(error))
    low, high = args.sizes
    if not 2 <= low < high or low >= game.n_secrets or args.nodes < 1 or args.limit <= 0:
        parser.error(f"need 2 <= LOW < HIGH, LOW below the game's {game.n_secrets} secrets, "
                     "at least one node and a positive --limit")
    try:
        solvers = rule_solvers(game, args.guesses, rules=args.rules)
    except GameError as error:
        parser.error(str(error))
    timed = Timed(args.limit)
    failures = []
    start = time.perf_counter()
    nodes = random_nodes(game, np.random.default_rng(args.seed), low, high, args.nodes,
                         args.guesses)
    label = f"{args.game} ({args.guesses})"
    for cands, path in tqdm(nodes, total=args.nodes, desc=f"{label}: nodes", unit="node"):
        found = check_node(solvers, timed, cands, path)
        for line in found:
            tqdm.write(f"FAILED {line}")
        failures += found
    print(f"{label}: {args.nodes} nodes of {low}-{high - 1} candidates, "
          f"{len(solvers) - 1} rules, {len(failures)} failures, {timed.skipped} searches over "
          f"{args.limit} s left out, {time.perf_counter() - start:.1f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
