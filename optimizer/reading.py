"""Reading a file a user names: a regular file of a bounded size only, so that a device
(/dev/zero never ends), a FIFO (blocks until a writer comes) or a socket named by mistake is one
clear error, never a hang or all the memory. Trees and checkpoints (formats) and word lists
(games) are read through it."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# The largest file a reader takes. The largest legitimate one: a tree of the largest game
# (MAX_CODES, 40,000 codes) is about 50 bytes a code, 2 MB; a checkpoint holds a few such trees
# indented (about 150 bytes a code each, 6 MB) and its classes' facts. 256 MB is a wide margin
# that still stops /dev/zero-like files before they take all memory.
MAX_FILE_BYTES = 256 * 2**20

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for a message."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_file(path: str | Path, limit: int | None = None,
              what: str = "a tree or checkpoint file") -> bytes:
    """The bytes of ``what``. Only a regular file of at most ``limit`` bytes (default
    MAX_FILE_BYTES) is read: anything else is refused before it is opened, and so is a larger
    file. Each refusal is an OSError naming ``path``, as a missing file is."""
    limit = MAX_FILE_BYTES if limit is None else limit
    name = os.fspath(path)
    if (b"\0" if isinstance(name, bytes) else "\0") in name:  # os.stat's ValueError names none
        raise OSError(errno.EINVAL, "a file name has no NUL character", repr(str(path)))
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else file_kind(status.st_mode)
        raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
    # O_NONBLOCK: a FIFO put in its place since the check does not block the open
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, f"it is {file_kind(status.st_mode)}, not a regular "
                          "file", str(path))
        raw = handle.read(limit + 1) if status.st_size <= limit else b""
    if status.st_size > limit or len(raw) > limit:
        size = max(status.st_size, len(raw))
        raise OSError(errno.EFBIG, f"the file has {size:,} bytes, more than the {limit:,} "
                      f"({limit / 2**20:g} MB) {what} may have", str(path))
    return raw
