"""A search that several machines share (issue 32), on a real cluster: a `dask scheduler` and two
`dask worker` processes started on their own (standing in for machines), and `moo build` run as
a command, the way people run it. The least total of Mastermind 4x7 (11228; of its 5 first-guess
classes 4 are searched, the fifth ruled out by its bound; a few seconds here) comes out the same
whether the search runs without a break; is killed (SIGKILL) in the middle and run again on its
checkpoint; runs as two searches on two checkpoint files that are merged and resumed; or loses a
worker on the way. Every tree written replays (`moo verify`) and every merged claim is re-proved
(`moo checkpoint verify`).
`scripts/cluster_demo.py` does the same on a larger game (docs/cluster.md)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, start_cluster, stop_cluster

GAME, TOTAL, CODES = "mastermind:4x7", 11228, 2401  # Ville (2013): 4.676 on average


def _moo(*args: str) -> list[str]:
    return [sys.executable, "-m", "optimizer", *args]


def _build(address: str, checkpoint: Path, tree: Path, *extra: str) -> list[str]:
    return _moo("build", GAME, "--objective", "total", "--scheduler", address, "--checkpoint",
                str(checkpoint), "-o", str(tree), "--quiet", *extra)


def _start(command: list[str]) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(proc: subprocess.Popen, status: int = 0) -> str:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == status, (f"{' '.join(proc.args[3:])}: exit status "
                                       f"{proc.returncode}\n{(out + err).decode()[-3000:]}")
    return out.decode()


def _run(command: list[str], status: int = 0) -> str:
    return _finish(_start(command), status)


def _facts(checkpoint: Path) -> dict:
    """The facts of the least total with no depth limit: "classes" (about first-guess classes)
    and "incumbent" (the best tree, recorded first); {} while there are none. The file is
    replaced whole (a rename), never seen half-written."""
    try:
        data = json.loads(checkpoint.read_text())
    except (OSError, ValueError):
        return {}
    return data.get("total", {}).get(str(CODES), {})


def _classes(checkpoint: Path) -> dict:
    return _facts(checkpoint).get("classes", {})


def _a_fact(checkpoint: Path) -> bool:
    """Whether the file holds a fact of the search: a settled class or a part's fact."""
    facts = _facts(checkpoint)
    return bool(facts.get("classes") or facts.get("parts"))


def _when(proc: subprocess.Popen, ready, what: str, may_end: bool = False) -> None:
    """Wait until ``ready()`` holds while ``proc`` still runs (a failure if it ends first).
    ``may_end``: the run may also have ended by then, with ``what`` on file (its workers' tables
    hold the earlier runs' proofs, and its last classes settle in one burst, written as it
    ends: it wrote and ended between two looks once)."""
    end = time.monotonic() + 120
    while not ready():
        if proc.poll() is not None:
            assert may_end and ready(), f"the run ended before {what}: " + (
                b"".join(proc.communicate())).decode()[-3000:]
            return
        assert time.monotonic() < end, f"no {what} after 120 s"
        time.sleep(0.02)


def _tree(path: Path) -> dict:
    """The tree file as `moo verify --json` replays it (every secret; the claims held against the
    replay), with its own optimal flag and meta."""
    report = json.loads(_run(_moo("verify", "--json", str(path))))
    assert report["ok"] and not report["defects"], report
    data = json.loads(path.read_text())
    return {**report, "optimal": data["optimal"], "meta": data["meta"]}


