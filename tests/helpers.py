"""Helpers that several test modules share (a module of its own: test modules do not import
each other)."""

from __future__ import annotations

import errno
from pathlib import Path

import orjson

# Markup and script for every free text field of a tree file: none of it may run or show as markup.
HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">&amp;'


def hostile_tree(source: Path, folder: Path) -> Path:
    """The same strategy, with markup and script in every free text field and in its name."""
    data = orjson.loads(source.read_bytes())
    data["objective"] = HOSTILE
    data["meta"] = {"note": HOSTILE}
    data["optimal"] = False
    data["lower_bound"] = 1
    path = folder / '<img src=x onerror="alert(1)">.json'
    path.write_bytes(orjson.dumps(data))
    return path


def a_lie(session) -> str | None:
    """A feedback that some code gives to the current guess but no candidate does."""
    game = session.game
    guess = game.parse_code(session.guess)
    possible = {game.feedback(guess, c) for c in range(game.n_codes)}
    fitting = {game.feedback(guess, game.parse_code(c)) for c in session.candidates}
    return game.format_feedback(min(possible - fitting)) if possible - fitting else None


class HalfWriter:
    """A file handle that writes half of what it is given, then fails like a full disk."""

    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def write(self, data):
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")
