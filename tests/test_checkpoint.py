"""Checkpoints: a search done over several runs (or machines) must agree with one run and with
the plain search, every recorded fact must be true, and a file is a list of claims that the
program says it took, checks on load and can re-prove."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pytest
from helpers import script
from oracle import plain_values

from optimizer.cli import main as moo
from optimizer.cli.prove import prove_height
from optimizer.formats.checkpoint import Checkpoint
from optimizer.formats.checkpoint_io import CheckpointError
from optimizer.formats.tree_file import read_tree
from optimizer.games import parse_game
from optimizer.provenance import verify
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.tree import replay

SPEC = "battleship:2x4x2"  # optimum 5: many first-guess classes are refuted at height 4
TOTAL_SPEC = "mastermind:3x3"


def _prove(path, **kw):
    return prove_height(SPEC, 5, workers=1, progress=False, checkpoint=str(path), **kw)


def _opening_values(spec: str, guess: int, depth: int) -> tuple[int, int]:
    """(least height, least total within depth) of the trees opening with ``guess``, from the
    plain search."""
    game = parse_game(spec)
    height, total = plain_values(game, "any")
    matrix = game.feedback_matrix()
    parts: dict[int, set] = {}
    for secret in range(game.n_codes):
        if secret != guess:
            parts.setdefault(int(matrix[guess, secret]), set()).add(secret)
    least_height = 1 + max((height(frozenset(p)) for p in parts.values()), default=0)
    least_total = game.n_codes + sum(total(frozenset(p), depth - 1) for p in parts.values())
    return least_height, least_total


# --- height ------------------------------------------------------------------------------------
def test_every_recorded_refutation_is_true(tmp_path):
    path = tmp_path / "cp.json"
    result = _prove(path)
    assert result["holds"] and result["optimum"] == 5
    _assert_refutations_true(path)


def _assert_refutations_true(path) -> None:
    log = Checkpoint(path, parse_game(SPEC), "any")
    assert len(log.refuted) >= 5
    for guess, entry in log.refuted.items():
        assert _opening_values(SPEC, guess, 99)[0] > entry["height"]


@pytest.mark.slow
def test_refutations_from_parallel_screening_are_true(tmp_path, monkeypatch):
    """Both workers screening root classes, results recorded as they come in order."""
    from optimizer.search.height import HeightSearch

    monkeypatch.setattr(HeightSearch, "screen_from", 1)
    monkeypatch.setattr(HeightSearch, "screen_window", 3)
    path = tmp_path / "cp.json"
    result = prove_height(SPEC, 5, workers=2, progress=False, checkpoint=str(path))
    assert result["holds"] and result["optimum"] == 5
    _assert_refutations_true(path)


def test_resumed_proof_equals_one_run(tmp_path):
    whole = tmp_path / "whole.json"
    one_run = _prove(whole)
    data = orjson.loads(whole.read_bytes())
    entries = sorted(data["height"]["refuted"])
    half = tmp_path / "half.json"
    data["height"]["refuted"] = {k: data["height"]["refuted"][k]
                                 for k in entries[: len(entries) // 2]}
    half.write_bytes(orjson.dumps(data))
    resumed = _prove(half)
    assert resumed["optimum"] == one_run["optimum"] == 5
    assert resumed["checkpoint"]["refuted_before"] == len(entries) // 2
    assert sorted(orjson.loads(half.read_bytes())["height"]["refuted"]) == entries
    assert resumed["nodes"] < one_run["nodes"]
    again = _prove(whole)  # everything known: the refutation costs no search
    assert again["optimum"] == 5 and again["nodes"] < resumed["nodes"]
    assert again["classes_searched"] == 0 and again["classes_taken"] > 0


def test_a_version_1_file_is_still_read(tmp_path):
    path = tmp_path / "old.json"
    _prove(path)
    entries = orjson.loads(path.read_bytes())["height"]["refuted"]
    path.write_bytes(orjson.dumps({"format": "moo-height-checkpoint", "version": 1,
                                   "game": SPEC, "guesses": "any", "refuted": entries}))
    assert len(Checkpoint(path, parse_game(SPEC), "any").refuted) == len(entries)


def test_time_limit_stops_with_what_is_known(tmp_path):
    result = _prove(tmp_path / "cp.json", time_limit=1e-9)
    assert result["finished"] is False and result["optimum"] is None
    assert result["lower_bound"] >= 1


def test_claims_taken_from_a_file_are_never_called_search(tmp_path, capsys):
    """A hand-edited file listing every opening as refuted: the run says the refutation came
    from the file, not from its own search, and the tree's meta records it."""
    game = parse_game("battleship:3x4x2")
    path = tmp_path / "cp.json"
    log = Checkpoint(path, game, "consistent")
    for guess in game.first_guesses():
        log.record_refuted(int(guess), 4, 0, 0.0)
    out = tmp_path / "tree.json"
    status = moo(["prove", "battleship:3x4x2", "--guesses", "consistent", "--height", "5",
                  "--checkpoint", str(path), "--quiet", "--workers", "1", "-o", str(out)])
    text = capsys.readouterr().out
    assert "exhaustive search found" not in text
    assert "listed as refuted in" in text and "PROVEN, resting on" in text
    assert status == 0 and read_tree(out).meta["classes_from_checkpoint"] > 0
    # too low a claim fails by the same refutation: it rests on the same facts, and says so
    status = moo(["prove", "battleship:3x4x2", "--guesses", "consistent", "--height", "4",
                  "--checkpoint", str(path), "--quiet", "--workers", "1"])
    text = capsys.readouterr().out
    assert status == 1 and "exhaustive search found" not in text
    assert "  [no]  height 4 is not enough: all " in text and "listed as refuted in" in text
    assert "\nCLAIM FAILS, resting on " in text and "the optimal worst case is 5" in text


