"""``moo play GAME --breaker``: the person guesses a secret the computer drew, held to a guess
mode's rule when one is given (seeds 000 and 002)."""

from __future__ import annotations

import random
import re

from ..games import Game, GameError
from .console import QUIT_WORDS, EndOfInput, ask, say
from .play_text import feedback_text, guess_help, guesses_text, secret_intro
from .status import Exit

GIVE_UP_WORDS = frozenset({"?", "give up", "giveup", "reveal"}) | QUIT_WORDS


def play_breaker(game: Game, rng: random.Random, guesses: str = "any") -> Exit:
    """Seeds 000 and 002: the computer draws a secret and scores the person's guesses, held to
    the guess mode's rule (a guess that breaks it is refused and does not count)."""
    secret = rng.randrange(game.n_secrets)
    say(secret_intro(game))
    if guesses != "any":
        say(RULES[guesses])
    made = 0
    answers: list[tuple[int, int]] = []  # (guess, feedback) so far
    while True:
        try:
            text = ask(f"Guess {made + 1}: ")
        except EndOfInput:
            say(f"\nNo more guesses. The secret was {game.format_code(secret)}.")
            return Exit.FAILED
        if text.lower() in GIVE_UP_WORDS or re.fullmatch(r"-\d+", text):
            say(f"The secret was {game.format_code(secret)}; you made {guesses_text(made)}.")
            return Exit.FAILED
        if not text or text.lower() in ("h", "help"):
            say(guess_help(game))
            continue
        try:
            guess = game.parse_code(text)
        except GameError as exc:
            say(f"  Not a valid guess: {exc}.")
            continue
        broken = _breaks_rule(game, guesses, answers, guess)
        if broken:
            say(f"  Not allowed ({MODE_NAMES[guesses]}): {broken}.")
            continue
        made += 1
        reply = game.feedback(guess, secret)
        answers.append((guess, reply))
        if reply == game.win:
            say(f"  {feedback_text(game, reply)}: solved! The secret is "
                 f"{game.format_code(secret)}; you found it in {guesses_text(made)}.")
            return Exit.FINISHED
        say(f"  {feedback_text(game, reply)}")


MODE_NAMES = {"consistent": "consistent guesses only", "hard": "hard mode"}
RULES = {"consistent": "Each guess must fit every answer so far (it could be the secret).",
         "hard": "Hard mode: each guess must keep every hint so far (greens in place, yellows "
                 "used)."}


def _breaks_rule(game: Game, guesses: str, answers: list[tuple[int, int]],
                 guess: int) -> str | None:
    """Why ``guess`` breaks the guess mode's rule after ``answers``, or None when it keeps it."""
    if guesses == "consistent" and guess >= game.n_secrets:  # the secrets are the first codes
        return f"it cannot be the secret: it is not one of the {game.n_secrets:,} answers"
    for earlier, reply in answers:
        shown = f"{game.format_code(earlier)} got {feedback_text(game, reply)}"
        if guesses == "consistent" and game.feedback(earlier, guess) != reply:
            return f"it cannot be the secret, as {shown}"
        if guesses == "hard" and not game.keeps_hints(earlier, reply, guess):
            return f"{shown}, so {game.dropped_hint(earlier, reply, guess)}"
    return None
