"""``moo play FILE --json``: a stored tree driven by another program, one JSON object a line.

Every line read gets exactly one object in reply, and one object comes first, so a driver in
any language pairs them without parsing ahead. A line is one of:

- a feedback to the current guess, typed as for ``moo play`` (``1 2``, ``1,2``, ``w``);
- ``new``: start another game with the same tree;
- after answers that contradict each other, the secret, so that the wrong answers are named.

Each object holds the state of the game (``guess`` to answer, null once the game is over;
``guesses`` answered; ``candidates`` still possible; ``solved``; ``contradiction``), plus
``"ask": "secret"`` when the next line should be the secret, ``secret`` once known,
``wrong_answers`` once named, ``tree_defect`` when the tree has no move for an answer that
some secret fits, and ``error`` when the line was not taken (the state is then the same as
before). The games are played by ``session.Session``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO, TextIO

import orjson

from .games import GameError
from .games.reply import read_reply
from .session import CONTRADICTION, FeedbackError, Session

NEW_GAME = "new"


def serve(new_session: Callable[[], Session], lines: BinaryIO, out: TextIO) -> int:
    """Play games until the input ends; bytes that are not UTF-8 are an error object, not a
    crash. Exit status 0."""
    session = new_session()
    named: dict | None = None  # the secret and the wrong answers, once the secret was given
    _write(out, state(session))
    for raw in lines:
        text = raw.decode("utf-8", errors="replace").strip()
        reply = state(session, named)
        if text.lower() == NEW_GAME:
            session, named = new_session(), None
            reply = state(session)
        elif session.status == CONTRADICTION and named is None:
            try:
                named = wrong_answers(session, text)
                reply = state(session, named)
            except GameError as exc:
                reply["error"] = f"{exc}; send your secret so that the wrong answers are named"
        elif session.over:
            reply["error"] = f"the game is over; send {NEW_GAME!r} for another"
        else:
            reply = _answer(session, text)
        _write(out, reply)
    return 0


def _answer(session: Session, text: str) -> dict:
    """The state after the feedback ``text``, or the state before with the reason it was not
    taken."""
    try:
        session.answer(session.game.feedback_counts(read_reply(session.game, text)))
    except FeedbackError as exc:
        return {**state(session), "error": str(exc)}
    except ValueError as exc:  # GameError, or a number too long for int() (issue 12)
        return {**state(session), "error": f"not understood: {exc}"}
    return state(session)


def wrong_answers(session: Session, secret: str) -> dict:
    """The secret in its notation, and every answer that was not its feedback."""
    wrong = [{"number": w.number, "guess": w.guess, "given": w.given, "truth": w.truth}
             for w in session.wrong_answers(secret)]
    return {"secret": session.game.format_code(session.game.parse_code(secret)),
            "wrong_answers": wrong}


def state(session: Session, named: dict | None = None) -> dict:
    """The object written after each line."""
    data: dict = {
        "guess": session.guess,
        "guesses": session.guesses,
        "candidates": session.candidates_left,
        "solved": session.solved,
        "contradiction": session.contradiction,
    }
    if session.solved:
        data["secret"] = session.secret
    if session.contradiction and named is None:
        data["ask"] = "secret"  # no secret agrees with every answer: one of them is wrong
    if named is not None:
        data.update(named)
    if session.tree_defect:
        data["tree_defect"] = session.tree_defect
    return data


def _write(out: TextIO, data: dict) -> None:
    out.write(orjson.dumps(data).decode() + "\n")
    out.flush()
