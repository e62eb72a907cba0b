"""Game families and the spec strings that name them (see shared tree-format notes)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from .base import Game, GameError, Symmetry, quote
from .battleship import Battleship
from .digits import DigitGame, parse_digit_spec
from .words import WordGame, parse_word_spec, read_word_list, spec_paths, word_game

__all__ = [
    "Game", "GameError", "Symmetry", "DigitGame", "Battleship", "WordGame", "parse_game",
    "DEFAULT_GAMES", "read_word_list", "word_game", "spec_files",
]

ALIASES = {"bullets-maggots": "mastermind:4x10", "hells": "bulls-cows:4x10"}

# The games every batch run covers, in the order reports list them.
DEFAULT_GAMES = (
    "bulls-cows:4x10",
    "mastermind:4x6",
    "moo:10,11,12",
    "battleship:4x8x3",
    "mastermind:4x10",
    "wordle",
)

# Every way to name a game (parse_game), for messages and the commands' help.
GAME_FORMS = ("bulls-cows[:PxS], mastermind[:PxC], bullets-maggots, moo[:R1,R2,...], "
              "battleship[:RxCxK], wordle or words:ANSWERS[,GUESSES]")

# What a family name alone means.
DEFAULT_PARAMETERS = {"bulls-cows": "4x10", "mastermind": "4x6", "moo": "10,11,12",
                      "battleship": "4x8x3"}


def parse_game(spec: str, beside: str | Path | None = None) -> Game:
    """The game named by ``spec``, e.g. ``bulls-cows``, ``mastermind:4x6``, ``moo:10,11,12``,
    ``wordle``, ``words:answers.txt,guesses.txt`` (see games.words; file paths keep their case).
    Read leniently (case, surrounding spaces, leading zeros): ``Game.spec`` is the canonical
    form, the one tree files must hold. A colon with nothing after it is refused, not read as
    the defaults (``moo:`` is more likely a value lost from a script than a wish for them).
    Word-list files are read at each call (their words may have changed); the games a spec
    alone defines are kept. ``beside``: the folder of the file that holds the spec, where a
    relative word-list path is looked for when the current folder has no such file (a
    checkpoint read from elsewhere)."""
    word_family, word_colon, paths = spec.strip().partition(":")
    if word_family.strip().lower() == "words":
        return parse_word_spec("words", paths if word_colon else None, spec, beside)
    return _defined_game(spec)


def spec_files(spec: str) -> list[str]:
    """The word-list files a game spec names (none for a game the spec alone defines): what a
    command reads, so that none of its outputs may be one of them."""
    family, colon, paths = spec.strip().partition(":")
    return [p for p in spec_paths(paths) if p] if family.strip().lower() == "words" else []


@lru_cache(maxsize=4)  # games keep their feedback matrix: up to 100 MB each
def _defined_game(spec: str) -> Game:
    word_family, word_colon, paths = spec.strip().partition(":")
    if word_family.strip().lower() == "wordle":
        return parse_word_spec("wordle", paths if word_colon else None, spec)
    text = ALIASES.get(spec.strip().lower(), spec.strip().lower())
    family, colon, args = text.partition(":")
    if colon and not args and family in DEFAULT_PARAMETERS:
        raise GameError(f"{quote(spec)}: nothing after the colon: give the parameters, e.g. "
                        f"{family}:{DEFAULT_PARAMETERS[family]}, or leave out the colon for "
                        "these defaults")
    args = args or DEFAULT_PARAMETERS.get(family)
    if family in ("bulls-cows", "mastermind", "moo"):
        return parse_digit_spec(family, args)
    if family == "battleship":
        match = re.fullmatch(r"([0-9]{1,6})x([0-9]{1,6})x([0-9]{1,6})", args)
        if not match:
            raise GameError(f"{quote(spec)}: expected battleship:RxCxK, e.g. battleship:4x8x3")
        return Battleship(*(int(g) for g in match.groups()))
    if _a_file(spec.strip()) and spec.strip().lower().endswith(".json"):  # a tree, a checkpoint
        raise GameError(f"unknown game {quote(spec)}: a game is named, not read from a JSON "
                        "file (`moo verify FILE` describes a tree, `moo checkpoint show FILE` a "
                        f"checkpoint); use {GAME_FORMS}")
    if _a_file(spec.strip()):  # a word list given alone
        raise GameError(f"unknown game {quote(spec)}: for a word list write "
                        f"words:{spec.strip()} (or words:ANSWERS,GUESSES)")
    raise GameError(f"unknown game {quote(spec)}: use {GAME_FORMS}")


def _a_file(text: str) -> bool:
    """Whether ``text`` names a file here (a name too long or a folder not to be searched is
    none: the game name is the error, not the file system)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False
