"""A search that several machines share, shown on this machine (issue 32; docs/cluster.md,
"Sharing a search: a demonstration"): a real `dask scheduler` and `dask worker` processes
started on their own stand in for machines, and the least total of a game is found by
`moo build` five ways, which must agree:

1. one uninterrupted run;
2. a run killed outright (SIGKILL) in the middle, then the same command again on its checkpoint;
3. a run that loses a worker (killed outright) on the way; a new worker then joins;
4. two runs on two checkpoint files, as on two clusters, each stopped by its own time limit;
   the files merged (`moo checkpoint merge`), every merged claim re-proved (`moo checkpoint
   verify`) and the search resumed from the merge.

Every tree written is replayed over every secret (`moo verify`). Each step prints its command,
its figures (seconds, first-guess classes searched and taken from the checkpoint, the total),
and the end a table and "same result: yes" (exit status 0) or "no" (1). The scheduler, the
workers and a command still running are stopped on the way out, whatever ends the demo (its
end, an error, Ctrl-C, SIGTERM, SIGHUP; on Linux, even SIGKILL: they get SIGKILL when the demo
dies).

    python scripts/cluster_demo.py                      # mastermind:5x5, 2 workers, ~1 min
    python scripts/cluster_demo.py --game mastermind:4x8 --workers 3 --keep demo-files
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from optimizer.formats.strict_json import JsonError, loads

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).with_name("dask")
# Every process started here imports this checkout's code, whatever the environment installed.
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
START = time.monotonic()


def say(text: str = "") -> None:
    print(text, flush=True)


def _parent_death_signal():
    """A child's ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (Linux), looked up here in the parent:
    the child, forked from a process with threads, then calls it without dlopen or an import
    (either could wait for a lock another thread held at the fork)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    return lambda: prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


# In a child, before it runs: SIGKILL when this process ends, so that not even a SIGKILL of the
# demo leaves a scheduler or worker behind.
_DIE_WITH_PARENT = _parent_death_signal()


def spawn(command: list[str], log: Path | None = None) -> subprocess.Popen:
    """A child in a session of its own: the terminal's Ctrl-C reaches this demo only, which
    then stops the children in order."""
    out = open(log, "wb") if log is not None else subprocess.PIPE
    try:
        return subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=out,
                                stderr=subprocess.STDOUT if log is not None else subprocess.PIPE,
                                start_new_session=True, preexec_fn=_DIE_WITH_PARENT)
    finally:
        if log is not None:
            out.close()


