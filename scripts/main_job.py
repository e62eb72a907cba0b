"""The main job (`make run`): prove that Bulls and Cows needs exactly 7 guesses, keep the
height-optimal tree, verify it over every secret and show it playing one game."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

TREE = Path("build") / "bulls-cows-4x10.height.any.json"
SECRET = "4271"  # the example secret of seed 004


def moo(*args: str) -> int:
    print(f"\n$ moo {' '.join(args)}", flush=True)
    return subprocess.call([sys.executable, "-m", "optimizer", *args])


def main() -> int:
    start = time.monotonic()
    print("moo main job: the optimal worst case of Bulls and Cows (4 distinct digits of 10)")
    TREE.parent.mkdir(exist_ok=True)  # moo writes only into folders that exist
    status = moo("prove", "bulls-cows", "--height", "7", "-o", str(TREE))
    status = status or moo("verify", str(TREE))
    status = status or moo("play", str(TREE), "--secret", SECRET)
    print(f"\nmain job {'done' if status == 0 else 'FAILED'} in {time.monotonic() - start:.1f} s")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
