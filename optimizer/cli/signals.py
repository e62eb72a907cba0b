"""Signals held while a command finishes its output: once the search is over, checking and
writing the tree it found is a moment's work that an interruption would throw away, so a
signal then is noted (``app._interrupted``) and said after the tree is written."""

from __future__ import annotations

_HELD: list[list[str]] = []  # while held: the names of the signals that came


def hold_signals() -> None:
    """From now until ``release_signals``, a signal is noted instead of interrupting."""
    if not _HELD:
        _HELD.append([])


def note_held(name: str) -> bool:
    """Note a signal if they are held; whether they are."""
    if _HELD:
        _HELD[0].append(name)
    return bool(_HELD)


def release_signals() -> list[str]:
    """End ``hold_signals``; the names of the signals that came meanwhile."""
    return _HELD.pop() if _HELD else []
