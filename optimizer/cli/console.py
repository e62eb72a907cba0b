"""The terminal of ``moo play``: lines said and asked, and the words that end a game."""

from __future__ import annotations

import os
import sys

QUIT_WORDS = frozenset({"q", "quit", "exit", "stop"})


class EndOfInput(Exception):
    """The person closed the input (EOF) or asked to stop."""


class Stopped(EndOfInput):
    """The person typed one of the ``QUIT_WORDS``."""


def say(text: str = "") -> None:
    print(text, flush=True)


def ask(prompt: str) -> str:
    """One line from the person, stripped. Piped input is echoed so transcripts read well."""
    try:
        line = input(prompt)
    except EOFError:
        raise EndOfInput from None
    except UnicodeDecodeError:
        line = "\ufffd"  # not text: rejected as not understood, then asked again
    except (OSError, RuntimeError):  # stdin closed or missing
        raise EndOfInput from None
    if not _is_tty(sys.stdin):
        print(line, flush=True)
    return line.strip()


def _is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def silence_stdout() -> None:
    """After a closed pipe (``moo play ... | head``), let the interpreter exit quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