@pytest.mark.parametrize("payload,message", [
    (b"{not json", "not valid JSON"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "guesses": "consistent"}', "the top level: the key 'guesses' appears twice"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {}, "28": {"incumbent": null}}}', r"total: the key '28' appears twice"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"spent": {"ab12": {"cpu_seconds": 1e999, "classes": 1}}}}}',
     "the number 1e999 is past the largest a double holds"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"spent": {"ab12": {"cpu_seconds": 1, "classes": '
     b'100000000000000000000000}}}}}', "100000000000000000000000 is past the 64-bit range"),
    (b'{"format": "other"}', "not a checkpoint this program reads"),
    (b'{"format": "moo-checkpoint", "version": 3, "game": "battleship:2x4x2",'
     b' "guesses": "any"}', "version 3"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "bulls-cows:4x10", "guesses": "any"}',
     "written for bulls-cows:4x10"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "height": {"refuted": {"Z9 A1": {"height": 3}}}}', "not a square"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "height": {"refuted": {"A1 A2": {"height": "3"}}}}', "a whole number"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "height": {"refuted": {"A1 A2": {"height": true}}}}', "a whole number"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "height": {"refuted": {"A1 A2": {"height": 99}}}}', "cannot be refuted"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "height": {"refuted": {"a1 a2": {"height": 3}}}}', "write codes as"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "extra": 1}', "unknown key"),
    (b'{"format": "moo-checkpoint", "version": 2.0, "game": "battleship:2x4x2", '
     b'"guesses": "any"}', "version 2.0; expected"),
    (b'{"format": "moo-height-checkpoint", "version": true, "game": "battleship:2x4x2", '
     b'"guesses": "any"}', "version True; expected"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "Battleship:2X4X2", "guesses": "any"}',
     "'game': write 'battleship:2x4x2', as the program does, not 'Battleship:2X4X2'"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"classes": {"A1 A2": {"exact": 50, "at_least": 40}}}}}',
     "one of exact, at_least"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"classes": {"A1 A2": {"at_least": 40, "cut": true}}}}}',
     "one of exact, at_least"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"classes": {"A1 A2": {"at_least": 40, "lookahead": 1, "cut": 1}}}}}',
     "one of exact, at_least"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"incumbent": {"value": 50, "root": {"guess": "A1 A2", "next": {}}}}}}',
     "does not replay"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"spent": {"ab12": {"cpu_seconds": 9, "classes": 1, "drawn": 1}}}}}',
     "drawn: true or absent"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"spent": {"ab12": {"cpu_seconds": 9, "classes": 1, "drawn": true,'
     b' "goal": 40}}}}}', "for classes drawn at random, drawn"),
    (b'{"format": "moo-checkpoint", "version": 2, "game": "battleship:2x4x2", "guesses": "any",'
     b' "total": {"28": {"estimate": {"classes": 3, "core_hours": 1, "seconds_per_class": 9,'
     b' "drawn": 2, "runs": 1}}}}', "or drawn: what the pace rests on"),
])
def test_bad_checkpoint_is_a_clear_error(tmp_path, payload, message, capsys):
    path = tmp_path / "cp.json"
    path.write_bytes(payload)
    with pytest.raises(CheckpointError, match=message):
        Checkpoint(path, parse_game(SPEC), "any")
    try:  # on its own (its game read from it): malformed is a defect, status 1 as verify's
        Checkpoint.read(path)
    except CheckpointError:
        assert moo(["checkpoint", "verify", str(path)]) == 1
        assert capsys.readouterr().out.startswith("DEFECT: ")


def test_a_checkpoint_without_its_game_says_so(tmp_path):
    path = tmp_path / "cp.json"
    path.write_bytes(b'{"format": "moo-checkpoint", "version": 2, "guesses": "any"}')
    with pytest.raises(CheckpointError, match="'game': the game's name is missing"):
        Checkpoint.read(path)
    path.write_bytes(b"{}")  # no checkpoint at all: said so, not that its game is missing
    with pytest.raises(CheckpointError, match="not a checkpoint this program reads"):
        Checkpoint.read(path)


def test_an_unfinished_lookahead_level_is_kept_as_such(tmp_path):
    """A sweep job that stopped at its cut-off records its level with ``cut``: the bound
    settles nothing (the class's part facts stay), and the next run takes the level as not
    finished; a finished level of the same bound is the stronger fact."""
    game = parse_game(SPEC)
    path = tmp_path / "cp.json"
    log = Checkpoint(path, game, "any")
    fid = next(iter(game.parts(0, np.arange(game.n_codes, dtype=np.int32))))
    log.record_part("total", 28, (0, fid), 12, None)
    log.record_total("total", 0, 28, 40, False, 2, cut=True)
    log.flush()  # facts are written at most every fifty writes' time, and at the end
    again = Checkpoint(path, game, "any")
    assert again.totals["total", 28].classes[0] == {"at_least": 40, "lookahead": 2, "cut": True}
    assert again.lookahead_levels("total", 0, 28) == 1
    assert again.part_fact("total", 28, (0, fid)) == {"at_least": 12}
    again.record_total("total", 0, 28, 40, False, 2)
    again.flush()
    assert Checkpoint(path, game, "any").lookahead_levels("total", 0, 28) == 2
    again.record_total("total", 0, 28, 40, False, 2, cut=True)  # weaker: kept as it was
    again.flush()
    assert Checkpoint(path, game, "any").totals["total", 28].classes[0] == {
        "at_least": 40, "lookahead": 2}


@pytest.mark.slow
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
    assert proc.returncode == 3, err.decode()[-2000:]
    assert b"UNFINISHED" in out and b"Traceback" not in err
    log = Checkpoint(path, parse_game("battleship"), "any")
    assert log.count_refuted(5) >= 1
    # the classes counted by the height they were refuted at: those refuted within 4 guesses
    # alone were counted as progress towards the claim of 6 (a tour: 279, where 66 counted)
    heights = Counter(entry["height"] for entry in log.refuted.values())
    said = ", ".join(f"{n} within {h} guesses" for h, n in sorted(heights.items(), reverse=True))
    assert f"first guesses refuted so far: {said} (" in out.decode()
    # -o: the tree in hand is written, not optimal (prove wrote nothing when stopped)
    assert b"written to " + str(tmp_path / "t.json").encode() in out
    tree = read_tree(tmp_path / "t.json")
    assert not tree.optimal and tree.meta["stopped"] is True and tree.lower_bound in (None, 5, 6)
    assert tree.meta["checkpoint"] == str(path)  # what its bound rests on, named
    assert verify(tree).defects == []


