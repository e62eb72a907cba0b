"""What a run shows while it works, through one object passed once to the search: its progress
bars, its notes (a line above the bars), numba's compiling announcements. ``QUIET`` shows
nothing: the same calls, drawn nowhere (tests, scripts, the API by default)."""

from __future__ import annotations

import sys

from tqdm import tqdm


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
