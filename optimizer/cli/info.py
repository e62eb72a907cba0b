"""``moo info``: a game's codes, feedback classes and symmetry, by numpy alone (no kernel)."""

from __future__ import annotations

import argparse
import time

from ..games import parse_game
from .options import GAME_HELP
from .status import Exit


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=GAME_HELP)


def run(args: argparse.Namespace) -> Exit:
    """The game's facts by numpy alone, no kernel loaded: the first-guess classes from its
    symmetry group, the feedback classes from the rows of one guess per class (every pair maps
    by a symmetry to a pair whose guess is one of them), never the whole matrix."""
    game = parse_game(args.game)
    start = time.perf_counter()
    first = game.first_guesses()
    values = game.feedback_classes(first)
    seconds = time.perf_counter() - start
    sym = game.symmetry()
    print(f"game:             {game.spec}")
    print(f"codes:            {game.n_codes} ({game.code_rule()})")
    if game.n_secrets != game.n_codes:
        print(f"secrets:          {game.n_secrets} (the first codes; every code may be guessed)")
    examples = dict.fromkeys(game.format_code(i) for i in (0, game.n_codes - 1))  # 1 code: once
    print(f"example codes:    {', '.join(examples)}")
    print(f"feedback:         {' '.join(game.feedback_names)}")
    print(_wrapped(f"feedback classes: {len(values)}: ",
                   [game.format_feedback(int(v)) for v in values]))
    print(f"symmetry:         {sym.description}")
    print(f"first-guess classes: {len(first)}")
    print(f"computed in:      {seconds:.2f} s (one guess per first-guess class; no feedback "
          "matrix)")
    return Exit.FINISHED


def _wrapped(head: str, items: list[str], width: int = 100) -> str:
    """The items after ``head``, comma-separated, in lines of at most ``width`` characters that
    never split an item: Wordle has 238 feedback classes, 2,600 characters on one line. Later
    lines are indented under the first item."""
    pieces = [item + "," for item in items[:-1]] + items[-1:]
    lines = [head + (pieces[0] if pieces else "")]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) > width:
            lines.append(" " * 17)
        lines[-1] += " " + piece
    return "\n".join(lines)
