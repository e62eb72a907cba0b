"""What a page (``moo page``) says about its game and what its script needs to play it, one
family at a time: digit games (Bulls and Cows, Mastermind, moo), Battleship and word games
(Wordle, custom lists). The words on the page come from here; ``page.py`` assembles them."""

from __future__ import annotations

from ..games import Battleship, DigitGame, Game, WordGame
from ..games.reply import word_example
from .page_data import encode_words


class PageError(ValueError):
    """A tree that cannot be made into a page (unreadable, or defective on replay)."""


def game_title(game: Game) -> str:
    """A person's name for the game, e.g. ``Bulls and Cows (4 of 10)``."""
    spec = game.spec
    family, _, args = spec.partition(":")
    if isinstance(game, WordGame):
        name = "Wordle" if spec == "wordle" else "Word game"
        others = game.n_codes - game.n_secrets
        return (f"{name} ({game.n_secrets:,} answers of {game.letters} letters, "
                f"{others:,} other allowed guesses)")
    if spec == "mastermind:4x10":
        return "Bullets and Maggots (Mastermind, 4 places, 10 colours)"
    if family == "bulls-cows":
        return "Bulls and Cows ({} of {})".format(*args.split("x"))
    if family == "mastermind":
        return "Mastermind ({} places, {} colours)".format(*args.split("x"))
    if family == "battleship":
        rows, columns, ships = args.split("x")
        return f"Battleship search ({rows} x {columns} board, {ships} ships)"
    return f"moo over the ranges {args.replace(',', ', ')}"


def feedback_help(game: Game) -> str:
    if isinstance(game, WordGame):
        return ("one colour a letter: green (right letter, right place), yellow (in the word, "
                "elsewhere) or grey (not in the word; a repeated letter is coloured once for "
                "each time the word holds it).")
    if isinstance(game, Battleship):
        return ("exact (guessed squares that hold a ship), one-away (the eight squares around "
                "a ship) and two-away (two squares from the closest ship); each guessed square "
                "counts once, by its closest ship.")
    right, wrong = game.feedback_names
    thing = "colour" if right == "black" else "symbol"
    return f"{right} (right {thing}, right place) and {wrong} (right {thing}, wrong place)."


def guess_rule(game: Game) -> str:
    """What a person may guess, when it is more than the secrets (else nothing)."""
    if isinstance(game, WordGame):
        return f" (any of the {game.n_codes:,} allowed words)"
    return ""


def answer_label(game: Game) -> str:
    """The label of the field where a person types an answer to the computer's guess."""
    if isinstance(game, WordGame):
        e = word_example(game.letters)
        digits = " or ".join(dict.fromkeys((e["digits"], e["spaced"])))  # 1 letter: 0 once
        return (f"Or type the colours: {e['letters']} (g green, y yellow, b grey), "
                f"{digits} (2 green, 1 yellow, 0 grey), or {e['squares']}; w when it is your "
                "word")
    return (f"Your answer, as the numbers {' '.join(game.feedback_names)} "
            "(or use the buttons)")


def feedback_header(game: Game) -> str:
    """The heading of the feedback column in the table of the person's guesses."""
    if isinstance(game, WordGame):
        return "marks"
    return " ".join(game.feedback_names)


def game_rules(game: Game) -> dict:
    """What ``web/page.js`` (``web/words.js``) needs to list the codes and score guesses as
    ``optimizer.games`` does (the tests compare the two on every code and many pairs)."""
    rules: dict = {"spec": game.spec, "codes": game.n_codes, "secrets": game.n_secrets,
                   "code_rule": game.code_rule(), "feedback_names": list(game.feedback_names)}
    if isinstance(game, WordGame):
        rules.update(family="words", letters=game.letters,
                     answers=encode_words(game.words[:game.n_secrets]),
                     others=encode_words(game.words[game.n_secrets:]))
    elif isinstance(game, Battleship):
        rules.update(family="battleship", rows=game.rows, columns=game.columns, ships=game.ships)
    elif isinstance(game, DigitGame):
        rules.update(family="digits", ranges=list(game.ranges), distinct=game.distinct)
    else:
        raise PageError(f"{game.spec}: the page cannot play this game family")
    return rules
