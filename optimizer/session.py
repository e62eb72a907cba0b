"""A stored tree as a solver for any Python program: the one implementation of playing a tree.

Load a tree once (``Solver.load``), start a game (``solver.new_game()``) and tell it the feedback
to each guess: it gives the next guess, the secrets still possible, and whether the answers
contradict each other; once the secret is known it names every wrong answer. The terminal
player (``moo play``), its JSON protocol (``moo play FILE --json``) and the tests all play
through this module. Nothing here imports numba, so a tree of 10000 codes is ready in about
0.2 s.

Codes and feedback are strings in the notation of the tree format (``"0123"``, ``"A1 C3 H2"``,
``"1 2"``); feedback may also be given as its numbers, ``(1, 2)``.
"""

from __future__ import annotations

import numbers
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .formats.tree_file import read_tree
from .games import Game, GameError
from .games.base import shown
from .games.reply import read_reply
from .tree import Node, Tree, TreeError, printable, repeated_guess

# Session.status
PLAYING = "playing"
SOLVED = "solved"
CONTRADICTION = "contradiction"  # no secret agrees with every answer: one of them is wrong
NO_MOVE = "no-move"  # secrets remain but the tree has no branch for the answer: a defective file


class FeedbackError(GameError):
    """A feedback the current guess cannot get, or feedback after the game is over. The game is
    left as it was, so the caller can ask again."""


@dataclass(frozen=True)
class Round:
    """One guess and the feedback it got."""

    guess: str
    feedback: str


@dataclass(frozen=True)
class WrongAnswer:
    """An answer that was not the secret's true feedback; ``number`` 1 is the first guess."""

    number: int
    guess: str
    given: str
    truth: str


# --- where the guesses come from ---------------------------------------------------------------
class Guesser(Protocol):
    """A stored tree, or a rule applied on the fly."""

    def next_guess(self, candidates: list[int]) -> int: ...

    def advance(self, reply: int) -> bool: ...


class TreeGuesser:
    """Walks a stored tree: the guess is the current node's, feedback picks the child."""

    def __init__(self, tree: Tree):
        self.node: Node = tree.root

    def next_guess(self, candidates: list[int]) -> int:
        return self.node.guess

    def advance(self, reply: int) -> bool:
        """Follow ``reply``; False when the tree has no branch for it."""
        child = self.node.next.get(reply)
        if child is None:
            return False
        self.node = child
        return True


class RandomConsistent:
    """Seed 001's guesser, for a game without a tree: a random code among those that fit every
    answer so far."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def next_guess(self, candidates: list[int]) -> int:
        return self.rng.choice(candidates)

    def advance(self, reply: int) -> bool:
        return True


# --- the API -------------------------------------------------------------------------------
class Solver:
    """A stored tree, read and checked once; every game played with it is a ``Session``."""

    def __init__(self, tree: Tree, where: str = "tree"):
        """A ``TreeError`` (naming ``where`` the tree comes from) refuses a tree on which a game
        could go on without progress (a guess made again on its own path); any other defect is
        found when a game reaches it (``NO_MOVE``), as ``moo verify`` finds it in the file."""
        defect = repeated_guess(tree)
        if defect is not None:
            raise TreeError(f"{where}: {defect}")
        self.tree = tree
        self.game = tree.game
        self._proof: str | None = None

    @classmethod
    def load(cls, path: str | Path) -> Solver:
        """Read a tree file; a ``TreeError`` names what keeps it from being a tree (its claims
        are held by ``proof``; ``TreeFileError``: unreadable)."""
        if not isinstance(path, str | os.PathLike):  # open(123): file descriptor 123
            raise TreeError(f"a tree file's path is a string or a path object, not {shown(path)} "
                            f"({type(path).__name__})")
        return cls(read_tree(path), printable(path))

    def new_game(self, feedback: Iterable[str | Sequence[int]] = ()) -> Session:
        """A game at its first guess, or after ``feedback``, the answers already given to the
        tree's guesses in order (a stateless caller passes all of them each time)."""
        if isinstance(feedback, (str, bytes, dict)) or not isinstance(feedback, Iterable):
            # a string's characters (or a dict's keys) would be taken as answers one by one
            raise GameError(f"feedback {shown(feedback)} ({type(feedback).__name__}): give a "
                            "list of the answers so far, such as ['0 2', '1 1']")
        session = Session(self.game, TreeGuesser(self.tree))
        for reply in feedback:
            session.answer(reply)
        return session

    @property
    def proof(self) -> str:
        """The tree's optimality claim, as ``moo verify`` judges it: ``"proven"``, ``"proven,
        resting on N checkpoint facts"`` (facts an earlier run recorded, taken by the search
        unchecked: the optimum holds if they do), or ``"not proven"`` (no claim, or one the
        replay of every secret contradicts). Replays the tree the first time it is asked."""
        if self._proof is None:
            from .provenance import proof

            self._proof = proof(self.tree)
        return self._proof

    @property
    def checkpoint_facts(self) -> int:
        """How many checkpoint facts the tree's claims rest on (``provenance.checkpoint_facts``)."""
        from .provenance import checkpoint_facts

        return checkpoint_facts(self.tree)