def test_build_with_the_checkpoint_of_a_proof(tmp_path):
    """moo build --objective height reads (and adds to) the proof's file: the same optimal
    height, with the refuted first guesses not searched again, and the meta says so."""
    game = parse_game(SPEC)
    plain = build(Request(game, "height", workers=1))
    path = tmp_path / "cp.json"
    _prove(path)
    known = build(Request(game, "height", workers=1, checkpoint=str(path)))
    assert plain.optimal and known.optimal
    assert replay(known).height == replay(plain).height == 5
    assert known.meta["height_search"]["nodes"] < plain.meta["height_search"]["nodes"]
    assert known.meta["height_search"]["classes_from_checkpoint"] > 0


# --- total -------------------------------------------------------------------------------------
def test_total_facts_are_true(tmp_path):
    """Every class's recorded least total (or lower bound) holds, and the incumbent is the
    optimum."""
    game = parse_game(TOTAL_SPEC)
    path = tmp_path / "cp.json"
    tree = build(Request(game, "total", workers=1, checkpoint=str(path)))
    log = Checkpoint(path, game, "any")
    facts = log.totals["total", game.n_codes]
    assert facts.incumbent[0] == replay(tree).total == 73
    assert facts.classes
    for guess, entry in facts.classes.items():
        value = _opening_values(TOTAL_SPEC, guess, game.n_codes)[1]
        if "exact" in entry:
            assert value == entry["exact"]
        else:
            assert value >= entry["at_least"]


def test_a_sample_of_classes_is_recorded_and_estimates_the_rest(tmp_path, monkeypatch, capsys):
    """scripts/bench_class.py --sample --record: the classes drawn are settled into the file
    with true facts (and the better tree one of them holds), the others are left alone, and
    the work left is estimated from the sample."""
    game = parse_game(TOTAL_SPEC)
    path = tmp_path / "cp.json"
    monkeypatch.setattr(sys, "argv", [
        "bench_class.py", TOTAL_SPEC, "--best", "80", "--sample", "2", "--seed", "3",
        "--record", "--checkpoint", str(path), "--workers", "1"])
    script("bench_class").main()
    out = capsys.readouterr().out
    facts = Checkpoint(path, game, "any").totals["total", game.n_codes]
    drawn = [line.split(":")[0] for line in out.splitlines()[1:3]]
    assert sorted(game.format_code(g) for g in facts.classes) == sorted(drawn)
    values = []
    for guess, entry in facts.classes.items():
        values.append(_opening_values(TOTAL_SPEC, guess, game.n_codes)[1])
        assert values[-1] == entry["exact"] if "exact" in entry else values[-1] >= entry["at_least"]
    assert facts.incumbent[0] == min(values) < 80
    assert sum(e["classes"] for e in facts.spent.values()) == 2
    assert all(e["drawn"] for e in facts.spent.values())  # the runs' estimate takes their pace
    assert "left: 3 classes below 80 when drawn; the mean of 2 drawn at random:" in out


def test_a_recorded_sample_is_drawn_alone(tmp_path, monkeypatch, capsys):
    """Its spending is the estimate's pace: classes chosen otherwise would bias it."""
    monkeypatch.setattr(sys, "argv", [
        "bench_class.py", TOTAL_SPEC, "--best", "80", "--sample", "2", "--list", "1",
        "--record", "--checkpoint", str(tmp_path / "cp.json")])
    with pytest.raises(SystemExit) as stop:
        script("bench_class").main()
    assert stop.value.code == 2 and "draw them alone" in capsys.readouterr().err
    assert not (tmp_path / "cp.json").exists()


def test_a_stopped_total_search_goes_on_where_it_stopped(tmp_path, monkeypatch):
    """The run stopped after its first class; a second run with the file takes the first run's
    facts and best tree and finishes with the same optimum, searching fewer classes."""
    from optimizer.search import total as total_module

    game = parse_game("mastermind:3x4")
    plain = build(Request(game, "total", workers=1))
    path = tmp_path / "cp.json"
    real = total_module.TotalSearch.root_class
    calls = []

    def stop_after_one(self, *args, **kw):
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        return real(self, *args, **kw)

    monkeypatch.setattr(total_module.TotalSearch, "root_class", stop_after_one)
    first = build(Request(game, "total", workers=1, checkpoint=str(path)))
    assert first.meta["stopped"] and not first.optimal
    monkeypatch.setattr(total_module.TotalSearch, "root_class", real)
    second = build(Request(game, "total", workers=1, checkpoint=str(path)))
    assert second.optimal and replay(second).total == replay(plain).total
    assert (second.meta["total_search"]["classes_searched"]
            < plain.meta["total_search"]["classes_searched"]
            or second.meta["total_search"].get("classes_from_checkpoint", 0) > 0)


def test_merge_is_a_union_and_refuses_contradictions(tmp_path, capsys):
    game = parse_game(TOTAL_SPEC)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    build(Request(game, "total", workers=1, checkpoint=str(a)))
    prove_height(TOTAL_SPEC, 4, workers=1, progress=False, checkpoint=str(b))
    assert moo(["checkpoint", "merge", str(a), str(b), "-o", str(tmp_path / "c.json")]) == 0
    merged = Checkpoint(tmp_path / "c.json", game, "any")
    assert merged.refuted == Checkpoint(b, game, "any").refuted
    assert merged.totals["total", 27].incumbent[0] == 73
    data = orjson.loads(a.read_bytes())
    code, entry = next(iter(data["total"]["27"]["classes"].items()))
    data["total"]["27"]["classes"][code] = {"exact": next(iter(entry.values())) - 1}
    bad = tmp_path / "bad.json"
    bad.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "merge", str(a), str(bad), "-o", str(tmp_path / "d.json")]) == 2
    assert not (tmp_path / "d.json").exists()
    other = tmp_path / "other.json"  # another game's: refused in one line naming it once
    prove_height("mastermind:2x3", 3, workers=1, progress=False, checkpoint=str(other))
    capsys.readouterr()
    assert moo(["checkpoint", "merge", str(a), str(other), "-o", str(tmp_path / "d.json")]) == 2
    assert capsys.readouterr().err == (
        f"moo: error: {other}: mastermind:2x3 (any guesses) cannot be merged with "
        f"{TOTAL_SPEC} (any guesses)\n")
    assert not (tmp_path / "d.json").exists()
    # into an existing output of another game: the output named once
    assert moo(["checkpoint", "merge", str(a), "-o", str(other)]) == 2
    assert capsys.readouterr().err.startswith(f"moo: error: {other}: written for mastermind:2x3 "
                                              f"(any guesses), not {TOTAL_SPEC} (any guesses); "
                                              "nothing written")
    # a tree added to an existing checkpoint given only as the output
    tree = tmp_path / "t.json"
    assert moo(["build", TOTAL_SPEC, "--strategy", "minimax", "-o", str(tree)]) == 0
    fresh = tmp_path / "fresh.json"
    Checkpoint(fresh, game, "any").close()
    capsys.readouterr()
    assert moo(["checkpoint", "merge", str(tree), "-o", str(fresh)]) == 0
    assert capsys.readouterr().out.endswith(" from 1 file\n")
    kept = [f.incumbent[0] for f in Checkpoint(fresh, game, "any").totals.values()]
    assert replay(read_tree(tree)).total in kept
    assert moo(["checkpoint", "merge", str(tree), "-o", str(tmp_path / "none.json")]) == 2
    assert "or an existing one as -o" in capsys.readouterr().err


