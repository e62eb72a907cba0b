"""Feedback as people type it: the one reader of typed replies (the player and any other front end
call it). The tree format's own notation is ``Game.parse_feedback``; this module is forgiving in
form but never guesses: numbers tagged with names are read by their names, in any order, and
anything that is neither plain numbers nor tagged numbers is refused with a reason.

Accepted, for a game whose feedback is ``bulls cows`` (``black white``, ``exact one-away
two-away`` alike):

- plain numbers in the order of the names: ``1 2``, ``1,2``, ``(1, 2)``, ``[1 2]``, or one digit
  each written together: ``12`` (``021`` for Battleship);
- numbers tagged with a name of their count, before or after each number, in any order:
  ``1b2c``, ``2c 1b``, ``2 cows 1 bull``, ``b1 c2``, ``bulls: 1, cows: 2``; a count not named is 0;
- letters for Bulls and Cows (``bbc``: two bulls, one cow, as seed 001 writes them);
- ``w`` (or another word of ``WIN_WORDS``) when the guess is the secret; ``-`` for nothing.

Refused: signs, decimals, exponents, words that name no count, digits of other scripts, a number
out of range, a count named twice, tagged and untagged numbers mixed.

Word games (feedback one mark a letter) are answered with their marks instead, written together or
each apart: letters ``gybbb`` (g green, y yellow, b, x or . grey), numbers ``21000`` or
``2 1 0 0 0`` (2 right place, 1 elsewhere, 0 absent), or Wordle's squares ``🟩🟨⬛⬛⬛`` (⬜ grey as
well; 🟧 and 🟦 are the high-contrast green and yellow); ``w`` when the word is found.
"""

from __future__ import annotations

import re

from .base import Game, GameError, quote
from .words import WordGame

WIN_WORDS = frozenset({"w", "win", "won", "solved", "yes", "y", "right", "correct", "!"})
ZERO_WORDS = frozenset({"-", "none", "nothing"})

# The names a count may be tagged with (lower case; input is compared case-insensitively).
TAGS: dict[str, tuple[str, ...]] = {
    "bulls": ("b", "bull", "bulls"),
    "cows": ("c", "cow", "cows"),
    "black": ("b", "black", "blacks", "bullet", "bullets"),
    "white": ("w", "white", "whites", "maggot", "maggots"),  # seed 002: bullets and maggots
    "exact": ("e", "exact", "hit", "hits"),
    "one-away": ("o", "one", "one-away"),
    "two-away": ("t", "two", "two-away"),
}

# A reply is numbers and words between separators; any other character is refused.
_TOKEN = re.compile(r"[0-9]+|[a-z]+(?:-[a-z]+)*")
_SEPARATORS = re.compile(r"[\s,;:=()\[\]]+")


def read_reply(game: Game, text: str) -> int:
    """Feedback id of what a person typed (see the module's list of forms); a GameError says
    why a reply is refused."""
    if isinstance(game, WordGame):
        return _word_reply(game, text)
    if not text.isascii():  # other scripts' digits, look-alike letters: refused, not guessed at
        raise GameError(f"feedback {quote(text)}: use the digits 0-9 and the letters a-z")
    t = text.strip().lower()
    if t in WIN_WORDS:
        return game.win
    if t in ZERO_WORDS:
        return game.feedback_id((0,) * len(game.feedback_names))
    tokens = _tokens(game, text, t)
    numbers = [tok for tok in tokens if tok[0].isdigit()]
    words = [tok for tok in tokens if not tok[0].isdigit()]
    if not words:
        if len(numbers) == 1 and len(numbers[0]) == len(game.feedback_names) > 1:
            numbers = list(numbers[0])  # "12": one digit per count
        if len(numbers) != len(game.feedback_names):
            raise GameError(f"feedback {quote(text)} should be {_how_many(game)}")
        return game.feedback_from_digits(numbers, text)
    if not numbers:
        letters = _letter_counts(game, words)
        if letters is None:
            raise GameError(f"feedback {quote(text)} has no numbers: it should be "
                            f"{_how_many(game)}")
        return game.feedback_from_digits([str(n) for n in letters], text)
    return _tagged(game, text, tokens)


def example_reply(game: Game) -> str:
    """A typical reply in plain numbers: ``1 2``, or ``0 2 1`` for three counts."""
    if isinstance(game, WordGame):
        return " ".join("21000"[:game.letters].ljust(game.letters, "0"))
    return "1 2" if len(game.feedback_names) == 2 else "0 2 1"


def word_example(letters: int) -> dict[str, str]:
    """One example answer to a word guess, in each way to type it (``letters``: g y b,
    ``digits``: 2 1 0, ``spaced``, ``squares``): green, yellow, then grey; one letter: grey."""
    marks = [2, 1][:letters] + [0] * (letters - 2) if letters > 1 else [0]
    return {"letters": "".join("byg"[m] for m in marks), "digits": "".join(map(str, marks)),
            "spaced": " ".join(map(str, marks)),
            "squares": "".join((chr(0x2b1b), "\U0001f7e8", "\U0001f7e9")[m] for m in marks)}


def reply_forms(game: Game) -> str:
    """How to type a reply, for the player's help."""
    if isinstance(game, WordGame):
        return _WORD_FORMS
    example = example_reply(game)
    text = (f"the numbers {' '.join(game.feedback_names)} ({example}, "
            f"{example.replace(' ', ',')}, ({example.replace(' ', ', ')}) or "
            f"{example.replace(' ', '')}), or tagged with their names in any order "
            f"({_tagged_example(game)}; {_tag_list(game)})")
    if _letter_counts(game, ["b"]) is not None:
        text += ", or letters (bbc: two bulls, one cow)"
    return text


