"""What the commands that run searches share: exit statuses and the options of a search run.

Exit statuses (every command):
- 0 ``FINISHED``: done; for ``prove``, the claim holds; for ``build``, the search finished.
- 1 ``CLAIM_FAILS``: ``prove``'s claim is false; ``verify`` found a defect.
- 2 ``ERROR``: bad input (arguments, files), said in one line.
- 3 ``STOPPED``: a time limit or a signal (Ctrl-C, SIGTERM, SIGHUP) ended the search first;
  what is known was written and printed (best tree, proven bound, checkpoint).
"""

from __future__ import annotations

import argparse
import math

FINISHED, CLAIM_FAILS, ERROR, STOPPED = 0, 1, 2, 3


def seconds(text: str) -> float:
    """A time limit: a finite, positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def levels(text: str) -> int:
    """A number of levels: a whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of levels (0 or more)")
    return int(text)


def workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1 worker")
    return value


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """--time-limit, --workers and --scheduler: how long and where a search runs."""
    parser.add_argument("--time-limit", type=seconds, default=None, metavar="SECONDS",
                        help="stop after this long, counted from the command's start, with "
                             "what is known (exit status 3)")
    parser.add_argument("--workers", type=workers, default=None, metavar="N",
                        help="worker processes on this machine (default: one per core, or "
                             "this process alone for games under 2000 codes)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                        help="run on this Dask cluster instead (default: $MOO_SCHEDULER)")