def test_show_and_merge_read_each_file_once(tmp_path, monkeypatch):
    """A checkpoint is parsed once by each command (a 62 MB file takes a second to parse; merge
    took three): its game, its format and its facts come from the one read."""
    import optimizer.formats.checkpoint_fields as fields

    game = parse_game(TOTAL_SPEC)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    build(Request(game, "total", workers=1, checkpoint=str(a)))
    prove_height(TOTAL_SPEC, 4, workers=1, progress=False, checkpoint=str(b))
    reads: list[str] = []
    real = fields.read_file

    def counted(path):
        reads.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(fields, "read_file", counted)
    assert moo(["checkpoint", "show", str(a)]) == 0
    assert reads == ["a.json"]
    reads.clear()
    assert moo(["checkpoint", "merge", str(a), str(b), "-o", str(tmp_path / "c.json")]) == 0
    assert sorted(reads) == ["a.json", "b.json"]
    merged = Checkpoint(tmp_path / "c.json", game, "any")
    assert merged.refuted == Checkpoint(b, game, "any").refuted
    assert merged.totals["total", 27].incumbent[0] == 73


def test_verify_re_proves_claims_and_names_false_ones(tmp_path, capsys):
    game = parse_game(TOTAL_SPEC)
    path = tmp_path / "cp.json"
    build(Request(game, "total", workers=1, checkpoint=str(path)))
    prove_height(TOTAL_SPEC, 4, workers=1, progress=False, checkpoint=str(path))
    assert moo(["checkpoint", "verify", str(path), "--workers", "1", "--quiet"]) == 0
    assert "OK: every claim checked holds" in capsys.readouterr().out
    data = orjson.loads(path.read_bytes())
    code = next(iter(data["total"]["27"]["classes"]))
    true = _opening_values(TOTAL_SPEC, game.parse_code(code), 27)[1]
    data["total"]["27"]["classes"][code] = {"at_least": true + 1}  # more than is true
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "verify", str(path), "--workers", "1", "--quiet"]) == 1
    out = capsys.readouterr().out
    claims = len(data["height"]["refuted"]) + len(data["total"]["27"]["classes"])
    assert f"{claims} of {claims} claims checked by exhaustive search, {claims - 1} hold" in out
    assert f"does not hold: {code} within 27" in out
    assert moo(["checkpoint", "verify", str(path), "--workers", "1", "--quiet", "--sample",
                "1"]) in (0, 1)
    assert f"1 of 1 claims drawn at random from its {claims} checked" in capsys.readouterr().out
    assert moo(["checkpoint", "verify", str(path), "--seed", "3"]) == 2  # no draw to seed
    assert "--seed is the seed of --sample's draw" in capsys.readouterr().err
    status = moo(["checkpoint", "show", str(path)])
    out = capsys.readouterr().out
    opening = out.split("best tree: 73, opening ")[1].split(";")[0]
    # the false bound is of the best tree's own class (above its 73): a contradiction, said
    contradicts = game.first_guess_class(game.parse_code(opening)) == game.parse_code(code)
    assert status == contradicts and ("DEFECT: contradiction" in out) == contradicts


def test_show_states_what_a_gap_goal_leaves_at_its_runs_pace(tmp_path, capsys):
    """The file's estimate is the exact runs'; for each goal of --gap runs on record, show
    counts the classes still below it on file (no fact: below) at those runs' mean pace and at
    the slowest's (the classes left tend to cost more)."""
    game = parse_game(TOTAL_SPEC)
    first = [game.format_code(int(g)) for g in game.first_guesses()]
    data = {"format": "moo-checkpoint", "version": 2, "game": TOTAL_SPEC, "guesses": "any",
            "total": {"27": {"classes": {first[0]: {"at_least": 70}, first[1]: {"at_least": 80}},
                             "spent": {"abc": {"cpu_seconds": 5400, "classes": 3, "goal": 75},
                                       "abd": {"cpu_seconds": 2700, "classes": 1, "goal": 75},
                                       "abe": {"cpu_seconds": 9, "classes": 0, "goal": 75},
                                       "def": {"cpu_seconds": 10, "classes": 1}}}}}
    path = tmp_path / "cp.json"
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "show", str(path)]) == 0
    out = [line.strip() for line in capsys.readouterr().out.splitlines()]
    below = len(first) - 1
    assert out[-3:] == [
        "work spent: 0.00 CPU hours (10 s) of search in 1 run on record, 1 class settled",
        "work spent: 2.25 CPU hours (8109 s) of search in 3 runs on record, 4 classes lifted to "
        "at least 75 (--gap); by run, 1800.0 to 2700.0 CPU seconds a class",
        f"{below} first-guess classes still below it on file, about {below * 8109 / 4 / 3600:.2f} "
        f"core-hours at their mean pace, {below * 2700 / 3600:.2f} at the slowest run's"]
    from optimizer.cli.checkpoints import _slowest, _spread

    runs = _spread([{"cpu_seconds": 100, "classes": 1}, {"cpu_seconds": 200, "classes": 1}])
    assert _slowest(runs, 3, mean=150) == ", 0.17 at the slowest run's"
    assert _slowest(runs, 3, mean=1100) == ""  # a run that lifted nothing made the mean slower