class Session:
    """One game: the computer guesses, ``answer`` gives the feedback, until the secret is found
    or the answers contradict each other."""

    def __init__(self, game: Game, guesser: Guesser):
        self.game = game
        self.status = PLAYING
        self.tree_defect: str | None = None  # why the game stopped when status is NO_MOVE
        self._guesser = guesser
        self._candidates = list(range(game.n_secrets))
        self._rounds: list[tuple[int, int]] = []  # (guess id, feedback id)
        self._guess = guesser.next_guess(self._candidates)

    # --- the state --------------------------------------------------------------------------
    @property
    def guess(self) -> str | None:
        """The guess to answer now; None once the game is over."""
        return self.game.format_code(self._guess) if self.status == PLAYING else None

    @property
    def guesses(self) -> int:
        """Guesses answered so far."""
        return len(self._rounds)

    @property
    def candidates(self) -> list[str]:
        """Every secret that agrees with all answers so far (empty after a contradiction)."""
        return [self.game.format_code(c) for c in self._candidates]

    @property
    def candidates_left(self) -> int:
        return len(self._candidates)

    @property
    def rounds(self) -> list[Round]:
        return [Round(self.game.format_code(g), self.game.format_feedback(f))
                for g, f in self._rounds]

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    @property
    def contradiction(self) -> bool:
        """True when no secret agrees with every answer: one of them is wrong."""
        return self.status == CONTRADICTION

    @property
    def over(self) -> bool:
        return self.status != PLAYING

    @property
    def secret(self) -> str | None:
        """The secret, once solved."""
        return self.game.format_code(self._guess) if self.solved else None

    # --- moves ------------------------------------------------------------------------------
    def answer(self, feedback: str | Sequence[int]) -> None:
        """Record the feedback to the current guess: ``"1 2"`` or ``(1, 2)``, the winning
        feedback (``"4 0"``) when it is the secret. Only strings and lists or tuples of ints are
        feedback (a float, a bool, a dict or a set is refused, never converted). A
        ``GameError`` (``FeedbackError``) says why a feedback is refused (not valid, impossible
        for this guess, game over); the game is then unchanged. A feedback that only contradicts
        earlier answers is taken: the game ends with ``contradiction`` set."""
        reply = self._feedback_id(feedback)
        if self.over:
            raise FeedbackError(f"the game is over ({self.status}); start a new one")
        game, guess = self.game, self._guess
        remaining = [s for s in self._candidates if game.feedback(guess, s) == reply]
        if not remaining and not self._can_happen(reply):
            raise FeedbackError(
                f"{game.format_feedback(reply)} cannot happen: no {game.secret_noun} of "
                f"{game.spec} gives "
                f"that to {game.format_code(guess)}"
            )
        self._rounds.append((guess, reply))
        self._candidates = remaining
        if not remaining:
            self.status = CONTRADICTION
        elif reply == game.win:
            self.status = SOLVED
        elif not self._guesser.advance(reply):
            self.status = NO_MOVE
            self.tree_defect = (
                f"the stored tree has no move after {game.format_code(guess)} -> "
                f"{game.format_feedback(reply)}, although {len(remaining)} secret(s) fit every "
                "answer: the tree file is incomplete (check it with moo verify)"
            )
        else:
            self._guess = self._guesser.next_guess(remaining)

    def answer_for(self, secret: str) -> str:
        """Answer the current guess truthfully for ``secret``; return the feedback given."""
        truth = self.game.format_feedback(
            self.game.feedback(self._guess, self.game.parse_secret(secret))
        )
        self.answer(truth)
        return truth

    def wrong_answers(self, secret: str) -> list[WrongAnswer]:
        """Every answer so far that is not ``secret``'s feedback (a ``GameError`` when
        ``secret`` is not a possible secret of the game)."""
        game = self.game
        code = game.parse_secret(secret)
        wrong = []
        for number, (guess, reply) in enumerate(self._rounds, start=1):
            truth = game.feedback(guess, code)
            if truth != reply:
                wrong.append(WrongAnswer(number, game.format_code(guess),
                                         game.format_feedback(reply), game.format_feedback(truth)))
        return wrong

    # --- helpers ----------------------------------------------------------------------------
    def _feedback_id(self, feedback: str | Sequence[int]) -> int:
        """The feedback id of a string in the player's forms, or of a list or tuple of whole
        numbers. Nothing is converted: a float is not truncated, a dict is not taken as its
        keys, True is not 1 (a GameError names what was given)."""
        if isinstance(feedback, str):
            return read_reply(self.game, feedback)
        game = self.game
        if not (isinstance(feedback, list | tuple)
                and all(_is_count(n) for n in feedback)):
            raise GameError(f"feedback {shown(feedback)} ({type(feedback).__name__}): give a "
                            "string such as '1 2' or a tuple or list of whole numbers such as "
                            "(1, 2)")
        if len(feedback) != len(game.feedback_names):
            raise GameError(f"feedback {shown(feedback)}: give {len(game.feedback_names)} "
                            f"numbers ({' '.join(game.feedback_names)})")
        top = game.base - 1
        if not all(0 <= n <= top for n in feedback):  # checked before str(): no huge numbers
            raise GameError(f"feedback {shown(feedback)}: each number must be between 0 and "
                            f"{top}")
        text = " ".join(str(int(n)) for n in feedback)
        return game.feedback_from_digits(text.split(" "), text)

    def _can_happen(self, reply: int) -> bool:
        """Whether some code of the game gives ``reply`` to the current guess at all."""
        game, guess = self.game, self._guess
        return any(game.feedback(guess, s) == reply for s in range(game.n_secrets))


def _is_count(value: object) -> bool:
    """A whole number given as such: ints (numpy's too), not bools (numpy's are not Integral),
    floats or strings."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
