"""What ``moo play`` says, where a game family needs its own words: word games are answered
with one colour a letter (``gybbb``, ``21000``, the squares), the other games with counts
named by ``game.feedback_names`` (``1 2 (bulls cows)``)."""

from __future__ import annotations

from ..games import Game, WordGame
from ..games.reply import example_reply, word_example


def named(game: Game, feedback: str) -> str:
    """A feedback in the tree format's notation with what it means: ``1 2 (bulls cows)``, or
    the colours of a word game, ``2 1 0 0 0 (🟩🟨⬛⬛⬛)``."""
    if isinstance(game, WordGame):
        return f"{feedback} ({game.format_squares(game.parse_feedback(feedback))})"
    return f"{feedback} ({' '.join(game.feedback_names)})"


def secret_rule(game: Game) -> str:
    """What the secret may be (in a word game an answer, not any allowed guess)."""
    if isinstance(game, WordGame):
        return f"one of the {game.n_secrets:,} answers, {game.letters}-letter words"
    return game.code_rule()


def think_of_a_secret(game: Game) -> str:
    noun = "word" if isinstance(game, WordGame) else "code"
    return f"Think of a secret {noun} of {game.spec}: {secret_rule(game)}."


def prompt(game: Game) -> str:
    """The question after each guess of the computer."""
    if isinstance(game, WordGame):
        return "  marks (g green, y yellow, b grey)? "
    return f"  {' '.join(game.feedback_names)}? "


def how_to_answer(game: Game) -> str:
    """The maker's instructions, before the first guess."""
    win = game.format_feedback(game.win)
    if isinstance(game, WordGame):
        e = word_example(game.letters)
        return (f"Answer each guess with its marks, one a letter: g green (right place), "
                f"y yellow (elsewhere), b grey (absent), e.g. {e['letters']}, {e['digits']} "
                f"or {e['squares']}; w (or {'g' * game.letters}) when I have it; ? for help, "
                "q to stop.")
    return (f"Answer each guess with {' '.join(game.feedback_names)}, e.g. "
            f"{example_reply(game)}; w (or {win}) when I have it; ? for help, q to stop.")


def secret_intro(game: Game) -> str:
    """The breaker's first lines: what the secret is and what the answers mean."""
    if isinstance(game, WordGame):
        others = game.n_codes - game.n_secrets
        return (f"I have picked a secret word of {game.spec}: one of its {game.n_secrets:,} "
                f"answers ({game.letters} letters). You may guess any of its "
                f"{game.n_codes:,} allowed words ({others:,} are never the answer).\n"
                "I answer with one mark a letter: 2 green (right place), 1 yellow (elsewhere), "
                "0 grey (absent), and in Wordle's squares. Type ? to give up and see the word.")
    return (f"I have picked a secret code of {game.spec}: {game.code_rule()}.\n"
            f"Type your guesses; I answer with {' '.join(game.feedback_names)}. Type ? to give "
            "up and see the code.")


def guess_help(game: Game) -> str:
    if isinstance(game, WordGame):
        return f"  Type a {game.letters}-letter word of the game's list, or ? to give up."
    return f"  Type a code ({game.code_rule()}), or ? to give up."


def feedback_text(game: Game, fid: int) -> str:
    """``1 2 (bulls cows)``: the numbers of the tree format, with their names."""
    return named(game, game.format_feedback(fid))


def guesses_text(n: int) -> str:
    return f"{n} guess" if n == 1 else f"{n} guesses"
