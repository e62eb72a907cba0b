"""The common interface every game family provides to the search, the trees and the player.

A game is a finite list of codes, the allowed guesses (index = position in it), so a guess or a
secret is a small integer everywhere. The secrets are the first ``n_secrets`` codes: all of them in
the digit games and Battleship (codes in lexicographic order), the answers in word games (which
list them first), so that secret i is code i. The feedback matrix is F[guess, secret], (n_codes,
n_secrets) bytes. Feedback is a small integer id as well; each family says how ids map to the
printed numbers of the tree format.
Nothing here imports numba: the player and the verifier must start instantly.
"""

from __future__ import annotations

import os
import re
import reprlib

import numpy as np

from .orbits import Symmetry, generators, smallest_in_orbits


class GameError(ValueError):
    """A game spec, code or feedback that the game does not allow."""


# Square and symbol ids: int16 holds every size the game specs allow (a 9 x 26 board has 234
# squares, past int8), and one dtype for every family keeps one compiled version of each kernel.
CODE_DTYPE = np.int16

MAX_CODES = 40_000  # the feedback matrix is N x N bytes: 40000 codes take 1.6 GB

# Which codes may be guessed: every code; only codes that can still be the secret; or the codes
# that keep what earlier answers revealed (a word game's hard mode, Game.keeps_hints).
GUESS_MODES = ("any", "consistent", "hard")


def check_size(spec: str, count: int) -> None:
    """Refuse a game by its number of codes, computed by formula before any code is listed."""
    if count > MAX_CODES:
        raise GameError(f"{spec}: {count:,} codes is more than this tool handles ({MAX_CODES:,})")


# The tree format's notation of one feedback count: ASCII decimal digits, no sign or other form.
_NUMBER = re.compile(r"[0-9]+")


def check_guess_mode(game: Game, guesses: str) -> None:
    """GameError (a ValueError) for a guess mode not in GUESS_MODES or that the game lacks."""
    if guesses not in GUESS_MODES:
        raise GameError(f"guesses must be one of {', '.join(GUESS_MODES)}")
    if guesses == "hard" and not game.has_hard_mode:
        raise GameError(f"{game.spec} has no hard mode: only word games do (--guesses "
                         "consistent guesses only codes that can still be the secret)")


def quote(text: str, limit: int = 40) -> str:
    """``text`` quoted for a one-line message (repr escapes control characters), shortened."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless it is one (a game may have a single code)."""
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{number:,} {noun if number == 1 else plural}"


def shown(value: object) -> str:
    """Any value for a one-line message: text quoted as ``quote`` does, the rest shortened by
    ``reprlib``, and never an error itself (an int of thousands of digits cannot be written)."""
    if isinstance(value, str):
        return quote(value)
    try:
        return reprlib.repr(value)
    except ValueError:
        return f"<a {type(value).__name__} holding a number too long to show>"


def tells_nothing(parts: dict, n: int) -> bool:
    """Whether a guess with these non-winning ``parts`` of ``n`` candidates tells them nothing
    apart (one part holds them all): no optimal tree makes such a guess, and no strategy should.
    The kernels' twin is ``optimizer.kernels.partition.tells_nothing``."""
    return n > 1 and any(len(part) >= n for part in parts.values())


