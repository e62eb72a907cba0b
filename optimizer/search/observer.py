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
        """A progress bar (tqdm's options: desc, total, unit...), drawn unless quiet."""
        return tqdm(iterable, disable=self.quiet, **options)

    def note(self, text: str, file=None) -> None:
        """One line, above any bar drawn (standard output unless ``file``), unless quiet."""
        if not self.quiet:
            tqdm.write(text, file=file or sys.stdout)


QUIET = Observer(quiet=True)


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
