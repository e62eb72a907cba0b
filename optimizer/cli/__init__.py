"""The command line, ``moo``: one module per command (``configure`` and ``run``), the exit
statuses (``status.Exit``) and the options they share (``options``). Light: importing this
package loads no numba and no search."""

from .app import entry, main

__all__ = ["entry", "main"]
