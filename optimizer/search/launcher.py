"""The launcher that the worker processes of local Dask clusters (dask_engine.py) start with: a
private script that ignores the terminal's Ctrl-C and hang-up, so that only the command acts on
them."""

from __future__ import annotations

import atexit
import os
import shutil
import threading


class _Launcher:
    """The script local clusters' worker processes start with (``hold_launcher``)."""

    lock = threading.Lock()
    users = 0  # local clusters of this process that use it
    folder: str | None = None
    previous: str | None = None  # multiprocessing's executable before it
    at_exit = False  # _remove_launcher registered with atexit


def hold_launcher() -> str | None:
    """Start the worker processes of local clusters with SIGINT and SIGHUP ignored: a terminal
    sends Ctrl-C and hang-up to every process of its group, but only this command should act on
    them (stop the search, write what it has, close the workers). Ignored signals stay ignored
    across exec, and Python then installs no handler of its own; multiprocessing starts its
    processes with this launcher instead of the interpreter itself.

    The launcher is a script in a folder of this process's own, made private (mkdtemp: a fresh
    random name, mode 0700), never at a predictable path of the shared temporary folder, where
    another user's file would be run by the next build or block every run. It stays while any
    local cluster of this process lives (the nanny starts a killed worker's replacement with
    it); ``release_launcher`` removes it after the last. Returns its path (None where there is
    no /bin/sh: the interpreter itself, signals not ignored)."""
    import multiprocessing.spawn
    import shlex
    import sys
    import tempfile

    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return None
    with _Launcher.lock:
        if _Launcher.users == 0:
            folder = tempfile.mkdtemp(prefix="moo-workers-")
            path = os.path.join(folder, "python")
            script = f"#!/bin/sh\ntrap '' INT HUP\nexec {shlex.quote(sys.executable)} \"$@\"\n"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o700)
                with os.fdopen(fd, "w") as handle:
                    handle.write(script)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            if not _Launcher.at_exit:
                _Launcher.at_exit = True
                atexit.register(_remove_launcher)
            _Launcher.folder = folder
            _Launcher.previous = multiprocessing.spawn.get_executable()
            multiprocessing.spawn.set_executable(path)
        _Launcher.users += 1
        return os.path.join(_Launcher.folder, "python")


def release_launcher() -> None:
    """One local cluster less: after the last, the launcher's folder is removed."""
    with _Launcher.lock:
        _Launcher.users = max(0, _Launcher.users - 1)
        if _Launcher.users == 0:
            _remove_launcher()


def _remove_launcher() -> None:
    """The launcher's folder removed and multiprocessing's own executable back."""
    import multiprocessing.spawn

    if _Launcher.folder is not None:
        multiprocessing.spawn.set_executable(_Launcher.previous)
        shutil.rmtree(_Launcher.folder, ignore_errors=True)
        _Launcher.folder = None
