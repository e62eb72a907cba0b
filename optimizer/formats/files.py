"""Safe file output: outputs written atomically (a reader sees the old file or the whole new one)
and checked before any work; and what runs sharing one file (a checkpoint) take: its lock, and
what tells one version from another. Inputs are read by ``reading.read_file``."""

from __future__ import annotations

import errno
import gc
import os
import secrets
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..reading import file_kind
from ..tree import printable


class OutputError(ValueError):
    """A place where an output file cannot be written, found before any work starts."""


def write_atomic(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` so that a reader sees the old file or the whole new one,
    never a part: a temporary file in the same folder, then a rename over the old file.

    Only regular files are written: a folder, device, FIFO or socket at ``path`` is refused
    (OutputError) instead of being replaced. A symbolic link is followed (a dangling one too,
    as the shell's ``>`` does): the file it names is replaced and the link stays. The file keeps
    its permissions (and, where allowed, its owner); a new file gets 0666 less the umask, as any
    program's new file does. No folder is created: ``check_output`` refuses a missing one
    before the work. An OSError names ``path`` (not the temporary file)."""
    target = link_target(path)
    old = _existing(target, path)
    try:
        fd, tmp = _temporary(target, ".tmp")
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        _existing(target, path)  # replaced by a device or FIFO meanwhile: still refused
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
        raise


def check_output(path: str | Path) -> Path:
    """Refuse, before any search starts, a place where ``write_atomic`` would fail or do harm: a
    folder, a device, FIFO or socket (never replaced by a file), a missing folder (none is
    created), a place this process cannot write. A symbolic link is checked where it points.
    Every command checks its output files (``-o``, ``--checkpoint``, ``--plot``) with this."""
    if not str(path).strip():  # Path("") is ".", the current folder
        raise OutputError(f"{str(path)!r}: an empty file name: name the file to write")
    last = os.path.basename(str(path))  # both separators where there are two
    if last in ("", ".", ".."):  # a folder's name, which Path() and realpath() would drop
        raise OutputError(f"{printable(path)}: ends with {last or str(path)[-1]!r}, a folder's "
                          "name: name the file to write")
    path = Path(path)
    target = link_target(path)
    _existing(target, path)
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist (make it first)"
        raise OutputError(f"{printable(path)}: the folder {printable(folder)} {what}")
    try:  # the only true test of writing: permissions, read-only file systems, quotas
        fd, probe = _temporary(target, ".probe")
    except OSError as exc:
        raise OutputError(
            f"{printable(path)}: cannot write in {printable(folder)}: {exc.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    return path


def link_target(path: str | Path) -> Path:
    """The file that writing ``path`` replaces: symbolic links followed, dangling ones too."""
    return Path(os.path.realpath(path))


def _existing(target: Path, path: str | Path) -> os.stat_result | None:
    """The status of the file that an output replaces (None: there is none yet); OutputError
    for anything but a regular file."""
    try:
        status = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the folder is checked)
        return None
    except OSError as exc:  # a loop of links, a folder that cannot be searched
        raise OutputError(f"{printable(path)}: cannot write: {exc.strerror}") from None
    shown = (f"{printable(path)} (a link to {printable(target)})" if os.path.islink(path)
             else printable(path))
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown}: is a folder, not a file name")
    if not stat.S_ISREG(status.st_mode):
        raise OutputError(f"{shown}: is {file_kind(status.st_mode)}, not a regular file: outputs "
                          "are regular files only (it is never replaced)")
    return status


def _temporary(target: Path, suffix: str) -> tuple[int, str]:
    """A new hidden file next to ``target`` (open for writing), created with 0666 less the
    umask (mkstemp's 0600 would make every new output private)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(4)}{suffix}")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """The replacement keeps the old file's permissions, and its owner where this process may
    give it (root may; others keep their own)."""
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass  # not allowed: the file becomes this user's, as any rewrite makes it
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after chown, which clears set-id bits


def identity(path: Path) -> tuple | None:
    """What tells one version of the file from another (each write is a new file, renamed)."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of a checkpoint file: a hidden ``.NAME.lock`` next to the file a
    write replaces (links followed). Its holder removes it on release; a waiter that then holds
    the lock of a removed file tries again with the current one."""
    import fcntl  # POSIX: only where a checkpoint is shared

    target = link_target(path)
    lock = target.parent / f".{target.name}.lock"
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                current = os.stat(lock)
            except FileNotFoundError:
                current = None
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev,
                                                                         held.st_ino):
            break
        os.close(fd)
    try:
        yield
    finally:
        try:
            os.unlink(lock)
        finally:
            os.close(fd)


_COLLECTOR = threading.Lock()
_PAUSES = [0, False]  # pauses open in this process, and whether the collector was on before


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection while a large file's facts are read or made: they are millions of
    objects without cycles, and each full collection scans them all again (1 s of 3.4 in
    loading the Battleship checkpoint). Pauses may overlap (threads): the last one to end turns
    the collector on again, if it was on when the first began."""
    with _COLLECTOR:
        if not _PAUSES[0]:
            _PAUSES[1] = gc.isenabled()
            gc.disable()
        _PAUSES[0] += 1
    try:
        yield
    finally:
        with _COLLECTOR:
            _PAUSES[0] -= 1
            if not _PAUSES[0] and _PAUSES[1]:
                gc.enable()
