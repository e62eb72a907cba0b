"""numba kernels. They take plain numpy arrays and integers; Python objects stay outside.

Compiled kernels are cached (``cache=True``) in a folder named after a hash of every kernel
source file. numba checks only the timestamp of the file defining a function, while a kernel's
machine code includes the kernels it calls from other files: after a change to
``partition.py`` alone, ``total.py``'s cached search would still run the old scoring. A folder
per source version never mixes them.

The folder's name also says whether numba checks array bounds (``NUMBA_BOUNDSCHECK=1``, which
``make test`` sets for the kernel tests): numba's cache index ignores that setting, so a kernel
cached without checks would be loaded as it is by a checked run, and an index past an array's
end would corrupt memory instead of raising IndexError. Each setting keeps its own persistent
folder (compiling every kernel costs minutes). A ``NUMBA_CACHE_DIR`` set by the user is kept
for unchecked kernels; checked ones go to its ``boundscheck`` subfolder. The folders of other
versions are removed once no process has started with them for ``STALE_DAYS`` (they took 97 MB
in a working copy after a few days of changes).

numba compiles a kernel once per set of argument types, and a literal argument (``0``, ``-1``)
or a counter first set to one is a type of its own: kernels pass ``np.int64(0)`` where the same
callee also gets int64 values, so that each callee is compiled once (``tests/test_cold_start.py``
checks that the search kernels each have one signature).
"""

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba

STALE_DAYS = 7


def cache_folder(kernels: Path | None = None, boundscheck: bool | None = None) -> Path:
    """The numba cache folder of this version of the kernels (the sources in ``kernels``, this
    folder when not given), compiled with bounds checks or without (``boundscheck``; numba's
    setting, ``NUMBA_BOUNDSCHECK``, when not given)."""
    here = kernels or Path(__file__).resolve().parent
    if boundscheck is None:
        boundscheck = bool(numba.config.BOUNDSCHECK)
    digest = hashlib.sha256()
    for source in sorted(here.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    checked = "-boundscheck" if boundscheck else ""
    return here / "__pycache__" / f"numba-{digest.hexdigest()[:16]}{checked}"


def prune(current: Path, days: float = STALE_DAYS) -> list[Path]:
    """Remove the cache folders beside ``current`` of other kernel versions (either bounds
    setting) that no process started with for ``days`` days (``_mark_used``): a process still
    running an old version loaded its kernels long before. Returns those removed; one that
    cannot be is left."""
    mine = current.name.removesuffix("-boundscheck")
    cutoff = time.time() - days * 86400
    removed = []
    for folder in current.parent.glob("numba-*"):
        try:
            if folder.name.removesuffix("-boundscheck") != mine and \
                    folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder)
                removed.append(folder)
        except OSError:  # another process removed it, or it is not ours to remove
            pass
    return removed


def _mark_used(folder: Path) -> None:
    """Set the folder's time to now: its time says when a process last used it (reading
    kernels changes nothing), which ``prune`` goes by."""
    try:
        os.utime(folder)
    except OSError:  # not made yet (numba makes it at its first write), or not ours
        pass


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(cache_folder())
    _mark_used(Path(numba.config.CACHE_DIR))
    prune(Path(numba.config.CACHE_DIR))
elif numba.config.BOUNDSCHECK:
    numba.config.CACHE_DIR = os.path.join(os.environ["NUMBA_CACHE_DIR"], "boundscheck")
