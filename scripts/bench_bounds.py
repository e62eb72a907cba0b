"""The lookahead bound's measured effect (kernels/lookahead.py, `moo build --lookahead K`): per
level, the bound it proves, the nodes it visits and the seconds it takes, on a whole game and on
one Battleship first-guess class; then what a primed table does to the exact search that follows.
One thread, in this process, a fresh table per line; compilation is done first and reported apart.

    python scripts/bench_bounds.py                    # Mastermind 4x6, Bulls and Cows (levels 0-2)
    python scripts/bench_bounds.py --battleship 2     # also a Battleship class, levels 0-2
    python scripts/bench_bounds.py --search           # also the exact search, primed or not
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from optimizer.games import parse_game
from optimizer.kernels.bundles import INF
from optimizer.search.jobs import class_bound
from optimizer.search.solver import NodeSolver

# (game, levels, published least total: an expectation printed beside the bounds, never used)
GAMES = [("mastermind:4x6", 3, 5625), ("bulls-cows:4x10", 4, 26274)]
SEARCH_MAX_CODES = 2000  # --search: the exact search after each level, on games this small


def whole_game(spec: str, levels: int, known: int, search: bool) -> None:
    game = parse_game(spec)
    solver = NodeSolver(game, "any")
    start = time.perf_counter()
    solver.warm_up()
    print(f"\n{spec}: {game.n_codes} secrets; kernels loaded in "
          f"{time.perf_counter() - start:.1f} s; published least total {known}")
    print(f"{'level':>5} {'bound':>7} {'of known':>8} {'nodes':>10} {'seconds':>8}")
    root = solver.root()
    for k in range(levels + 1):
        solver.forget()
        before, start = solver.nodes, time.perf_counter()
        bound = solver.lookahead(root, game.n_codes, k)
        seconds = time.perf_counter() - start
        print(f"{k:>5} {bound:>7} {100 * bound / known:>7.2f}% {solver.nodes - before:>10} "
              f"{seconds:>8.2f}")
        if search and game.n_codes <= SEARCH_MAX_CODES:
            exact_search(solver, root, game.n_codes, f"after level {k}")


def exact_search(solver: NodeSolver, root: np.ndarray, depth: int, label: str) -> None:
    """The least total from the table as the lookahead left it (its bounds are facts)."""
    before, start = solver.nodes, time.perf_counter()
    value, _ = solver.min_total(root, depth)
    print(f"      exact search {label}: {value}, {solver.nodes - before} nodes, "
          f"{time.perf_counter() - start:.2f} s")


def battleship_class(index: int, levels: int) -> None:
    game = parse_game("battleship:4x8x3")
    solver = NodeSolver(game, "any")
    solver.warm_up()
    root = solver.root()
    guess = int(solver.representatives(root, [])[index])
    parts = sorted(game.parts(guess, root).values(), key=len, reverse=True)
    print(f"\nbattleship:4x8x3, first-guess class {index} ({game.format_code(guess)}): "
          f"{len(parts)} parts, the largest {len(parts[0])}")
    print(f"{'level':>5} {'bound':>7} {'nodes':>10} {'seconds':>8}")
    for k in range(levels + 1):
        solver.forget()
        start = time.perf_counter()
        bound, _, nodes, _ = class_bound(solver, guess, parts, game.n_codes, k, int(INF))
        print(f"{k:>5} {bound:>7} {nodes:>10} {time.perf_counter() - start:>8.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battleship", type=int, default=None, metavar="CLASS",
                        help="also this Battleship first-guess class (index in code order)")
    parser.add_argument("--search", action="store_true",
                        help="after each level, the exact least total from the primed table "
                             f"(games of at most {SEARCH_MAX_CODES} codes)")
    parser.add_argument("--only", default=None, help="just this game of GAMES")
    args = parser.parse_args()
    for spec, levels, known in GAMES:
        if args.only not in (None, spec):
            continue
        whole_game(spec, levels, known, args.search)
    if args.battleship is not None:
        battleship_class(args.battleship, 2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
