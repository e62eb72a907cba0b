"""numba kernels. They take plain numpy arrays and integers; Python objects stay outside.

Compiled kernels are cached (``cache=True``) in a folder named after a hash of every kernel
source file. numba checks only the timestamp of the file defining a function, while a kernel's
machine code includes the kernels it calls from other files: after a change to
``partition.py`` alone, ``total.py``'s cached search would still run the old scoring. A folder
per source version never mixes them. A ``NUMBA_CACHE_DIR`` set by the user is left alone.
"""

import hashlib
import os
from pathlib import Path

import numba


def cache_folder(kernels: Path | None = None) -> Path:
    """The numba cache folder of this version of the kernels (the sources in ``kernels``, this
    folder when not given)."""
    here = kernels or Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for source in sorted(here.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return here / "__pycache__" / f"numba-{digest.hexdigest()[:16]}"


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(cache_folder())
