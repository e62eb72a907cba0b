"""The height checkpoint: a proof done over several runs must agree with one run and with the
plain search, and every recorded refutation must be true."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from optimizer.games import parse_game
from optimizer.prove import prove_height
from optimizer.search.checkpoint import Checkpoint, CheckpointError
from optimizer.search.reference import plain_values

SPEC = "battleship:2x4x2"  # optimum 5: many first-guess classes are refuted at height 4


def _prove(path, **kw):
    return prove_height(SPEC, 5, workers=0, progress=False, checkpoint=str(path), **kw)


def test_every_recorded_refutation_is_true(tmp_path):
    path = tmp_path / "cp.json"
    result = _prove(path)
    assert result["holds"] and result["optimum"] == 5
    _assert_refutations_true(path)


def _assert_refutations_true(path) -> None:
    game = parse_game(SPEC)
    log = Checkpoint(path, game, "any")
    assert len(log.refuted) >= 5
    height, _ = plain_values(game, "any")
    matrix = game.feedback_matrix()
    for guess, entry in log.refuted.items():
        parts: dict[int, set] = {}
        for secret in range(game.n_codes):
            if secret != guess:
                parts.setdefault(int(matrix[guess, secret]), set()).add(secret)
        best = 1 + max(height(frozenset(p)) for p in parts.values())
        assert best > entry["height"], game.format_code(guess)


def test_refutations_from_parallel_screening_are_true(tmp_path, monkeypatch):
    """Both workers screening root classes, results recorded as they come in order."""
    from optimizer.search.driver import Driver

    monkeypatch.setattr(Driver, "screen_from", 1)
    monkeypatch.setattr(Driver, "screen_window", 3)
    path = tmp_path / "cp.json"
    result = prove_height(SPEC, 5, workers=2, progress=False, checkpoint=str(path))
    assert result["holds"] and result["optimum"] == 5
    _assert_refutations_true(path)


def test_resumed_proof_equals_one_run(tmp_path):
    whole = tmp_path / "whole.json"
    one_run = _prove(whole)
    data = orjson.loads(whole.read_bytes())
    entries = sorted(data["refuted"])
    half = tmp_path / "half.json"
    data["refuted"] = {k: data["refuted"][k] for k in entries[: len(entries) // 2]}
    half.write_bytes(orjson.dumps(data))
    resumed = _prove(half)
    assert resumed["optimum"] == one_run["optimum"] == 5
    assert resumed["checkpoint"]["refuted_before"] == len(entries) // 2
    assert sorted(orjson.loads(half.read_bytes())["refuted"]) == entries
    assert resumed["nodes"] < one_run["nodes"]
    again = _prove(whole)  # everything known: the refutation costs no search
    assert again["optimum"] == 5 and again["nodes"] < resumed["nodes"]


def test_time_limit_stops_with_what_is_known(tmp_path):
    result = _prove(tmp_path / "cp.json", time_limit=1e-9)
    assert result["finished"] is False and result["optimum"] is None
    assert result["lower_bound"] >= 1


@pytest.mark.parametrize("payload,message", [
    (b"{not json", "not a JSON"),
    (b'{"format": "other"}', "not a moo-height-checkpoint"),
    (b'{"format": "moo-height-checkpoint", "game": "bulls-cows:4x10", "guesses": "any",'
     b' "refuted": {}}', "written for bulls-cows:4x10"),
    (b'{"format": "moo-height-checkpoint", "game": "battleship:2x4x2", "guesses": "any",'
     b' "refuted": {"Z9 A1": {"height": 3}}}', "not a square"),
    (b'{"format": "moo-height-checkpoint", "game": "battleship:2x4x2", "guesses": "any",'
     b' "refuted": {"A1 A2": {"height": "3"}}}', "positive 'height'"),
])
def test_bad_checkpoint_is_a_clear_error(tmp_path, payload, message):
    path = tmp_path / "cp.json"
    path.write_bytes(payload)
    with pytest.raises(CheckpointError, match=message):
        Checkpoint(path, parse_game(SPEC), "any")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_terminated_background_proof_keeps_what_it_refuted(tmp_path):
    """`kill PID` on a proof running in the background (where Ctrl-C cannot reach it): it stops
    as an interrupted run does, says what is left, and the checkpoint stays valid."""
    path = tmp_path / "cp.json"
    command = [sys.executable, "-m", "optimizer", "prove", "battleship", "--height", "6",
               "--checkpoint", str(path), "--time-limit", "900", "-o", str(tmp_path / "t.json")]
    proc = subprocess.Popen(command, cwd=Path(__file__).parent.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 600
        while not path.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.5)  # wait for the first refuted class
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 2, err.decode()[-2000:]
    assert b"UNFINISHED" in out and b"Traceback" not in err
    log = Checkpoint(path, parse_game("battleship"), "any")
    assert log.count(5) >= 1


def test_build_with_the_checkpoint_of_a_proof(tmp_path):
    """moo build --objective height reads (and adds to) the proof's file: the same optimal
    height, with the refuted first guesses not searched again."""
    from optimizer.search.driver import build_exact
    from optimizer.tree import replay

    game = parse_game(SPEC)
    plain = build_exact(game, "height", workers=0, progress=False)
    path = tmp_path / "cp.json"
    _prove(path)
    known = build_exact(game, "height", workers=0, progress=False, checkpoint=str(path))
    assert plain.optimal and known.optimal
    assert replay(known).height == replay(plain).height == 5
    assert known.meta["height_search"]["nodes"] < plain.meta["height_search"]["nodes"]


def test_checkpoint_only_with_a_height_objective(tmp_path):
    from optimizer.cli import main

    status = main(["build", SPEC, "--objective", "total", "--checkpoint", str(tmp_path / "c"),
                   "-o", str(tmp_path / "t.json")])
    assert status == 2 and not (tmp_path / "t.json").exists()