def _tagged_example(game: Game) -> str:
    pairs = zip(example_reply(game).split(), game.feedback_names, strict=True)
    return "".join(f"{n}{TAGS[name][0]}" for n, name in reversed(list(pairs)))


def _tag_list(game: Game) -> str:
    return "; ".join(f"{name}: {', '.join(TAGS[name])}" for name in game.feedback_names)


def _tokens(game: Game, text: str, lowered: str) -> list[str]:
    tokens: list[str] = []
    for chunk in _SEPARATORS.split(lowered):
        at = 0
        while at < len(chunk):
            match = _TOKEN.match(chunk, at)
            if match is None:
                raise GameError(f"feedback {quote(text)}: {chunk[at]!r} is not understood "
                                "(counts are whole numbers from 0)")
            tokens.append(match.group())
            at = match.end()
    return tokens


def _tagged(game: Game, text: str, tokens: list[str]) -> int:
    """Numbers each tagged with a name, the tag after (``1b``) or before (``b1``) its number."""
    first, second = tokens[::2], tokens[1::2]
    pairs = list(zip(first, second, strict=False))  # number, tag
    if not tokens[0][0].isdigit():
        pairs = list(zip(second, first, strict=False))  # tag, number
    if len(tokens) % 2 or not all(n[0].isdigit() and not t[0].isdigit() for n, t in pairs):
        raise GameError(f"feedback {quote(text)}: every number needs a name (as in "
                        f"{_tagged_example(game)}), or none does")
    counts = ["0"] * len(game.feedback_names)
    named: set[int] = set()
    for number, tag in pairs:
        where = [i for i, name in enumerate(game.feedback_names) if tag in TAGS[name]]
        if not where:
            raise GameError(f"feedback {quote(text)}: {quote(tag)} names no count of "
                            f"{game.spec} ({_tag_list(game)})")
        if where[0] in named:
            raise GameError(
                f"feedback {quote(text)}: {game.feedback_names[where[0]]} given twice")
        named.add(where[0])
        counts[where[0]] = number
    return game.feedback_from_digits(counts, text)


def _letter_counts(game: Game, words: list[str]) -> tuple[int, ...] | None:
    """Seed 001's letters for bulls and cows (``bbc``: two bulls, one cow), or None when the
    words are something else. Other games have none: Mastermind's 'w' would clash with 'solved'."""
    if tuple(game.feedback_names) != ("bulls", "cows"):
        return None
    compact = "".join(words)
    if not compact or any(ch not in "bc" for ch in compact):
        return None
    return compact.count("b"), compact.count("c")


def _how_many(game: Game) -> str:
    return f"{len(game.feedback_names)} numbers ({' '.join(game.feedback_names)})"


# Word games: one mark a letter, 2 (right place), 1 (elsewhere) or 0 (absent).
WORD_MARKS = {"2": 2, "1": 1, "0": 0, "g": 2, "y": 1, "b": 0, "x": 0, ".": 0,
              "\U0001f7e9": 2, "\U0001f7e8": 1, "\u2b1b": 0, "\u2b1c": 0,  # 🟩 🟨 ⬛ ⬜
              "\U0001f7e7": 2, "\U0001f7e6": 1}  # 🟧 🟦: the high-contrast colours
_WORD_FORMS = ("one mark a letter, written together or apart: g y b for green, yellow and grey "
               "(gybbb; x or . for grey too), the numbers 2 1 0 (21000 or 2 1 0 0 0: 2 right "
               "place, 1 elsewhere, 0 absent), or Wordle's squares \U0001f7e9\U0001f7e8\u2b1b"
               "\u2b1b\u2b1b (\u2b1c for grey too)")
_WORD_SEPARATORS = re.compile(r"[\s,;()\[\]]+")


def _word_reply(game: WordGame, text: str) -> int:
    """The marks of a word game's reply (the module's forms for word games)."""
    t = text.replace("\ufe0f", "").strip().lower()  # squares may carry a variation selector
    tokens = [tok for tok in _WORD_SEPARATORS.split(t) if tok]
    if len(tokens) == 1:
        marks = list(tokens[0])
    elif all(len(tok) == 1 for tok in tokens):
        marks = tokens
    else:
        raise GameError(f"feedback {quote(text)}: give one mark a letter, written together "
                        "(gybbb, 21000) or each apart (2 1 0 0 0)")
    is_marks = all(m in WORD_MARKS for m in marks)
    if t in WIN_WORDS and not (is_marks and len(marks) == game.letters):
        return game.win
    if t in ZERO_WORDS - {"-"}:
        return game.feedback_id((0,) * game.letters)
    bad = next((m for m in marks if m not in WORD_MARKS), None)
    if bad is not None:
        raise GameError(f"feedback {quote(text)}: {bad!r} is not a mark; give {_WORD_FORMS}")
    if len(marks) != game.letters:
        e = word_example(game.letters)
        forms = ", ".join(dict.fromkeys((e["letters"], e["digits"], e["spaced"])))  # 1: 0 once
        raise GameError(f"feedback {quote(text)} has {len(marks)} marks: give {game.letters}, "
                        f"one a letter (e.g. {forms})")
    return game.feedback_id(tuple(WORD_MARKS[m] for m in marks))
