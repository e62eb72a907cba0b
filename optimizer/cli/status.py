"""The exit statuses of every command (README.md and docs/commands.md list them)."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    """What a command's exit status says; every command returns one of these."""

    # done: for ``prove``, the claim holds; for ``build``, the search finished; for ``play``,
    # the secret was solved
    FINISHED = 0
    # ``prove``'s claim is false; ``verify``, ``checkpoint show|verify`` or ``compare`` found a
    # defect; ``play``: the secret was not solved (given up, end of input, a contradiction)
    FAILED = 1
    # bad input (arguments, files), said in one line ``moo: error: ...``
    ERROR = 2
    # a time limit or a signal (Ctrl-C, SIGTERM, SIGHUP) ended the search first; what is known
    # was written and printed (best tree, proven bound, checkpoint); ``moo play --json`` ended
    # by a signal
    STOPPED = 3
    # a command with nothing to keep (info, verify, page, compare, play at a terminal)
    # interrupted by Ctrl-C or a signal
    INTERRUPTED = 130
