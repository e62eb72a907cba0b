"""Issue 28, items 8-10: the edges of the API, the protocol and the options. Each test fails on
the code before its fix: protocol lines of any length, feedback of any Python type, seeds past 64
bits, closed or broken standard streams, signals in ``--json`` mode, trees whose games make no
progress, escape sequences, ``--sample 0``, game specs with nothing after the colon or not in
the canonical notation, and checkpoint facts a run finds false."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from optimizer.cli import app as cli
from optimizer.cli.protocol import MAX_LINE, serve
from optimizer.formats.tree_file import read_tree, tree_from_json
from optimizer.games import GameError, parse_game
from optimizer.provenance import verify
from optimizer.session import Solver
from optimizer.tree import TreeError

ROOT = Path(__file__).resolve().parents[1]
MM_TREE = ROOT / "trees" / "mastermind-4x6.total.any.json"


def moo(*args: str, stdin=subprocess.DEVNULL, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "optimizer", *args], cwd=ROOT, stdin=stdin,
                          capture_output=True, timeout=timeout)


def json_lines(data: bytes) -> list[dict]:
    """Every line of ``data`` as JSON (a line that is not JSON fails the test)."""
    return [json.loads(line) for line in data.decode().splitlines()]


# --- protocol lines: a maximum length, never held whole -------------------------------------
class Pipe:
    """Standard input as the protocol reads it, recording the most bytes handed over at once."""

    def __init__(self, data: bytes):
        self.data = io.BytesIO(data)
        self.largest = 0

    def readline(self, size: int = -1) -> bytes:
        line = self.data.readline(size)
        self.largest = max(self.largest, len(line))
        return line

    def __iter__(self):
        return iter(self.readline, b"")


def test_a_line_too_long_is_an_error_object_and_the_session_goes_on():
    """20 MB on one line (it ended the session with "out of memory"): one error object, the
    state unchanged, the next line taken; no read holds more than 64 KB."""
    pipe = Pipe(b"1" * 20_000_000 + b"\n1 1\n")
    out = io.StringIO()
    assert serve(lambda: Solver.load(MM_TREE).new_game(), pipe, out) == 0
    first, refused, taken = json_lines(out.getvalue().encode())
    assert "too long" in refused["error"] and str(MAX_LINE) in refused["error"]
    assert {k: v for k, v in refused.items() if k != "error"} == first
    assert taken["guesses"] == 1 and "error" not in taken
    assert pipe.largest <= 65536


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
def test_the_longest_line_taken_is_max_line_bytes(ending):
    """A feedback padded to exactly MAX_LINE bytes is taken; one byte more is refused, whatever
    ends the line (the last line may have no end)."""
    fits = b"1 1".ljust(MAX_LINE)
    out = io.StringIO()
    serve(lambda: Solver.load(MM_TREE).new_game(), Pipe(fits + b"\n" + b" " + fits + ending), out)
    _, taken, refused = json_lines(out.getvalue().encode())
    assert taken["guesses"] == 1 and "error" not in taken
    assert "too long" in refused["error"] and refused["guesses"] == 1


def test_the_longest_legitimate_line_is_far_below_the_limit():
    """What MAX_LINE must hold: the longest code of the largest games and the longest tagged
    feedback (measured: a few dozen characters)."""
    longest = ["exact: 5, one-away: 0, two-away: 0", "2 whites, 1 blacks"]
    for spec in ("moo:1,2,3,4,5,6,7,36", "battleship:9x26x2", "mastermind:8x3"):
        game = parse_game(spec)
        longest.append(game.format_code(game.n_codes - 1))
    assert max(map(len, longest)) * 20 < MAX_LINE


# --- feedback in the API: only strings and whole numbers --------------------------------------
@pytest.mark.parametrize("feedback", [
    [1.7, 2.2], (1.0, 1.0), {1: 2, 0: 0}, {1, 2}, (True, False), [True, 1], iter([1, 1]),
    b"1 1", 1, None, ("1", "1"), (10**5000, 0), (1, 1, 0), (-1, 2),
])
def test_feedback_of_another_type_is_refused_not_converted(feedback):
    """answer([1.7, 2.2]) was taken as 1 2 and a dict as its keys: now a GameError naming what
    was given, and the game unchanged."""
    session = Solver.load(MM_TREE).new_game()
    with pytest.raises(GameError, match="feedback"):
        session.answer(feedback)
    assert session.guesses == 0 and session.guess == "0012"


def test_feedback_as_whole_numbers_is_taken():
    import numpy as np

    for feedback in ((1, 1), [1, 1], (np.int64(1), np.int8(1)), "1 1"):
        session = Solver.load(MM_TREE).new_game()
        session.answer(feedback)
        assert [r.feedback for r in session.rounds] == ["1 1"]


def test_new_game_refuses_one_string_for_a_list_of_answers():
    """Not a list of answers: a string, bytes or a dict (taken item by item, a dict's keys as
    the answers) and what cannot be iterated (None, 5: a TypeError before)."""
    for feedback in ("1 1", b"02", {"1 1": 1}, None, 5):
        with pytest.raises(GameError, match="list of the answers"):
            Solver.load(MM_TREE).new_game(feedback)


# --- seeds -----------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [str(2**70), str(2**64), "-1", "\u0663", "1e3", ""])
def test_a_seed_out_of_range_is_refused_before_any_work(tmp_path, value, capsys):
    """--seed 2**70 was a traceback after the build (the tree's JSON cannot hold it); negative
    seeds alias positive ones in Python's random. Refused by every command with --seed."""
    out = tmp_path / "t.json"
    for argv in (["build", "mastermind:2x2", "--strategy", "random-consistent", "-o", str(out)],
                 ["play", "mastermind:2x2", "--breaker"], ["compare", "mastermind:2x2"],
                 ["checkpoint", "verify", str(tmp_path / "none.json")]):
        with pytest.raises(SystemExit) as stop:
            cli.main([*argv, "--seed", value])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "argument --seed" in err and "2**64 - 1" in err
    assert not out.exists()


def test_a_seed_where_nothing_is_drawn_is_refused(tmp_path, capsys):
    """--seed was ignored silently with the exact objectives and the greedy strategies."""
    out = tmp_path / "t.json"
    for how in (["--objective", "total"], ["--strategy", "minimax"], []):
        assert cli.main(["build", "mastermind:2x2", *how, "--seed", "3", "-o", str(out)]) == 2
        assert "--seed is the seed of the random strategy" in capsys.readouterr().err
    assert not out.exists()


def test_the_largest_seed_builds_and_is_stored(tmp_path):
    out = tmp_path / "t.json"
    assert cli.main(["build", "mastermind:2x2", "--strategy", "random-consistent",
                     "--seed", str(2**64 - 1), "-o", str(out)]) == 0
    assert orjson.loads(out.read_bytes())["meta"]["seed"] == 2**64 - 1


# --- moo play --json: closed streams, a reader that goes away, signals ------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
@pytest.mark.parametrize("closed", ["<&-", ">&-"])
def test_a_closed_stream_is_one_line_and_status_2(closed):
    command = f'exec "$0" -m optimizer play {MM_TREE} --json {closed}'
    proc = subprocess.run(["sh", "-c", command, sys.executable], cwd=ROOT, capture_output=True,
                          timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "is closed" in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_reader_that_goes_away_ends_the_session_with_status_1():
    """The driver closes its end of our output mid-session: status 1 and nothing on standard
    error, not a death by SIGPIPE (-13) or a traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "play", str(MM_TREE), "--json"],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert json.loads(proc.stdout.readline())["guess"] == "0012"
        proc.stdout.close()
        proc.stdin.write(b"1 1\n1 0\n")
        proc.stdin.close()
        status = proc.wait(timeout=60)
    finally:
        proc.kill()
    assert status == 1
    assert proc.stderr.read() == b""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_output_closed_early_is_status_141_and_quiet():
    """The README's status for `moo info GAME | head`: as cat's, 141 (128 + SIGPIPE), and no
    traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "verify", str(MM_TREE)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # long before the interpreter starts and writes its first line
    assert proc.wait(timeout=60) == -signal.SIGPIPE  # a shell shows it as 128 + 13 = 141
    assert proc.stderr.read() == b""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_ends_the_json_session_with_a_json_line_and_status_3(sig):
    """SIGTERM wrote "Interrupted: game over." into the JSON stream and exited 130; the README's
    status for a signal is 3, and the stream stays one JSON object a line."""
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "play", str(MM_TREE), "--json"],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdout.readline()
        proc.stdin.write(b"1 1\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["guesses"] == 1
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    lines = json_lines(out)
    assert len(lines) == 1 and lines[0]["stopped"] == sig.name
    assert f"stopped by {sig.name}" in lines[0]["error"]
    assert proc.returncode == 3
    assert b"Traceback" not in err


# --- trees whose games make no progress --------------------------------------------------------
def _repeating(small_tree_file: Path, depth: int) -> str:
    """The tree with the first branch of its root replaced by ``depth`` nodes guessing the
    root's code again, each answered with that branch's feedback: a game that goes on without
    progress (JSON written by hand: past any nesting a JSON writer allows)."""
    data = orjson.loads(small_tree_file.read_bytes())
    root = data["root"]
    feedback, child = next(iter(root["next"].items()))
    step = f'{{"guess":{json.dumps(root["guess"])},"next":{{{json.dumps(feedback)}:'
    chain = step * depth + orjson.dumps(child).decode() + "}}" * depth
    root["next"][feedback] = "@CHAIN@"
    return orjson.dumps(data).decode().replace('"@CHAIN@"', chain)


@pytest.mark.parametrize("depth", [1, 300])
def test_a_tree_repeating_a_guess_is_refused_at_load(small_tree_file, tmp_path, depth):
    """Solver.load took a file whose games repeat one guess hundreds of times (the same
    feedback each time: no progress); now one TreeError naming the place."""
    path = tmp_path / "repeating.json"
    path.write_text(_repeating(small_tree_file, depth))
    read_tree(path)  # the structure itself is valid: the reader takes it, the player does not
    with pytest.raises(TreeError, match=r"root\.next\['[0-9 ]+'\]: guesses [0-9]+ again"):
        Solver.load(path)


@pytest.mark.parametrize("depth", [1, 300])
def test_verify_names_a_repeated_guess_as_a_defect(small_tree_file, tmp_path, depth):
    """The player refuses such a tree, so verify must too (it passed a finite one as OK)."""
    path = tmp_path / "repeating.json"
    path.write_text(_repeating(small_tree_file, depth))
    defects = verify(read_tree(path)).defects
    assert defects and all("again" in d for d in defects)
    proc = moo("verify", str(path))
    assert proc.returncode == 1 and b"again" in proc.stdout


def test_the_protocol_refuses_a_repeating_tree(small_tree_file, tmp_path):
    path = tmp_path / "repeating.json"
    path.write_text(_repeating(small_tree_file, 50))
    proc = moo("play", str(path), "--json", stdin=subprocess.DEVNULL)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b""
    assert len(err.splitlines()) == 1 and "again" in err


def test_committed_trees_load_as_solvers():
    for name in ("bulls-cows-4x10.height.any.json", "mastermind-4x10.total.any.json",
                 "battleship-4x8x3.total.any.json"):
        Solver.load(ROOT / "trees" / name)


# --- moo page: what it prints ------------------------------------------------------------------
def test_page_prints_the_objective_escaped(small_tree_file, tmp_path, capsys):
    data = orjson.loads(small_tree_file.read_bytes())
    data["objective"] = "first-consistent\x1b[2J\x1b]0;owned\x07"
    path = tmp_path / "escape.json"
    path.write_bytes(orjson.dumps(data))
    # no strategy has that name: refused as a defect, the objective shown escaped
    assert cli.main(["page", str(path), "-o", str(tmp_path / "page.html")]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J" in out and "is neither an exact objective" in out


# --- checkpoint verify --sample ----------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "-1", "1.5", "\u0663", ""])
def test_sample_must_be_a_positive_whole_number(value, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["checkpoint", "verify", "none.json", "--sample", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --sample" in err and "at least 1" in err and "invalid" not in err


def test_a_checkpoint_without_claims_is_not_said_to_hold(tmp_path, capsys):
    path = tmp_path / "empty.json"
    path.write_text('{"format": "moo-checkpoint", "version": 2, "game": "mastermind:2x2", '
                    '"guesses": "any", "height": {"refuted": {}}, "total": {}}')
    assert cli.main(["checkpoint", "verify", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "no claims to check" in out and "holds" not in out


def test_a_checkpoint_without_claims_still_refuses_a_bad_scheduler(tmp_path, capsys):
    """The early return for a file with no claims came before the engine's checks."""
    path = tmp_path / "empty.json"
    path.write_text('{"format": "moo-checkpoint", "version": 2, "game": "mastermind:2x2", '
                    '"guesses": "any", "height": {"refuted": {}}, "total": {}}')
    assert cli.main(["checkpoint", "verify", str(path), "--scheduler", "foo"]) == 2
    assert "names no host and port" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:1"]])
def test_a_greedy_build_refuses_engine_options(tmp_path, capsys, extra):
    """They were silently ignored: a greedy tree is built in this process."""
    argv = ["build", "mastermind:2x2", "--strategy", "minimax", "-o", str(tmp_path / "t.json")]
    assert cli.main(argv + extra) == 2
    assert "apply to exact objectives" in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


# --- game specs --------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["moo:", "bulls-cows:", "mastermind:", "battleship:",
                                  "Mastermind: "])
def test_a_colon_with_nothing_after_it_is_refused(spec):
    with pytest.raises(GameError, match="nothing after the colon"):
        parse_game(spec)


def test_the_command_line_reads_specs_leniently():
    """Case, spaces and leading zeros on the command line: the spec is read as the game's own."""
    assert parse_game(" MASTERMIND:04X06 ").spec == "mastermind:4x6"
    assert parse_game("moo").spec == "moo:10,11,12"
    assert parse_game("bullets-maggots").spec == "mastermind:4x10"


@pytest.mark.parametrize("written", [" MASTERMIND:04X06 ", "mastermind:04x06", "Mastermind:4x6",
                                     "mastermind", "mastermind:4x6 "])
def test_a_tree_file_holds_the_canonical_spec(written):
    data = orjson.loads(MM_TREE.read_bytes())
    assert tree_from_json(data, "tree", beside=MM_TREE.parent).game.spec == "mastermind:4x6"
    data["game"] = written
    with pytest.raises(TreeError, match="write 'mastermind:4x6'"):
        tree_from_json(data, "tree", beside=MM_TREE.parent)


# --- prove: a checkpoint fact found false is said and corrected -------------------------------
def test_a_false_fact_is_said_and_corrected(tmp_path, capsys):
    """A class claimed to cost exactly 545 (it costs 539) and claimed refuted within 5 guesses
    (a tree of height 5 opens with it): the run says each, naming the file, and the file holds
    what the run proved."""
    from optimizer.cli.prove import prove_deepest

    path = tmp_path / "false.json"
    classes = {"0001": {"exact": 695}, "0011": {"exact": 608}, "0012": {"exact": 545},
               "0123": {"exact": 583}}
    path.write_bytes(orjson.dumps({
        "format": "moo-checkpoint", "version": 2, "game": "mastermind:4x6", "guesses": "any",
        "height": {"refuted": {"0012": {"height": 5}}}, "total": {},
        "deep": {"5": {"classes": classes}}}))
    result = prove_deepest("mastermind:4x6", 5, 539, progress=False, checkpoint=str(path),
                           workers=1)
    assert result["holds"]
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "is false" in line]
    assert len(said) == 2 and all(str(path) in line for line in said)
    assert "'0012 within 5: least deep exactly 545'" in said[0]
    assert "'0012 refuted within 5 guesses'" in said[1]
    assert len(result["checkpoint"]["corrected"]) == 2
    fixed = orjson.loads(path.read_bytes())
    assert fixed["deep"]["5"]["classes"]["0012"] == {"exact": 539}
    assert "0012" not in fixed["height"]["refuted"]


def test_facts_that_the_tree_in_hand_disproves_are_corrected_before_the_search(tmp_path,
                                                                              capsys):
    """Every class claimed refuted within 5, or to cost at least 1000: the tree the run starts
    from (height 5; total 73) opens with one of them. That fact is said, removed and searched
    (it was taken as true: "PROVEN, resting on 13 checkpoint facts")."""
    from optimizer.cli.prove import prove_height
    from optimizer.formats.checkpoint import Checkpoint
    from optimizer.search.build import build
    from optimizer.search.request import Request

    game, path = parse_game("battleship:3x3x2"), tmp_path / "height.json"
    classes = [game.format_code(g) for g in game.first_guesses()]
    path.write_bytes(orjson.dumps({
        "format": "moo-checkpoint", "version": 2, "game": game.spec, "guesses": "any",
        "height": {"refuted": {c: {"height": 5} for c in classes}}, "total": {}}))
    result = prove_height(game.spec, 5, progress=False, checkpoint=str(path), workers=1)
    assert result["holds"] and result["checkpoint_facts"] == len(classes) - 1
    [said] = result["checkpoint"]["corrected"]
    wrong = said.split("'")[1].split()[:2]
    assert said == (f"the fact '{' '.join(wrong)} refuted within 5 guesses' is false: this run "
                    "found a tree of height 5 or less opening with it; corrected in the file")
    fixed = Checkpoint.read(path)
    assert fixed.refuted_height(game.parse_code(" ".join(wrong))) == 4  # searched, and kept
    assert capsys.readouterr().err.count("is false") == 1
    game, path = parse_game("mastermind:3x3"), tmp_path / "total.json"
    classes = [game.format_code(g) for g in game.first_guesses()]
    path.write_bytes(orjson.dumps({
        "format": "moo-checkpoint", "version": 2, "game": game.spec, "guesses": "any",
        "height": {"refuted": {}},
        "total": {"27": {"classes": {c: {"at_least": 1000} for c in classes}}}}))
    tree = build(Request(game, objective="total", checkpoint=str(path), workers=1))
    assert tree.replayed.total == 73 and tree.optimal  # the class searched: 73 is the least
    err = capsys.readouterr().err
    assert err.count("is false") == 1 and "within 27: least total at least 1000' is false: " \
        "this run found a tree of total " in err


def test_a_bound_above_the_value_found_is_corrected(tmp_path, capsys):
    """The Checkpoint itself: 'at least 7000' for a class this run solves at 6080."""
    from optimizer.formats.checkpoint import Checkpoint

    game = parse_game("mastermind:4x6")
    path = tmp_path / "bound.json"
    log = Checkpoint(path, game, "any")
    guess = game.parse_code("0011")
    log.record_total("total", guess, 6, 7000, exact=False)
    assert log.corrections == []
    log.record_total("total", guess, 6, 6080, exact=True)
    assert len(log.corrections) == 1 and "at least 7000" in log.corrections[0]
    assert Checkpoint.read(path).totals[("total", 6)].classes[guess] == {"exact": 6080}
    log.record_total("total", guess, 6, 6500, exact=False)  # proves more than exact 6080 says
    assert len(log.corrections) == 2
    assert Checkpoint.read(path).totals[("total", 6)].classes[guess] == {"at_least": 6500}
    log.record_total("total", guess, 6, 6400, exact=False)  # a weaker true bound: kept as is
    assert len(log.corrections) == 2
    assert str(path) in capsys.readouterr().err


def test_a_signal_after_the_search_keeps_the_tree(tmp_path, monkeypatch, capsys):
    """SIGTERM while the finished search's tree is checked and written: the tree is still
    written whole (it once ended the command with status 130 and no file)."""
    import os
    import signal

    from optimizer.search.objectives import Search

    real = Search._tree

    def signalled(self, *args, **kw):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs at once, in this thread
        return real(self, *args, **kw)

    monkeypatch.setattr(Search, "_tree", signalled)
    old = signal.signal(signal.SIGTERM, cli._interrupted)
    out = tmp_path / "t.json"
    options = ["--objective", "total", "--quiet", "-o", str(out)]
    try:
        status = cli.main(["build", "mastermind:2x3", *options, "--workers", "1"])
        assert status == 0 and out.exists()
        assert "SIGTERM came after the search had finished" in capsys.readouterr().err
        out.unlink()  # stopped first by the time limit: not said to have finished
        assert cli.main(["build", "bulls-cows", *options, "--time-limit", "0.5"]) == 3
        assert out.exists()
        assert "SIGTERM came after the search had stopped" in capsys.readouterr().err
    finally:
        signal.signal(signal.SIGTERM, old)


# --- a signal while the command line is imported ----------------------------------------------
STARTING = """
import builtins, os, signal
real = builtins.__import__
def importing(name, *args, **kwargs):
    if name == "numpy":  # the command line's imports are under way: its handlers are in place
        os.kill(os.getpid(), signal.SIGTERM)
    return real(name, *args, **kwargs)
builtins.__import__ = importing
import optimizer.cli
print("not reached")
"""


def test_a_signal_while_starting_is_status_130_and_one_line():
    """`kill` a third of a second after `moo build ...` started: the process died of the signal
    (143) without a word, where the README promises 130 for a search still setting up."""
    done = subprocess.run([sys.executable, "-c", STARTING], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 130 and "not reached" not in done.stdout
    assert done.stderr == "moo: interrupted while starting: nothing was done\n"


def test_a_signal_ignored_stays_ignored_while_starting():
    """Dask's workers start with SIGINT ignored and import the command line again as their
    main module: a Ctrl-C meant for the run then killed them (status 130)."""
    done = subprocess.run([sys.executable, "-c", STARTING.replace("SIGTERM", "SIGINT")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0 and "not reached" in done.stdout, done.stderr


def test_importing_the_command_line_keeps_the_program_s_handlers():
    code = ("import signal; before = signal.getsignal(signal.SIGTERM)\n"
            "import optimizer.cli\n"
            "assert signal.getsignal(signal.SIGTERM) is before, signal.getsignal(signal.SIGTERM)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