class Game:
    """Rules of one code-breaking game; subclasses fill in the family specifics."""

    spec: str  # canonical spec string, as the command line accepts it and trees store it
    codes: np.ndarray  # (N, width) CODE_DTYPE: the allowed guesses, the secrets first
    feedback_names: tuple[str, ...]  # e.g. ("bulls", "cows")
    secret_noun = "code"  # what a secret is called in messages ("answer" in word games)
    base: int  # feedback id = sum of counts[i] * base ** (len - 1 - i)
    win: int  # feedback id of a solved game

    # --- sizes ---------------------------------------------------------------------------
    @property
    def n_codes(self) -> int:
        """The number of codes: the allowed guesses."""
        return int(self.codes.shape[0])

    @property
    def n_secrets(self) -> int:
        """The number of secrets, the first ``n_secrets`` codes: every code unless the family
        says otherwise (word games: the answers)."""
        return self.n_codes

    # --- codes -------------------------------------------------------------------------------
    def format_code(self, index: int) -> str:
        """A code in the tree format's notation, each text made once: a Battleship
        checkpoint's save writes 600,000 of them (4.9 s of its 5 s, one square at a time)."""
        texts = getattr(self, "_texts_cache", None)
        if texts is None:
            texts = self._texts_cache = [self._code_text(i) for i in range(self.n_codes)]
        return texts[index]

    def _code_text(self, index: int) -> str:
        raise NotImplementedError

    def _code_key(self, text: str) -> tuple[int, ...]:
        raise NotImplementedError

    def parse_code(self, text: str, strict: bool = False) -> int:
        """Code index of ``text``; a GameError names what is wrong. People may type a code
        loosely (``0 1 2 3``, ``h2, c3, a1``); ``strict`` accepts only the notation of the tree
        format, exactly as ``format_code`` writes it (tree files must be unambiguous)."""
        if not isinstance(text, str):  # the API's callers: 1234 is not '1234' (no leading 0)
            raise GameError(f"a code is text such as {self.format_code(0)!r}, not {shown(text)} "
                            f"({type(text).__name__})")
        if strict:
            index = self._notation().get(text)
            if index is not None:
                return index
        key = self._code_key(text)
        index = self._index().get(key)
        if index is None:
            raise GameError(f"{quote(text)} is not a code of {self.spec}: {self.code_rule()}")
        if strict:
            raise GameError(
                f"{quote(text)} is not in the tree format's notation: write "
                f"{self.format_code(index)!r}"
            )
        return index

    def parse_secret(self, text: str) -> int:
        """Code index of ``text`` as a secret: a code that may only be guessed (a word game's
        allowed guesses beyond its answers) is refused, not played until no secret is left."""
        index = self.parse_code(text)
        if index >= self.n_secrets:
            raise GameError(f"{quote(text)} may be guessed in {self.spec} but is not one of its "
                            f"{self.n_secrets:,} possible {self.secret_noun}s")
        return index

    def code_rule(self) -> str:
        raise NotImplementedError

    def _index(self) -> dict[tuple[int, ...], int]:
        cached = getattr(self, "_index_cache", None)
        if cached is None:
            cached = {tuple(row): i for i, row in enumerate(self.codes.tolist())}
            self._index_cache = cached
        return cached

    def _notation(self) -> dict[str, int]:
        """Code index of each code's canonical text: a strict reading is one dictionary look-up."""
        cached = getattr(self, "_notation_cache", None)
        if cached is None:
            cached = {self.format_code(i): i for i in range(self.n_codes)}
            self._notation_cache = cached
        return cached

    # --- feedback ----------------------------------------------------------------------------
    def feedback_counts(self, fid: int) -> tuple[int, ...]:
        counts = []
        for _ in self.feedback_names:
            counts.append(fid % self.base)
            fid //= self.base
        return tuple(reversed(counts))

    def feedback_id(self, counts: tuple[int, ...]) -> int:
        fid = 0
        for c in counts:
            fid = fid * self.base + c
        return fid

    def format_feedback(self, fid: int) -> str:
        texts = getattr(self, "_feedback_texts", None)
        if texts is None:
            texts = self._feedback_texts = {}
        text = texts.get(fid)
        if text is None:
            text = texts[fid] = " ".join(str(c) for c in self.feedback_counts(fid))
        return text

    def parse_feedback(self, text: str) -> int:
        """Feedback id of a key in the tree format's notation, and nothing else: the numbers as
        ASCII decimals separated by single spaces (``1 2``). What people type is read by
        ``games.reply.read_reply``."""
        texts = text.split(" ")
        if len(texts) != len(self.feedback_names) or not all(map(_NUMBER.fullmatch, texts)):
            raise GameError(
                f"feedback {quote(text)} should be {len(self.feedback_names)} numbers "
                f"({' '.join(self.feedback_names)}) separated by single spaces, e.g. "
                f"{self.format_feedback(0)!r}"
            )
        fid = self.feedback_from_digits(texts, text)
        if self.format_feedback(fid) != text:
            raise GameError(f"feedback {quote(text)} is not in the tree format's notation: "
                            f"write {self.format_feedback(fid)!r}")
        return fid

    def feedback_from_digits(self, numbers: list[str], text: str) -> int:
        """Feedback id of counts written as ASCII decimal strings, checked against the game's
        rules (``text`` is what the message quotes). Digits are counted before any conversion, so
        that a number of thousands of digits is refused like any other out of range."""
        top = self.base - 1
        values = [n.lstrip("0") or "0" for n in numbers]
        if any(len(v) > len(str(top)) or int(v) > top for v in values):
            raise GameError(f"feedback {quote(text)}: each number must be between 0 and {top}")
        counts = tuple(int(v) for v in values)
        if sum(counts) > top:
            raise GameError(
                f"feedback {quote(text)}: the numbers add up to more than {top}, "
                f"which cannot happen in {self.spec}"
            )
        return self.feedback_id(counts)

    def feedback(self, guess: int, secret: int) -> int:
        """Feedback id of one pair, in plain Python (the player and verifier use it)."""
        raise NotImplementedError

    def feedback_matrix(self) -> np.ndarray:
        """(n_codes, n_secrets) uint8 matrix F[guess, secret], built once and cached."""
        matrix = getattr(self, "_matrix", None)
        if matrix is None:
            matrix = self._build_matrix()
            self._matrix = matrix
        return matrix

    def _build_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def answer_matrices(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """(F with its feedback ids renumbered densely, that matrix transposed and contiguous,
        the winning id, the number of ids), built once: what the kernels count parts with
        (``dense_answers``). The transpose lets scoring read one secret's row at a time."""
        answers = getattr(self, "_answers", None)
        if answers is None:
            dense, win, n_answers = dense_answers(self.feedback_matrix(), self.win)
            answers = (dense, transposed(dense), win, n_answers)
            self._answers = answers
        return answers

    def answer_ids(self) -> np.ndarray:
        """The game's feedback ids that the kernels' dense ids 0, 1, ... stand for, in order
        (answer_matrices), found once: hard mode reads the marks of each, scoring by squares
        their order, for every solver (a scan of the whole matrix: 0.17 s on Battleship)."""
        ids = getattr(self, "_answer_ids", None)
        if ids is None:
            ids = self._answer_ids = np.flatnonzero(_occurs(self.feedback_matrix(), self.win))
            ids.flags.writeable = False
        return ids

    def square_answers(self) -> tuple[np.ndarray, np.ndarray] | None:
        """For a game whose guesses are three squares and whose feedback id adds up what each
        square says of the secret: (what each square says of each secret, (n_secrets, squares)
        uint8, 0 to 3; the feedback id each saying adds, (4,) int64). The kernels then score
        large nodes by sets of candidates (kernels/scoring.py); None: by the matrix alone."""
        return None

    def parts(self, guess: int, candidates: np.ndarray) -> dict[int, np.ndarray]:
        """The candidates (secrets) other than ``guess`` grouped by the feedback ``guess`` gets
        from them, in feedback-id order (the winning block is left out: it is at most the guess
        itself, and empty when the guess is no secret)."""
        feedback = self.feedback_matrix()[guess, candidates]
        order = np.argsort(feedback, kind="stable")
        values, starts = np.unique(feedback[order], return_index=True)
        ends = list(starts[1:]) + [len(order)]
        return {int(v): np.ascontiguousarray(candidates[order[a:b]])
                for v, a, b in zip(values, starts, ends, strict=True) if v != self.win}

    def feedback_rows(self, guesses: np.ndarray) -> np.ndarray:
        """(len(guesses), n_secrets) uint8: the rows ``guesses`` of the feedback matrix, by
        numpy alone (``moo info`` reads a few rows and must not load the kernels that build
        all of them)."""
        raise NotImplementedError

    @property
    def digest(self) -> str:
        """What identifies the game beyond its spec, for a process that rebuilds it elsewhere (a
        Dask worker): empty, as a spec rebuilds the game anywhere; a word game's lists'."""
        return ""

    @property
    def identity(self) -> str:
        """What a file about the game must match: its digest when it has one (a word game is
        its lists, whatever paths name them), else its spec."""
        return self.digest or self.spec

    def spec_from(self, folder: str | os.PathLike) -> str:
        """The spec as a file in ``folder`` names the game (a word game names its list files
        relative to that folder, WordGame)."""
        return self.spec

    # --- hard mode ---------------------------------------------------------------------------
    has_hard_mode = False  # whether the game has a hard-mode rule (word games)

    def keeps_hints(self, earlier: int, fid: int, guess: int) -> bool:
        """Whether ``guess`` keeps what ``earlier`` revealed by getting ``fid`` (hard mode)."""
        raise GameError(f"{self.spec} has no hard mode: only word games do; "
                        "--guesses consistent guesses only codes that can still be the secret")

    # --- symmetry ----------------------------------------------------------------------------
    def symmetry(self) -> Symmetry:
        raise NotImplementedError

    def first_guesses(self) -> np.ndarray:
        """One code per class of equivalent first guesses, the smallest of each orbit of
        ``symmetry()``'s group: the guesses the search keeps at its root
        (kernels.symmetry.representative_mask with no guess made), by numpy alone."""
        least = self._smallest_in_orbits()
        return np.flatnonzero(least == np.arange(self.n_codes))

    def first_guess_class(self, code: int) -> int:
        """The code of ``first_guesses`` standing for ``code``'s class (what facts are keyed by)."""
        return int(self._smallest_in_orbits()[code])

    def _smallest_in_orbits(self) -> np.ndarray:
        """Each code's orbit's smallest code, made once (a merge asks it for every tree)."""
        least = getattr(self, "_orbit_least", None)
        if least is None:
            least = self._orbit_least = smallest_in_orbits(
                self.n_codes, generators(self.symmetry(), self.codes))
        return least

    def feedback_classes(self, first: np.ndarray | None = None) -> np.ndarray:
        """The feedback ids that occur in the game, in increasing order, from the rows of
        ``first_guesses`` (``first`` when given) alone: a symmetry maps every (guess, secret)
        pair to a pair whose guess is one of them, with the same feedback (the group keeps
        feedback)."""
        seen = np.zeros(256, dtype=bool)
        guesses = self.first_guesses() if first is None else first
        step = max(1, (1 << 24) // self.n_secrets)  # rows of at most 16 MB at a time
        for start in range(0, len(guesses), step):
            seen[self.feedback_rows(guesses[start:start + step]).ravel()] = True
        return np.flatnonzero(seen)

    def describe(self) -> dict:
        """Facts for ``moo info``."""
        facts = {"game": self.spec, "codes": self.n_codes}
        if self.n_secrets != self.n_codes:
            facts["secrets"] = self.n_secrets
        facts["feedback"] = " ".join(self.feedback_names)
        return facts


def transposed(matrix: np.ndarray, block: int = 512) -> np.ndarray:
    """``matrix.T``, contiguous, copied by square blocks that stay in the cache: 0.02 s for
    Bulls and Cows' 5040 x 5040 where np.ascontiguousarray(matrix.T) took 0.2 s."""
    rows, columns = matrix.shape
    out = np.empty((columns, rows), dtype=matrix.dtype)
    for i in range(0, rows, block):
        for j in range(0, columns, block):
            out[j:j + block, i:i + block] = matrix[i:i + block, j:j + block].T
    return out


def _occurs(matrix: np.ndarray, win: int) -> np.ndarray:
    """occurs[f]: whether feedback id f occurs in ``matrix``, for f up to the largest id that
    does or the win: the ids the kernels renumber densely, in order (``dense_answers``)."""
    seen = np.zeros(256, dtype=bool)  # ids are bytes; marking them beats np.bincount 5 times
    seen[matrix.ravel()] = True
    return seen[:max(win, int(np.flatnonzero(seen)[-1])) + 1]


def dense_answers(matrix: np.ndarray, win: int) -> tuple[np.ndarray, int, int]:
    """(the matrix with its feedback ids renumbered 0..k-1 in their order, the winning id, k):
    the kernels count parts per id, and ids no guess can get cost as much as real ones
    (Mastermind 4x6: 14 answers among 25 ids, Battleship 20 among 64). The kernels answer only
    guesses and values; trees keep the game's own ids."""
    occurs = _occurs(matrix, win)
    if occurs.all():
        return matrix, win, len(occurs)
    renumber = (np.cumsum(occurs) - 1).astype(matrix.dtype)
    return renumber[matrix], int(renumber[win]), int(occurs.sum())