class Cluster:
    """A scheduler on a free port of 127.0.0.1 and single-threaded workers without a nanny (a
    worker killed stays lost), each its own process; their logs in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.procs: dict[str, subprocess.Popen] = {}
        info = folder / "scheduler.json"
        self.procs["scheduler"] = spawn(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(info)], folder / "scheduler.log")
        self.address = self._address(info, time.monotonic() + 60)

    def _address(self, info: Path, end: float) -> str:
        while True:  # Dask writes the file in place: it may be there and not yet whole
            try:
                return json.loads(info.read_text())["address"]
            except (OSError, ValueError, KeyError):
                if self.procs["scheduler"].poll() is not None or time.monotonic() >= end:
                    raise SystemExit("the scheduler did not start: see "
                                     f"{self.folder / 'scheduler.log'}") from None
                time.sleep(0.1)

    def add_workers(self, names: list[str]) -> None:
        for name in names:
            self.procs[name] = spawn(
                [str(DASK), "worker", self.address, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--name", name], self.folder / f"{name}.log")
        from distributed import Client

        with Client(self.address, timeout="60s") as client:
            client.wait_for_workers(len(self.alive()), timeout=180)

    def alive(self) -> list[str]:
        return [n for n, p in self.procs.items() if n != "scheduler" and p.poll() is None]

    def kill(self, name: str) -> None:
        self.procs[name].kill()
        self.procs[name].wait()

    def close(self, timeout: float = 5) -> None:
        """Terminate the workers, then, once they are gone, the scheduler (a dask worker whose
        scheduler stops while it closes waits about 20 s for it); kill any still there
        ``timeout`` seconds later (a worker ends its running job before it exits)."""
        workers = [p for n, p in self.procs.items() if n != "scheduler"]
        for group in (workers, [self.procs["scheduler"]]):
            for proc in group:
                if proc.poll() is None:
                    proc.terminate()
            for proc in group:
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


class Demo:
    def __init__(self, game: str, cluster: Cluster, folder: Path):
        self.game, self.cluster, self.folder = game, cluster, folder
        self.running: subprocess.Popen | None = None  # the moo command running, if any
        self.rows: list[dict] = []  # one per tree written
        self.verified = False  # every claim of the merged checkpoint re-proved

    # --- commands ------------------------------------------------------------------------------
    def build(self, checkpoint: str, tree: str, *extra: str) -> list[str]:
        """`moo build` of the least total on the cluster; file names in the demo's folder."""
        return ["build", self.game, "--objective", "total", "--scheduler", self.cluster.address,
                "--checkpoint", self.path(checkpoint), "-o", self.path(tree), "--quiet", *extra]

    def start(self, args: list[str], quiet: bool = False) -> subprocess.Popen:
        if not quiet:  # the files shown by their names in the demo's folder
            say(f"   $ moo {' '.join(args).replace(str(self.folder) + os.sep, '')}")
        self.running = spawn([sys.executable, "-m", "optimizer", *args])
        self.running.started = time.monotonic()
        return self.running

    def finish(self, proc: subprocess.Popen, quiet: bool = False) -> tuple[int, str, float]:
        out, err = proc.communicate()
        self.running = None
        seconds = time.monotonic() - proc.started
        text = (out + err).decode()
        if not quiet:
            for line in text.replace(str(self.folder) + os.sep, "").splitlines():
                say(f"     {line}")
        return proc.returncode, text, seconds

    def run(self, args: list[str], quiet: bool = False):
        return self.finish(self.start(args, quiet), quiet)

    def wait_for(self, proc: subprocess.Popen, ready, what: str) -> float | None:
        """Wait until ``ready()`` holds while the command still runs; the seconds since it
        started (None if it ended first)."""
        while not ready():
            if proc.poll() is not None:
                say(f"     (the command ended before {what})")
                return None
            time.sleep(0.02)
        return time.monotonic() - proc.started

    # --- files ---------------------------------------------------------------------------------
    def path(self, name: str) -> str:
        return str(self.folder / name)

    def facts(self, checkpoint: str) -> dict:
        """The least total's facts with no depth limit ("classes", "incumbent"); {} if none."""
        try:
            data = loads(Path(self.path(checkpoint)).read_bytes(), "checkpoint")  # replaced whole
        except (OSError, JsonError):
            return {}
        totals = data.get("total", {})
        return totals[max(totals, key=int)] if totals else {}

    def classes(self, checkpoint: str) -> dict:
        return self.facts(checkpoint).get("classes", {})

    def tree(self, label: str, tree: str, seconds: float) -> dict:
        """The tree replayed by `moo verify --json`, its figures printed and kept for the
        table."""
        if not Path(self.path(tree)).exists():
            say(f"   -> {seconds:.1f} s: no tree written")
            self.rows.append({"run": label, "seconds": seconds, "searched": 0, "taken": 0,
                              "total": None, "optimal": False, "replays": False,
                              "stopped": False})
            return self.rows[-1]
        status, text, _ = self.run(["verify", "--json", self.path(tree)], quiet=True)
        report = json.loads(text) if text.startswith("{") else {"ok": False, "total": None}
        data = json.loads(Path(self.path(tree)).read_text())
        search = data["meta"].get("total_search", {})
        row = {"run": label, "seconds": seconds, "searched": search.get("classes_searched", 0),
               "taken": search.get("classes_from_checkpoint", 0), "total": report.get("total"),
               "optimal": data["optimal"], "replays": status == 0 and report["ok"],
               "stopped": bool(data["meta"].get("stopped"))}
        self.rows.append(row)
        say(f"   -> {seconds:.1f} s: total {row['total']}"
            f"{', optimal' if row['optimal'] else ', stopped, not proven optimal'}; classes "
            f"searched {row['searched']}, from the checkpoint {row['taken']}; moo verify: "
            f"{'replays' if row['replays'] else 'DEFECT'}")
        return row

    # --- the steps -----------------------------------------------------------------------------
    def uninterrupted(self) -> dict:
        say("\n1. One uninterrupted run")
        _, _, seconds = self.run(self.build("fresh.json", "fresh-tree.json"))
        return self.tree("uninterrupted", "fresh-tree.json", seconds)

    def killed(self, settled: int) -> None:
        say("\n2. A run killed outright (SIGKILL) in the middle, then the same command again")
        proc = self.start(self.build("killed.json", "killed-tree.json"))
        at = self.wait_for(proc, lambda: len(self.classes("killed.json")) >= settled,
                           f"{settled} classes were settled")
        if at is not None:
            proc.kill()
            say(f"   killed after {at:.1f} s; killed.json holds "
                f"{len(self.classes('killed.json'))} settled first-guess classes and the best "
                "tree so far")
        self.finish(proc)
        _, _, seconds = self.run(self.build("killed.json", "restarted-tree.json"))
        self.tree("killed, restarted", "restarted-tree.json", seconds)

    def lost_worker(self, victim: str, newcomer: str) -> None:
        say(f"\n3. A run that loses worker {victim} (killed outright) on the way")
        proc = self.start(self.build("lost.json", "lost-tree.json"))
        at = self.wait_for(proc, lambda: self.classes("lost.json"), "a class was settled")
        if at is not None:
            self.cluster.kill(victim)
            say(f"   {victim} killed after {at:.1f} s, the first class settled; workers left: "
                f"{', '.join(self.cluster.alive())}")
        _, _, seconds = self.finish(proc)
        self.tree(f"lost {victim}", "lost-tree.json", seconds)
        began = time.monotonic()
        self.cluster.add_workers([newcomer])
        say(f"   a new worker, {newcomer}, joined in {time.monotonic() - began:.1f} s "
            f"(workers: {', '.join(self.cluster.alive())})")

    def merged(self, limit_a: float, limit_b: float) -> None:
        say("\n4. Two runs on two checkpoint files, as on two clusters, each stopped by its time "
            "limit;\n   the files merged, re-proved, and the search resumed from the merge")
        for name, limit in (("a", limit_a), ("b", limit_b)):
            _, _, seconds = self.run(self.build(f"{name}.json", f"{name}-tree.json",
                                                "--time-limit", f"{limit:.1f}"))
            facts = self.classes(f"{name}.json")
            say(f"   {name}.json: {len(facts)} class fact{'s' * (len(facts) != 1)}"
                + (": " if facts else "") + ", ".join(
                f"{code} {'=' if 'exact' in e else '>='} {e.get('exact', e.get('at_least'))}"
                for code, e in facts.items()))
            self.tree(f"{name}: --time-limit {limit:.1f}", f"{name}-tree.json", seconds)
        a, b = self.classes("a.json"), self.classes("b.json")
        self.run(["checkpoint", "merge", self.path("a.json"), self.path("b.json"), "-o",
                  self.path("merged.json")])
        union = len(a | b)
        say(f"   merged.json: {union} class fact{'s' * (union != 1)} ({len(set(a) - set(b))} only "
            f"in a.json, {len(set(b) - set(a))} only in b.json, {len(set(a) & set(b))} in both)")
        status, _, seconds = self.run(["checkpoint", "verify", self.path("merged.json"),
                                       "--scheduler", self.cluster.address, "--quiet"])
        self.verified = status == 0
        say(f"   -> {seconds:.1f} s: {'every claim holds' if self.verified else 'FAILED'}")
        _, _, seconds = self.run(self.build("merged.json", "resumed-tree.json"))
        self.tree("resumed from the merge", "resumed-tree.json", seconds)

    def summary(self) -> bool:
        say("\nrun                                  seconds  searched  from file  total  optimal"
            "  replays")
        for r in self.rows:
            state = "yes" if r["optimal"] else "stopped" if r["stopped"] else "no"
            say(f"{r['run']:<36} {r['seconds']:7.1f}  {r['searched']:8}  {r['taken']:9}  "
                f"{r['total']!s:>5}  {state:>7}  {'yes' if r['replays'] else 'NO':>7}")
        finished = [r for r in self.rows if not r["stopped"]]
        same = (all(r["replays"] for r in self.rows) and self.verified
                and all(r["optimal"] and r["total"] == finished[0]["total"] for r in finished))
        say("(each worker keeps its solver and tables between commands: later runs are quicker "
            "for that too)")
        say(f"\nsame result: {'yes' if same else 'no'}"
            + (f" (total {finished[0]['total']}, every finished run optimal, every tree replays,"
               " every merged claim re-proved)" if same else ""))
        return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="mastermind:5x5",
                        help="a game with several first-guess classes (default mastermind:5x5)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--keep", metavar="FOLDER", default=None,
                        help="write the files (checkpoints, trees, logs) here and keep them "
                             "(default: a temporary folder, removed at the end)")
    args = parser.parse_args()
    if args.workers < 2:
        parser.error("--workers must be 2 or more (one of them is killed)")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="moo-demo-"))
    folder.mkdir(parents=True, exist_ok=True)

    def stop(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    # SIGINT too: a shell starts a background job with Ctrl-C ignored, and Python keeps that
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    cluster = demo = None
    try:
        say(f"moo cluster demo: {args.game}, least total, {args.workers} workers on this machine "
            f"({os.cpu_count()} cores); files in {folder}")
        cluster = Cluster(folder)
        say(f"[{time.monotonic() - START:5.1f} s] dask scheduler at {cluster.address}")
        names = [f"w{i}" for i in range(1, args.workers + 1)]
        cluster.add_workers(names)
        say(f"[{time.monotonic() - START:5.1f} s] dask workers registered: " + ", ".join(
            f"{n} (pid {cluster.procs[n].pid})" for n in names))
        demo = Demo(args.game, cluster, folder)
        first = demo.uninterrupted()
        if not first["optimal"]:
            say("the uninterrupted run did not finish; nothing to compare")
            return 1
        classes = len(demo.classes("fresh.json"))
        demo.killed(max(1, classes // 2))
        demo.lost_worker(names[-1], f"w{args.workers + 1}")
        demo.merged(0.3 * first["seconds"], 0.5 * first["seconds"])
        same = demo.summary()
        say(f"[{time.monotonic() - START:5.1f} s] done")
        return 0 if same else 1
    except KeyboardInterrupt as exc:
        say(f"\ninterrupted ({exc or 'Ctrl-C'}): stopping the cluster")
        return 130
    finally:
        if demo is not None and demo.running is not None and demo.running.poll() is None:
            demo.running.terminate()  # the command writes its best tree and stops
            try:
                demo.running.wait(timeout=30)
            except subprocess.TimeoutExpired:
                demo.running.kill()
        if cluster is not None:
            began = time.monotonic()
            cluster.close()
            say(f"[{time.monotonic() - START:5.1f} s] scheduler and workers stopped "
                f"({time.monotonic() - began:.1f} s)")
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