@pytest.mark.cluster
def test_a_shared_search_killed_merged_and_short_of_a_worker_gives_one_result(tmp_path):
    cluster = start_cluster(tmp_path, workers=2)
    address = cluster.address
    try:
        # The uninterrupted run, on its own checkpoint.
        _run(_build(address, tmp_path / "fresh.json", tmp_path / "fresh-tree.json"))
        fresh = _tree(tmp_path / "fresh-tree.json")
        assert fresh["optimal"] and fresh["total"] == TOTAL and fresh["checkpoint_facts"] == 0
        assert len(_classes(tmp_path / "fresh.json")) == 4  # 0000 is ruled out by its bound

        # Killed outright once the file holds a fact of the search (a settled class or a part's
        # fact), before its tree is written, then the same command again: it goes on from the
        # file, taking every class the killed run settled (each is at least the best total in
        # hand, the tree the killed run recorded) and the part facts of the others. (Classes
        # run side by side: the last ones may all settle in one burst, before the kill lands.)
        killed = tmp_path / "killed.json"
        proc = _start(_build(address, killed, tmp_path / "killed-tree.json"))
        _when(proc, lambda: _a_fact(killed), "a fact")
        proc.kill()
        assert proc.wait() == -signal.SIGKILL
        left = _classes(killed)
        assert not (tmp_path / "killed-tree.json").exists()
        out = _run(_build(address, killed, tmp_path / "restarted-tree.json"))
        restarted = _tree(tmp_path / "restarted-tree.json")
        search = restarted["meta"]["total_search"]
        # and the part facts of a class it had not settled, when a write held them by then
        taken = len(left) + search.get("parts_from_checkpoint", 0)
        assert taken >= 1 and search.get("classes_from_checkpoint", 0) == len(left)
        assert restarted["checkpoint_facts"] == taken
        assert search["classes_searched"] + len(left) == 4 and f": {taken} fact" in out
        assert restarted["optimal"] and restarted["total"] == TOTAL
        assert restarted["proof"].startswith(f"proven, resting on {taken} checkpoint fact")

        # Two runs on two files, as on two clusters: one stopped (SIGTERM, as a person stops it:
        # the best tree is written) once it has a fact on file, before its end (a signal
        # that lands as the command closes its engine after the search loses the finished tree:
        # exit status 130); one given half as long again (`--time-limit`: it may finish first
        # on a fast machine). Their union goes on to the same optimum, every claim re-proved.
        began = time.monotonic()
        proc = _start(_build(address, tmp_path / "a.json", tmp_path / "a-tree.json"))
        _when(proc, lambda: _a_fact(tmp_path / "a.json"), "a fact", may_end=True)
        limit = 1.5 * (time.monotonic() - began)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=300)
        stopped = _tree(tmp_path / "a-tree.json")
        if proc.returncode == 0:  # the last classes settled in one burst before the signal
            assert stopped["optimal"] and stopped["total"] == TOTAL
        else:
            assert proc.returncode == 3 and b"stopped early" in out, (out + err)[-3000:]
            assert not stopped["optimal"] and stopped["meta"]["stopped"]
        proc = _start(_build(address, tmp_path / "b.json", tmp_path / "b-tree.json",
                             "--time-limit", f"{limit:.2f}"))
        _, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 3), err.decode()[-3000:]
        assert _tree(tmp_path / "b-tree.json")["optimal"] is (proc.returncode == 0)
        a, b = _classes(tmp_path / "a.json"), _classes(tmp_path / "b.json")
        merged = tmp_path / "merged.json"
        _run(_moo("checkpoint", "merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                  "-o", str(merged)))
        assert set(_classes(merged)) == set(a) | set(b)
        out = _run(_moo("checkpoint", "verify", str(merged), "--scheduler", address, "--quiet"))
        assert "OK: every claim checked holds" in out
        _run(_build(address, merged, tmp_path / "resumed-tree.json"))
        resumed = _tree(tmp_path / "resumed-tree.json")
        assert resumed["meta"]["total_search"].get("classes_from_checkpoint", 0) == len(a | b)
        assert resumed["optimal"] and resumed["total"] == TOTAL

        # A worker lost (killed outright) while the search runs: its jobs go to the other one.
        lost = tmp_path / "lost.json"
        proc = _start(_build(address, lost, tmp_path / "lost-tree.json"))
        _when(proc, lambda: "incumbent" in _facts(lost), "the search's start")
        time.sleep(0.2)  # the first class's jobs on both workers
        cluster.procs["w2"].kill()
        assert cluster.procs["w2"].wait() == -signal.SIGKILL and proc.poll() is None
        _finish(proc)
        alone = _tree(tmp_path / "lost-tree.json")
        assert alone["optimal"] and alone["total"] == TOTAL
        assert alone["meta"]["total_search"]["classes_searched"] == 4
    finally:
        stop_cluster(cluster)


@pytest.mark.parametrize("claimed,holds", [(2433, True), (2463, True), (2464, False)])
def test_a_lower_bound_at_or_below_the_exact_value_holds(claimed, holds):
    """`moo checkpoint verify` re-proves "at least v" by the class's search cut off at v; that
    search may still finish its tree (each part came in under its own cut-off, their sum did
    not), and the claim then holds when the tree costs v or more. (It was called false: the
    merged file of a run with the lookahead bound, whose cut jobs record such bounds.)"""
    from optimizer.games import parse_game
    from optimizer.search.claims import check_claim
    from optimizer.search.objectives import Search
    from optimizer.search.request import Request

    game = parse_game("mastermind:4x5")  # opening with 0012: least total exactly 2463
    with Search(Request(game, workers=1)) as search:
        search.ready(("total",))
        found, _ = check_claim(search, "total", game.parse_code("0012"), game.n_secrets,
                               {"at_least": claimed})
    assert found is holds
