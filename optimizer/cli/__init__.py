"""The command line, ``moo``: one module per command (``configure`` and ``run``), the exit
statuses (``status.Exit``) and the options they share (``options``). Light: importing this
package loads no numba and no search.

A signal while the package itself is imported (numpy's import: a third of a second) ends the
process with status 130 and one line, as a search still setting up does; ``entry`` installs
the command's handlers next. What was in place before is put back once imported, so that a
program importing this package keeps its own."""

import os
import signal
import threading

_SIGNALS = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
            if hasattr(signal, name)]


def _starting(signum, frame) -> None:  # nothing begun yet: nothing to keep or write
    os.write(2, b"moo: interrupted while starting: nothing was done\n")
    os._exit(130)


# A signal ignored stays ignored (nohup's SIGHUP; Dask's workers, started with SIGINT ignored,
# import this package again as their main module).
_before = {s: signal.signal(s, _starting) for s in _SIGNALS
           if signal.getsignal(s) is not signal.SIG_IGN} \
    if threading.current_thread() is threading.main_thread() else {}
try:
    from .app import entry, main  # noqa: E402
finally:  # whatever happens, the importing program's handlers are put back
    for _signal, _handler in _before.items():
        signal.signal(_signal, _handler)

__all__ = ["entry", "main"]