def test_show_says_when_a_gap_goal_is_reached(tmp_path, capsys):
    """With every class at or above a --gap goal, show says so instead of counting no hours."""
    game = parse_game(TOTAL_SPEC)
    first = [game.format_code(int(g)) for g in game.first_guesses()]
    data = {"format": "moo-checkpoint", "version": 2, "game": TOTAL_SPEC, "guesses": "any",
            "total": {"27": {"classes": {code: {"at_least": 75} for code in first},
                             "spent": {"abc": {"cpu_seconds": 5400, "classes": 3, "goal": 75}}}}}
    path = tmp_path / "cp.json"
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "show", str(path)]) == 0
    out = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert out[-1] == "no first-guess class is below it on file: the goal is reached"
    assert not any("still below" in line for line in out)


def test_show_states_the_class_bounds_on_file(tmp_path, capsys):
    """A total within fewer guesses is bounded by the facts within more (a run takes them), and
    the classes with no fact are counted (when there are any)."""
    game = parse_game(TOTAL_SPEC)
    first = [game.format_code(int(g)) for g in game.first_guesses()]
    data = {"format": "moo-checkpoint", "version": 2, "game": TOTAL_SPEC, "guesses": "any",
            "height": {"refuted": {first[0]: {"height": 3, "nodes": 1, "seconds": 0.0}}},
            "total": {"27": {"classes": {first[0]: {"at_least": 70}}},
                      "4": {"classes": {first[0]: {"at_least": 60}, first[1]: {"at_least": 65}}},
                      "3": {"classes": {code: {"at_least": 90} for code in first}}}}
    path = tmp_path / "cp.json"
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "show", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    within4 = out[out.index("  total, within 4 guesses: 0 classes with an exact least total, "
                            "2 with a lower bound (least 60)") + 1]
    assert within4 == (f"    class bounds on file: 2 of {len(first)} first-guess classes, "
                       "least 65 (facts within more guesses included); none for the other "
                       f"{len(first) - 2}")
    assert f"1 of {len(first)} first-guess classes, least 70" in "\n".join(out)
    assert "  height: 1 first-guess class claimed refuted within 3 guesses" in out
    assert (f"    class bounds on file: {len(first)} of {len(first)} first-guess classes, least "
            "90 (facts within more guesses included)") in out


def test_a_true_lookahead_bound_above_a_cold_recount_still_holds(tmp_path, capsys):
    """A lookahead claim a warm worker proved (its table held tighter values than a fresh
    solver's recount) is decided by the exact search when the recount falls short."""
    game = parse_game(TOTAL_SPEC)
    path = tmp_path / "cp.json"
    build(Request(game, "total", workers=1, checkpoint=str(path)))
    data = orjson.loads(path.read_bytes())
    code = next(iter(data["total"]["27"]["classes"]))
    true = _opening_values(TOTAL_SPEC, game.parse_code(code), 27)[1]
    data["total"]["27"]["classes"] = {code: {"at_least": true, "lookahead": 1}}
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "verify", str(path), "--workers", "1", "--quiet"]) == 0
    data["total"]["27"]["classes"] = {code: {"at_least": true + 1, "lookahead": 1}}
    path.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "verify", str(path), "--workers", "1", "--quiet"]) == 1
    assert "does not hold" in capsys.readouterr().out


def test_a_tree_joins_a_checkpoint_as_the_tree_to_beat(tmp_path, capsys):
    """`moo checkpoint merge` takes tree files too: a tree found elsewhere becomes the best tree
    within its height, and a search from the merged file starts from it."""
    game = parse_game(TOTAL_SPEC)
    ckpt, tree_file = tmp_path / "a.json", tmp_path / "tree.json"
    prove_height(TOTAL_SPEC, 4, workers=1, progress=False, checkpoint=str(ckpt))
    assert moo(["build", TOTAL_SPEC, "--objective", "total", "--workers", "1", "--quiet",
                "-o", str(tree_file)]) == 0
    merged = tmp_path / "c.json"
    assert moo(["checkpoint", "merge", str(ckpt), str(tree_file), "-o", str(merged)]) == 0
    result = replay(read_tree(tree_file))
    log = Checkpoint(merged, game, "any")
    assert log.totals["total", result.height].incumbent[0] == result.total == 73
    again = build(Request(game, "total", workers=1, checkpoint=str(merged)))
    assert again.optimal and replay(again).total == 73
    other = tmp_path / "other.json"
    assert moo(["build", "mastermind:2x3", "--objective", "total", "--workers", "1", "--quiet",
                "-o", str(other)]) == 0
    assert moo(["checkpoint", "merge", str(ckpt), str(other), "-o", str(tmp_path / "d.json")]) == 2
    assert "cannot join" in capsys.readouterr().err


@pytest.mark.parametrize("tree_first", [False, True])
@pytest.mark.parametrize("member", [False, True])
def test_a_tree_that_does_not_beat_the_file_s_is_still_checked_against_its_facts(
        tmp_path, capsys, tree_first, member):
    """A merged tree costs at least what its opening's class is said to: a tree opening with a
    class that a (false) fact puts above it is refused, though it is not the new best, whether
    it comes before the checkpoint file or after, and whichever code of the class it opens
    with (``member``: not the class's first guess, by which the file keys its facts)."""
    game = parse_game(TOTAL_SPEC)
    ckpt, tree_file = tmp_path / "a.json", tmp_path / "tree.json"
    build(Request(game, "total", workers=1, checkpoint=str(ckpt)))
    best = Checkpoint(ckpt, game, "any").totals["total", 27].incumbent
    other = next(int(g) for g in game.first_guesses() if int(g) != best[1].guess)
    opening = next(c for c in range(game.n_codes) if game.first_guess_class(c) == other
                   and c != other) if member else other
    assert moo(["build", TOTAL_SPEC, "--objective", "total", "--workers", "1", "--quiet",
                "--first", game.format_code(opening), "-o", str(tree_file)]) == 0
    tree = read_tree(tree_file)
    assert tree.root.guess == opening
    value = replay(tree).total
    assert value >= best[0]
    data = orjson.loads(ckpt.read_bytes())
    data["total"]["27"]["classes"][game.format_code(other)] = {"at_least": value + 1}
    ckpt.write_bytes(orjson.dumps(data))
    merged = tmp_path / "c.json"
    files = [str(tree_file), str(ckpt)] if tree_first else [str(ckpt), str(tree_file)]
    assert moo(["checkpoint", "merge", *files, "-o", str(merged)]) == 2
    assert (f"contradiction: the tree merged opens with {game.format_code(opening)} and costs "
            f"{value}, but that class is said to cost at least {value + 1}"
            in capsys.readouterr().err)
    assert not merged.exists()


