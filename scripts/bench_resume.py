"""What a checkpoint keeps of a stopped least-total search: a fresh run with a checkpoint, then a
run on a new checkpoint stopped at a share of the fresh run's time and resumed from it; prints
each whole command's time, the resumed run's share of the fresh one, and the facts it took.

    python scripts/bench_resume.py                          # Bulls and Cows total, stopped at 1/2
    python scripts/bench_resume.py --game bulls-cows:4x9 --share 0.3 --rounds 3
    python scripts/bench_resume.py --plain                  # also the same command with no file

The times are whole `moo build` commands (set-up included); the search's own seconds (from the
tree's meta) are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from optimizer.formats.strict_json import loads

ROOT = Path(__file__).resolve().parent.parent


def build(game: str, folder: Path, name: str, checkpoint: str | None,
          limit: float | None = None) -> tuple[float, dict, int]:
    """(wall seconds of the whole command, the tree's meta, exit status)."""
    out = folder / f"{name}.json"
    argv = [sys.executable, "-m", "optimizer", "build", game, "--objective", "total", "-o",
            str(out), "--quiet"]
    if checkpoint is not None:
        argv += ["--checkpoint", checkpoint]
    if limit is not None:
        argv += ["--time-limit", f"{limit:.2f}"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    meta = loads(out.read_bytes())["meta"]
    return seconds, meta, done.returncode


def search_seconds(meta: dict) -> float:
    return meta["total_search"]["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bulls-cows")
    parser.add_argument("--share", type=float, default=0.5,
                        help="stop the second run at this share of the fresh run's time")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--plain", action="store_true",
                        help="also time the command with no checkpoint (its search in one job)")
    args = parser.parse_args()
    print(f"{args.game} least total; {os.cpu_count()} cores; stop at {args.share:.0%} of the "
          "fresh run, then resume", flush=True)
    ratios = []
    for round_ in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            if args.plain:
                plain, meta, _ = build(args.game, folder, "plain", None)
                print(f"round {round_}: no checkpoint     {plain:7.2f} s "
                      f"(search {search_seconds(meta):.2f} s)", flush=True)
            fresh, meta, _ = build(args.game, folder, "fresh", str(folder / "fresh.ckpt"))
            print(f"round {round_}: fresh, checkpoint  {fresh:7.2f} s "
                  f"(search {search_seconds(meta):.2f} s)", flush=True)
            ckpt = str(folder / "stopped.ckpt")
            stopped, meta, status = build(args.game, folder, "stopped", ckpt,
                                          limit=args.share * fresh)
            data = loads(Path(ckpt).read_bytes(), "checkpoint")
            parts = sum(len(v.get("parts", [])) for v in data.get("total", {}).values())
            print(f"round {round_}: stopped            {stopped:7.2f} s (exit {status}; "
                  f"{parts} facts below the root kept)", flush=True)
            resumed, meta, _ = build(args.game, folder, "resumed", ckpt)
            taken = meta["total_search"].get("parts_from_checkpoint", 0)
            ratio = resumed / fresh
            ratios.append(ratio)
            print(f"round {round_}: resumed            {resumed:7.2f} s "
                  f"(search {search_seconds(meta):.2f} s; {taken} facts taken) "
                  f"= {ratio:.2f} of the fresh run", flush=True)
    if len(ratios) > 1:
        print(f"resumed / fresh: median {statistics.median(ratios):.2f}, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
