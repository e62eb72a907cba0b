"""What a run shows while it works, through one object passed once to the search: its progress
bars, its notes (a line above the bars), numba's compiling announcements. ``QUIET`` shows
nothing: the same calls, drawn nowhere (tests, scripts, the API by default)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm

# How long numba takes to compile one search's kernels on an empty cache, at most (2026-11-25,
# one core of a 2-core machine: 17-26 s each alone, less after another, as they share the guess
# pools): what ``compiling`` tells the user to expect.
COMPILE_SECONDS = 30
# How often a bar is written, at most, where standard error is not a terminal (a log file, a
# pipe): a line each time. Redrawn at every note, the exact Battleship run wrote 25.6 MB of
# carriage-return updates to its log in 2.3 hours, some 12 a second.
LOG_SECONDS = 30.0


class Observer:
    """Progress on standard error; ``quiet``: none at all."""

    def __init__(self, quiet: bool = False, on_finished=None):
        self.quiet = quiet
        self.on_finished = on_finished  # called once the search itself is over (``finished``)

    def finished(self) -> None:
        """The search is over: what follows (checking the tree, closing the engine, the command
        writing it) is quick and worth keeping from a signal; a command holds them till then."""
        if self.on_finished is not None:
            self.on_finished()

    @property
    def shows(self) -> bool:
        """Whether anything is drawn (numba's compiling is announced only then)."""
        return not self.quiet

    def bar(self, iterable=None, **options) -> tqdm:
        """A progress bar (tqdm's options: desc, total, unit...), drawn unless quiet: on a
        terminal redrawn in place, else (``LoggedBar``) a line every ``LOG_SECONDS``."""
        if not self.quiet and not _terminal(sys.stderr):
            return LoggedBar(iterable, file=Lines(sys.stderr), mininterval=LOG_SECONDS,
                             **options)
        return tqdm(iterable, disable=self.quiet, **options)

    def note(self, text: str, file=None) -> None:
        """One line, above any bar drawn (standard output unless ``file``), unless quiet."""
        if not self.quiet:
            tqdm.write(text, file=file or sys.stdout)


QUIET = Observer(quiet=True)


def _terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class LoggedBar(tqdm):
    """A bar written to a log: at most once a ``mininterval``, also when a note changes it
    (tqdm redraws then whatever the interval), and once more as it closes (its last state)."""

    _written = float("-inf")  # time of the last line (set before tqdm's first refresh)

    def refresh(self, nolock=False, lock_args=None):
        now = self._time()
        if now - self._written < self.mininterval:
            return False
        self._written = now
        return super().refresh(nolock=nolock, lock_args=lock_args)

    def display(self, msg=None, pos=None):
        """Nothing while the bar counts nothing and says nothing (a total not yet known, or
        none: a search with no class to search logged "0class" lines); a note is a line."""
        if not self.n and not self.total and not self.postfix:
            return True
        return super().display(msg=msg, pos=pos)

    def moveto(self, n):
        """Not in a log: tqdm moves the cursor to a second bar's row (an escape sequence), where
        here every state is a line of its own."""


class Lines:
    """A stream for LoggedBar: each state a line of its own, where tqdm writes one after
    another behind carriage returns (a log read with `tail` or `less` showed one line of
    megabytes); its clearings (blanks) are dropped."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str):  # encoding, fileno...: the stream's
        return getattr(self.stream, name)


@contextmanager
def compiling(what: str, announce: bool = True) -> Iterator[None]:
    """Say on stderr that numba compiles ``what`` when it does, and then how long it took: numba
    signals a compilation ("numba:compile" events) only once no cached version could be loaded,
    so a run whose kernels are all in the cache says nothing."""
    if not announce:
        yield
        return
    from numba.core import event

    started: list[float] = []

    class Said(event.Listener):
        def on_start(self, ev) -> None:
            if not started:
                started.append(time.monotonic())
                print(f"compiling {what} (first run only, up to about {COMPILE_SECONDS} s)...",
                      end="", file=sys.stderr, flush=True)

        def on_end(self, ev) -> None:
            pass

    try:
        with event.install_listener("numba:compile", Said()):
            yield
    finally:
        if started:
            print(f" {time.monotonic() - started[0]:.0f} s", file=sys.stderr, flush=True)