def test_a_word_game_checkpoint_holds_to_its_lists(tmp_path, monkeypatch, capsys):
    """A file of `words:ANSWERS,GUESSES` names files, whose words may change: the checkpoint
    keeps the lists' digest, and is refused for other lists (or when it has none), with the
    command's bad-input status; Wordle's own lists need none."""
    import os

    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text("bat\ncat\nhat\nmat\nrat\nsat\n")
    Path("g.txt").write_text("chm\nbcr\n")
    spec = "words:a.txt,g.txt"
    assert moo(["build", spec, "--objective", "total", "--checkpoint", "c.json", "-o", "t.json",
                "--quiet"]) == 0
    data = orjson.loads(Path("c.json").read_bytes())
    assert data["word_lists_sha256"] == parse_game(spec).digest
    Checkpoint("c.json", parse_game(spec), "any")  # the same lists: read

    Path("g.txt").write_text("chm\nbcr\nhst\n")  # a guess more: another game under one spec
    with pytest.raises(CheckpointError, match="other word lists"):
        Checkpoint("c.json", parse_game(spec), "any")
    capsys.readouterr()
    assert moo(["build", spec, "--objective", "total", "--checkpoint", "c.json", "-o", "u.json",
                "--quiet"]) == 2
    assert "other word lists" in capsys.readouterr().err and not os.path.exists("u.json")

    del data["word_lists_sha256"]
    Path("d.json").write_bytes(orjson.dumps(data))
    with pytest.raises(CheckpointError, match="without the word lists' digest"):
        Checkpoint("d.json", parse_game(spec), "any")
    data["game"], data["word_lists_sha256"] = "mastermind:3x3", "0" * 64
    data.pop("total", None)
    data.pop("height", None)
    Path("e.json").write_bytes(orjson.dumps(data))
    with pytest.raises(CheckpointError, match="is for word games"):
        Checkpoint("e.json", parse_game("mastermind:3x3"), "any")


