"""``moo play FILE --json``: a stored tree driven by another program, one JSON object a line.

Every line read gets exactly one object in reply, and one object comes first, so a driver in
any language pairs them without parsing ahead. A line is one of:

- a feedback to the current guess, typed as for ``moo play`` (``1 2``, ``1,2``, ``w``);
- ``new``: start another game with the same tree;
- after answers that contradict each other, the secret, so that the wrong answers are named
  (a secret spelled ``new``, a word game's answer, is the secret then: ``new`` again starts
  another game).

Each object holds the state of the game (``guess`` to answer, null once the game is over;
``guesses`` answered; ``candidates`` still possible; ``solved``; ``contradiction``), plus
``"ask": "secret"`` when the next line should be the secret, ``secret`` once known,
``wrong_answers`` once named, ``tree_defect`` when the tree has no move for an answer that
some secret fits, and ``error`` when the line was not taken (the state is then the same as
before). The games are played by ``session.Session``.

A line longer than ``MAX_LINE`` bytes is refused with an error object and the session goes on;
it is never held whole (a driver's runaway line costs no memory). A signal (SIGINT, SIGTERM,
SIGHUP) ends the session with a last object ``{"error": "stopped by SIGTERM: ...", "stopped":
"SIGTERM"}`` and status 3, so the output stays one JSON object a line to the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO, TextIO

import orjson

from ..games import GameError
from ..games.reply import read_reply
from ..session import CONTRADICTION, FeedbackError, Session
from .status import Exit

NEW_GAME = "new"

# The longest line taken, in bytes. The longest legitimate line is a secret or a tagged feedback
# of a few dozen characters (games of at most 40000 codes: ``0 1 2 3 4 5 6 35``, 16; ``exact: 5,
# one-away: 0, two-away: 0``, 34); 4096 leaves room for any spacing a driver may add.
MAX_LINE = 4096
_DISCARD = 65536  # what is read at a time of the rest of a longer line


def serve(new_session: Callable[[], Session], lines: BinaryIO, out: TextIO) -> Exit:
    """Play games until the input ends (status 0); bytes that are not UTF-8 and lines over
    ``MAX_LINE`` bytes are error objects, not crashes. A signal (KeyboardInterrupt) ends the
    session with an error object naming it, status 3."""
    try:
        _serve(new_session, lines, out)
    except KeyboardInterrupt as exc:
        name = exc.args[0] if exc.args and isinstance(exc.args[0], str) else "SIGINT"
        _write(out, {"error": f"stopped by {name}: the session is over", "stopped": name})
        return Exit.STOPPED
    return Exit.FINISHED


def _serve(new_session: Callable[[], Session], lines: BinaryIO, out: TextIO) -> None:
    session = new_session()
    named: dict | None = None  # the secret and the wrong answers, once the secret was given
    _write(out, state(session))
    while True:
        raw = read_line(lines)
        if raw is None:
            return
        reply = state(session, named)
        if len(raw) > MAX_LINE:
            reply["error"] = (f"line too long: more than {MAX_LINE} bytes (a line is a "
                              "feedback, new, or a secret); nothing was taken")
            _write(out, reply)
            continue
        text = raw.decode("utf-8", errors="replace").strip()
        asked = session.status == CONTRADICTION and named is None  # for the secret
        if text.lower() == NEW_GAME and not (asked and _a_secret(session, text)):
            session, named = new_session(), None
            reply = state(session)
        elif asked:
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


def _a_secret(session: Session, text: str) -> bool:
    """Whether ``text`` names a secret of the game: asked for the secret, a word game whose
    answers hold the word "new" takes it as the secret, not as a new game."""
    try:
        session.game.parse_secret(text)
    except GameError:
        return False
    return True


def read_line(lines: BinaryIO) -> bytes | None:
    """The next line without its end, None at the end of the input. A line over ``MAX_LINE``
    bytes is read past in pieces and given as its first ``MAX_LINE + 1`` bytes, so that no more
    than that is ever held."""
    raw = lines.readline(MAX_LINE + 2)  # the line, its end of line (\r\n), and one byte more
    if not raw:
        return None
    line = raw.rstrip(b"\r\n")
    if len(line) <= MAX_LINE:
        return line
    while not raw.endswith(b"\n"):
        raw = lines.readline(_DISCARD)
        if not raw:
            break
    return line[: MAX_LINE + 1]


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