def test_a_word_game_checkpoint_is_read_from_another_folder(tmp_path, monkeypatch, capsys):
    """Its spec names the lists relative to the file's folder, so it is read from any folder
    (``moo checkpoint show ../c.json`` once failed); one written before that, relative to
    where its run was, is read with the lists found from the current folder; the lists'
    digest decides whether they are the same lists."""
    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text("bat\ncat\nhat\nmat\nrat\nsat\n")
    Path("g.txt").write_text("chm\nbcr\n")
    assert moo(["build", "words:a.txt,g.txt", "--objective", "total", "--checkpoint", "c.json",
                "-o", "t.json", "--quiet"]) == 0
    Path("sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    capsys.readouterr()
    Path("a.txt").write_text("bat\ncat\n")  # here, other lists under the same name
    assert moo(["checkpoint", "show", "../c.json"]) == 0  # the file's own, beside it
    assert "words:a.txt,g.txt" in capsys.readouterr().out
    (tmp_path / "a.txt").rename(tmp_path / "kept.txt")
    assert moo(["checkpoint", "show", "../c.json"]) == 2  # only this folder's a.txt is left
    assert "other word lists" in capsys.readouterr().err
    Path("a.txt").unlink()
    assert moo(["checkpoint", "show", "../c.json"]) == 2
    assert "'a.txt': cannot be read" in capsys.readouterr().err


def test_a_word_game_checkpoint_merged_into_another_folder(tmp_path, monkeypatch, capsys):
    """Runs in two folders, each naming its own copy of the lists, merge into a third folder;
    the merged file names the lists from its own folder, is read from anywhere, and a run from
    either folder goes on from it."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        Path("a.txt").write_text("bat\ncat\nhat\nmat\nrat\nsat\nvat\n")
        Path("g.txt").write_text("chm\nbcr\n")
        assert moo(["build", "words:a.txt,g.txt", "--objective", "total", "--checkpoint",
                    "c.json", "-o", "t.json", "--quiet"]) == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "all").mkdir()
    assert moo(["checkpoint", "merge", "one/c.json", "two/c.json", "-o", "all/m.json"]) == 0
    assert orjson.loads(Path("all/m.json").read_bytes())["game"] == \
        "words:../one/a.txt,../one/g.txt"
    monkeypatch.chdir(tmp_path / "two")
    capsys.readouterr()
    assert moo(["checkpoint", "show", "../all/m.json"]) == 0
    assert moo(["build", "words:a.txt,g.txt", "--objective", "total", "--checkpoint",
                "../all/m.json", "-o", "u.json", "--quiet"]) == 0
    assert orjson.loads(Path("u.json").read_bytes())["stats"] == \
        orjson.loads(Path("t.json").read_bytes())["stats"]
    # the run wrote the file naming its own lists, again from the file's folder
    assert orjson.loads((tmp_path / "all/m.json").read_bytes())["game"] == \
        "words:../two/a.txt,../two/g.txt"
    monkeypatch.chdir(tmp_path / "one")
    assert moo(["checkpoint", "verify", "../all/m.json"]) == 0


def test_a_word_checkpoint_names_lists_it_can_read_back(tmp_path, monkeypatch, capsys):
    """A way to the lists a spec cannot hold (a folder with a comma) leaves the spec as given
    (read from where the run started, as before); a checkpoint in a folder reached through a
    link names the lists from its real folder; a file without the lists' digest is taken only
    under its own spec (a `words:` file is not Wordle's)."""
    import os

    for name in ("run,1", "run"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.txt").write_text("bat\ncat\nhat\nmat\nrat\nsat\n")
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    monkeypatch.chdir(tmp_path / "run,1")
    assert moo(["build", "words:a.txt", "--objective", "total", "--checkpoint", "../ck.json",
                "-o", "t.json", "--quiet"]) == 0
    assert orjson.loads(Path("../ck.json").read_bytes())["game"] == "words:a.txt"
    assert moo(["checkpoint", "show", "../ck.json"]) == 0
    monkeypatch.chdir(tmp_path / "run")
    assert moo(["build", "words:a.txt", "--objective", "total", "--checkpoint",
                "../link/c.json", "-o", "t.json", "--quiet"]) == 0
    monkeypatch.chdir(tmp_path / "real")
    assert orjson.loads(Path("c.json").read_bytes())["game"] == "words:../run/a.txt"
    capsys.readouterr()
    assert moo(["checkpoint", "show", "c.json"]) == 0  # from its real folder
    assert "words:../run/a.txt" in capsys.readouterr().out

    (tmp_path / "store").mkdir()  # a checkpoint that is a link to a file elsewhere
    os.symlink(tmp_path / "store" / "real.json", tmp_path / "run" / "ln.json")
    monkeypatch.chdir(tmp_path / "run")
    assert moo(["build", "words:a.txt", "--objective", "total", "--checkpoint", "ln.json",
                "-o", "t.json", "--quiet"]) == 0
    monkeypatch.chdir(tmp_path)
    assert moo(["checkpoint", "show", "store/real.json"]) == 0

    data = {"format": "moo-checkpoint", "version": 2, "game": "words:other.txt",
            "guesses": "any"}
    Path("old.json").write_bytes(orjson.dumps(data))
    with pytest.raises(CheckpointError, match="written for words:other.txt"):
        Checkpoint("old.json", parse_game("wordle"), "any")


def test_an_older_wordle_checkpoint_without_a_digest_is_taken_for_wordle_alone(tmp_path):
    """Wordle's lists are the package's own: a file of spec "wordle" from before the digest is
    read for them, and refused for other lists that a program named "wordle"."""
    from optimizer.games import word_game

    wordle = parse_game("wordle")
    log = Checkpoint(tmp_path / "w.json", wordle, "any")
    log.record_total("total", wordle.parse_code("salet"), wordle.n_codes, 7920, exact=False)
    log.flush()
    data = orjson.loads((tmp_path / "w.json").read_bytes())
    assert data.pop("word_lists_sha256") == wordle.digest
    (tmp_path / "w.json").write_bytes(orjson.dumps(data))
    assert Checkpoint(tmp_path / "w.json", wordle, "any").total_lower_bound(
        "total", wordle.parse_code("salet"), wordle.n_codes) == 7920
    other = word_game(["salet", "crane"], [], name="wordle")
    with pytest.raises(CheckpointError, match="without the word lists' digest"):
        Checkpoint(tmp_path / "w.json", other, "any")


def test_a_corrected_refutation_is_written_at_once(tmp_path):
    """The run says "corrected in the file": it is, even while writes are held back."""
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    log = Checkpoint(path, game, "any")
    log.record_refuted(0, 9, 10, 0.5)
    log._save_cost = 10.0  # a slow file: other facts wait for a minute
    log.record_total("total", 0, 9, 40, exact=True)
    assert Checkpoint(path, game, "any").refuted_height(0) == 0


def test_a_slow_write_holds_facts_back_a_minute_at_most(tmp_path, monkeypatch):
    """A write that takes long (a large file, or another run's facts read from a shared one
    first) spaces the next ones out, but a fact waits a minute at most: a killed run loses no
    more."""
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    log = Checkpoint(path, game, "any")
    log.record_refuted(0, 9, 10, 0.5)
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    log._save_cost, log._saved_at = 10.0, now[0]  # fifty times: 500 s
    fid = next(iter(game.parts(0, np.arange(game.n_codes, dtype=np.int32))))
    now[0] += 59.0
    log.record_part("total", 9, (0, fid), 12, None)
    assert Checkpoint(path, game, "any").part_fact("total", 9, (0, fid)) is None
    now[0] += 2.0
    log.record_part("total", 9, (0, fid), 13, None)
    assert Checkpoint(path, game, "any").part_fact("total", 9, (0, fid)) == {"at_least": 13}


def test_a_run_with_nothing_to_record_still_writes_its_checkpoint(tmp_path, capsys):
    """Counting settles mastermind:2x3's height (no node searched): the file the user named is
    there afterwards, with the game and no facts, and reads back."""
    path = tmp_path / "none.json"
    assert moo(["prove", "mastermind:2x3", "--height", "3", "--workers", "1", "--checkpoint",
                str(path)]) == 0
    assert "0 nodes" in capsys.readouterr().out
    assert moo(["checkpoint", "show", str(path)]) == 0
    assert "no facts yet" in capsys.readouterr().out
    log = Checkpoint.read(path)
    assert log.game.spec == "mastermind:2x3" and not log.refuted and not log.totals
    refused = tmp_path / "refused.json"  # bad input found inside the search: no file
    assert moo(["build", "mastermind:2x3", "--objective", "height", "--gap", "1", "--checkpoint",
                str(refused), "-o", str(tmp_path / "t.json"), "--quiet"]) == 2
    assert "--gap applies to objectives with a least total" in capsys.readouterr().err
    assert not refused.exists() and not (tmp_path / "t.json").exists()


def test_a_depth_limit_past_the_secrets_is_the_total_s_own(tmp_path):
    """total@50 on 27 secrets limits nothing: its facts are the plain total's (key 27), not a
    second "no depth limit" section of the file."""
    path, out = tmp_path / "cp.json", tmp_path / "t.json"
    for objective in ("total@50", "total"):
        assert moo(["build", "mastermind:3x3", "--objective", objective, "--checkpoint",
                    str(path), "-o", str(out), "--quiet"]) == 0
    assert list(orjson.loads(path.read_bytes())["total"]) == ["27"]
    assert read_tree(out).meta["checkpoint_facts"] >= 1  # the second run took the first's


def test_a_tree_found_without_a_limit_serves_a_limit_it_fits(tmp_path, capsys):
    """The best no-limit tree (height 4) is the best within 4 too; a search within 4 started
    from the greedy tree, and `checkpoint show` gave that section's worse tree."""
    game = parse_game("mastermind:3x3")
    tree = build(Request(game, objective="total"))
    assert replay(tree).height == 4
    path = tmp_path / "cp.json"
    log = Checkpoint(path, game, "any")
    log.record_incumbent("total", 27, 73, tree.root)
    worse = build(Request(game, strategy="minimax"))
    assert replay(worse).total > 73 and replay(worse).height <= 4
    log.record_incumbent("total", 4, replay(worse).total, worse.root)
    log.flush()
    assert log.better_incumbent("total", 4, None, None) == (73, tree.root)
    assert log.better_incumbent("total", 3, None, None) == (None, None)  # too tall for 3
    assert moo(["checkpoint", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "best tree: 73, opening 001; checked by replay (found with another depth limit" in out


def test_a_stop_before_the_search_takes_the_checkpoint_s_tree_writes_it(tmp_path, monkeypatch):
    """A signal while the greedy tree was built (before the search reads the file's best tree)
    wrote seed 000's tree over the output: Bulls and Cows 28024 where the file held 26424."""
    from optimizer.search import objectives

    game, ckpt = parse_game("mastermind:3x4"), tmp_path / "c.json"
    best = replay(build(Request(game, objective="total", checkpoint=str(ckpt)))).total

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(objectives, "total_incumbent", interrupted)
    tree = build(Request(game, objective="total", checkpoint=str(ckpt)))
    assert tree.meta["stopped"] and not tree.optimal
    assert replay(tree).total == best and not replay(tree).defects


def test_show_names_facts_that_contradict_each_other(tmp_path, capsys):
    """A class said to cost more than the file's own tree opening with it: build and prove
    refuse the file, and show listed it without a word."""
    game, ckpt = parse_game("mastermind:3x4"), tmp_path / "c.json"
    tree = build(Request(game, objective="total", checkpoint=str(ckpt)))
    assert moo(["checkpoint", "show", str(ckpt)]) == 0 and "DEFECT" not in capsys.readouterr().out
    data = orjson.loads(ckpt.read_bytes())
    best = replay(tree).total
    code = game.format_code(game.first_guess_class(tree.root.guess))
    data["total"][str(game.n_secrets)]["classes"][code] = {"exact": best + 4}
    ckpt.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "show", str(ckpt)]) == 1
    out = capsys.readouterr().out
    assert (f"  DEFECT: contradiction: the total incumbent within {game.n_secrets} opens "
            "with ") in out
    assert f"said to cost at least {best + 4}: a build or proof refuses this file" in out


def test_a_deepest_search_stopped_before_it_reads_the_checkpoint_writes_its_tree(
        tmp_path, monkeypatch):
    """deepest@4 of Mastermind 3x4 (seed 000's tree is 6 tall) runs a height search first: a
    stop there ended in an error with the file's deepest@4 tree unused."""
    from optimizer.search.objectives import Search

    game, ckpt = parse_game("mastermind:3x4"), tmp_path / "c.json"
    built = build(Request(game, objective="deepest@4", checkpoint=str(ckpt)))
    assert built.optimal

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Search, "min_height", interrupted)
    tree = build(Request(game, objective="deepest@4", checkpoint=str(ckpt)))
    assert tree.meta["stopped"] and not tree.optimal and tree.lower_bound == 0
    assert replay(tree).histogram == replay(built).histogram and not replay(tree).defects


def test_a_deepest_build_stopped_early_takes_a_count_search_s_tree(tmp_path, monkeypatch):
    """`moo prove --deepest` records only the count search's tree ("deep"): a deepest@K build
    stopped before reading the file took only "deepest" trees, and ended in an error."""
    from optimizer.cli.prove import prove_deepest
    from optimizer.search.objectives import Search

    game, ckpt = parse_game("mastermind:3x4"), tmp_path / "c.json"
    assert prove_deepest("mastermind:3x4", 4, 0, progress=False, checkpoint=str(ckpt),
                         workers=1)["finished"]
    assert sorted(Checkpoint(ckpt, game, "any").totals) == [("deep", 4)]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Search, "min_height", interrupted)
    tree = build(Request(game, objective="deepest@4", checkpoint=str(ckpt), workers=1))
    assert tree.meta["stopped"] and replay(tree).height <= 4 and not replay(tree).defects


def test_a_deepest_build_stopped_in_its_height_search_claims_no_height_bound(tmp_path,
                                                                             monkeypatch):
    """A height search stopped inside deepest@K's build left its bound on the height (3) as
    the tree's lower bound on the count at depth K: 'no tree has fewer than 3 secrets at depth
    5' under a tree with none there, a defect `moo verify` names."""
    from optimizer.search.height import HeightSearch

    game, ckpt = parse_game("mastermind:3x4"), tmp_path / "c.json"
    build(Request(game, objective="deepest@5", checkpoint=str(ckpt), workers=1))

    def interrupted(self, classes, depth):
        raise KeyboardInterrupt

    monkeypatch.setattr(HeightSearch, "_height_at", interrupted)
    tree = build(Request(game, objective="deepest@5", checkpoint=str(ckpt), workers=1))
    assert tree.meta["stopped"] and tree.lower_bound == 0 and not verify(tree).defects


@pytest.mark.parametrize("depth", [3, 4])
def test_a_deepest_build_stopped_after_its_height_was_proven_keeps_what_was(tmp_path,
                                                                            monkeypatch, depth):
    """Mastermind 3x4 needs 4 guesses. A height search stopped once it had refuted 3: under
    deepest@4 every tree has a secret at depth 4 (the count is at least 1, not 0), and deepest@3
    has no tree at all, which is a proof, not a stop."""
    game, ckpt = parse_game("mastermind:3x4"), str(tmp_path / "c.json")
    build(Request(game, objective="deepest@4", checkpoint=ckpt, workers=1))  # a tree on file
    from optimizer.search.height import HeightSearch
    from optimizer.search.objectives import Search

    real = HeightSearch._height_at

    def stopped_at_four(self, classes, at):
        if at >= 4:
            raise KeyboardInterrupt
        return real(self, classes, at)

    monkeypatch.setattr(HeightSearch, "_height_at", stopped_at_four)
    monkeypatch.setattr(Search, "_height_start", lambda self: (None, None))  # no greedy tree
    request = Request(game, objective=f"deepest@{depth}", checkpoint=ckpt, workers=1)
    if depth == 3:
        with pytest.raises(ValueError, match="no tree of height 3 or less exists") as error:
            build(request)
        assert "stopped" not in str(error.value)
        return
    tree = build(request)
    assert tree.meta["stopped"] and tree.lower_bound == 1 and not verify(tree).defects
