"""Issue 12's guarantees outside the search: every output path checked before work starts, bad
options refused, `moo verify` strict about notation and claims, text from files made printable,
out of memory named as such. Each test fails on the code before the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import HalfWriter

from optimizer.cli import main
from optimizer.formats.tree_file import read_tree, write_tree
from optimizer.games import parse_game
from optimizer.tree import Tree, TreeError

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``moo ARGV``."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def load(path: Path) -> dict:
    return orjson.loads(path.read_bytes())


def save(data: dict, path: Path) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


def minimax_file(spec: str, folder: Path, minimax) -> Path:
    game = parse_game(spec)
    path = folder / f"{spec.replace(':', '-')}.json"
    write_tree(Tree(game, minimax(game), objective="minimax", guesses="any"), path)
    return path


@pytest.fixture
def mm_file(tmp_path, minimax) -> Path:
    """mastermind:2x3 by minimax: height 4, total 26 (the least total is 21)."""
    return minimax_file("mastermind:2x3", tmp_path, minimax)


@pytest.fixture
def bs_file(tmp_path, minimax) -> Path:
    """battleship:2x4x2 by minimax, first guess A1 D1."""
    return minimax_file("battleship:2x4x2", tmp_path, minimax)


# --- item 4: output paths checked before any work ---------------------------------------------


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot write in (root writes anywhere but in /sys)."""
    if os.geteuid() == 0:
        return Path("/sys")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    return folder


COMMANDS = {
    "build -o": ["build", "mastermind:2x3", "--objective", "height", "-o", "{}"],
    "build --checkpoint": ["build", "mastermind:2x3", "--objective", "height",
                           "--checkpoint", "{}", "-o", "{tmp}/ok.json"],
    "prove -o": ["prove", "mastermind:2x3", "--height", "3", "-o", "{}"],
    "prove --checkpoint": ["prove", "mastermind:2x3", "--height", "3", "--checkpoint", "{}"],
    "compare --plot": ["compare", "mastermind:2x3", "--plot", "{}"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("place,message", [
    ("folder", "is a folder, not a file name"),
    ("missing", "does not exist (make it first)"),
    ("unwritable", "cannot write in"),
])
def test_output_paths_are_checked_before_any_work(monkeypatch, capsys, tmp_path, command, place,
                                                  message):
    from optimizer.cli import build, compare, prove

    def work(args):
        raise AssertionError("the command started its work")

    for module in (build, compare, prove):
        monkeypatch.setattr(module, "run", work)
    target = {"folder": tmp_path, "missing": tmp_path / "no" / "such" / "x.json",
              "unwritable": _unwritable_folder(tmp_path) / "x.json"}[place]
    argv = [a.replace("{}", str(target)).replace("{tmp}", str(tmp_path))
            for a in COMMANDS[command]]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("moo: error: ") and message in err
    assert not (tmp_path / "no").exists()  # no folder is created


def test_no_folder_is_created_for_a_tree(tmp_path, minimax):
    game = parse_game("bulls-cows:2x3")
    with pytest.raises(FileNotFoundError):
        write_tree(Tree(game, minimax(game), objective="minimax"), tmp_path / "new" / "t.json")
    assert os.listdir(tmp_path) == []


def test_an_os_error_at_write_time_is_one_line(monkeypatch, capsys, tmp_path):
    """A disk that fills up after the checks: one line naming the file, no traceback."""
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: HalfWriter(real_fdopen(fd, *a, **k)))
    target = tmp_path / "t.json"
    status, out, err = run(capsys, "build", "mastermind:2x3", "--strategy", "minimax",
                           "-o", str(target))
    assert status == 2
    assert err == f"moo: error: {target}: cannot write: No space left on device\n"
    assert os.listdir(tmp_path) == []


# --- item 7: --time-limit ---------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["build", "mastermind:2x3", "--objective", "total", "-o", "{}/t.json"],
    ["prove", "mastermind:2x3", "--height", "3"],
])
@pytest.mark.parametrize("limit", ["inf", "nan", "-5", "0", "-inf", "1e400"])
def test_time_limit_must_be_positive_and_finite(capsys, tmp_path, command, limit):
    argv = [a.replace("{}", str(tmp_path)) for a in command] + [f"--time-limit={limit}"]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert "--time-limit" in err and "not a positive, finite number of seconds" in err
    assert os.listdir(tmp_path) == []


# --- item 9: moo verify is strict about notation ----------------------------------------------


def _first_key(data: dict) -> str:
    return next(iter(data["root"]["next"]))


def _rekey(data: dict, new: str) -> None:
    nxt = data["root"]["next"]
    nxt[new] = nxt.pop(_first_key(data))


@pytest.mark.parametrize("edit,message", [
    (lambda d: _rekey(d, _first_key(d).replace(" ", ",")), "separated by single spaces"),
    (lambda d: _rekey(d, "zero 0 one 1"), "separated by single spaces"),
    (lambda d: _rekey(d, _first_key(d).replace(" ", "b") + "w"), "separated by single spaces"),
    (lambda d: _rekey(d, "0" + _first_key(d)), "not in the tree format's notation"),
    (lambda d: _rekey(d, _first_key(d) + " "), "separated by single spaces"),
    (lambda d: _rekey(d, "\uff10 \uff10"), "separated by single spaces"),
    (lambda d: d["root"].update(guess=" ".join(d["root"]["guess"])), "write '00'"),
    (lambda d: d["root"].update(guess="\uff10\uff10"), "is not a code"),
    (lambda d: d["root"].update(extra=1), "a node is"),
])
def test_verify_refuses_notation_the_format_forbids(mm_file, capsys, edit, message):
    data = load(mm_file)
    edit(data)
    status, out, err = run(capsys, "verify", str(save(data, mm_file)))
    assert status == 1
    assert "DEFECT" in out and "root" in out and message in out


@pytest.mark.parametrize("guess,message", [("D1 A1", "write 'A1 D1'"), ("a1 d1", "write 'A1 D1'"),
                                           ("A1  D1", "write 'A1 D1'")])
def test_verify_refuses_unsorted_or_lower_case_squares(bs_file, capsys, guess, message):
    data = load(bs_file)
    assert data["root"]["guess"] == "A1 D1"
    data["root"]["guess"] = guess
    status, out, err = run(capsys, "verify", str(save(data, bs_file)))
    assert status == 1 and "root.guess" in out and message in out


def test_a_huge_number_in_a_key_is_a_defect_with_its_place(mm_file, capsys):
    data = load(mm_file)
    _rekey(data, "1" + "0" * 5000 + " 0")
    status, out, err = run(capsys, "verify", str(save(data, mm_file)))
    assert status == 1 and err == ""
    assert "root.next['1000000" in out and "between 0 and 2" in out
    assert len(out) < 400


@pytest.mark.parametrize("find,replace,place", [
    (b'"root":', b'"root":{"guess":"22","next":{}},"root":', "the top level: the key 'root'"),
    (b'"next":{"1 0":', b'"next":{"1 0":{"guess":"22","next":{}},"1 0":',
     "root.next: the key '1 0'"),
    (b'"total":', b'"total":1,"total":', "stats: the key 'total'"),
    (b'"guess":"11"', b'"guess":"22","guess":"11"',
     "root.next['0 0'].next['1 0'].next['0 0']: the key 'guess'"),
])
def test_a_key_given_twice_is_a_defect_named_by_place(mm_file, capsys, find, replace, place):
    raw = mm_file.read_bytes()
    assert find in raw
    mm_file.write_bytes(raw.replace(find, replace, 1))
    with pytest.raises(TreeError, match="appears twice"):
        read_tree(mm_file)
    status, out, err = run(capsys, "verify", str(mm_file))
    assert status == 1
    assert place in out and "appears twice" in out


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(lower_bound=-1), "lower_bound: -1 is negative"),
    (lambda d: d.update(objective="total", lower_bound=27),
     "lower_bound: 27 claims that no tree has a total below it, but this tree's total is 26"),
    (lambda d: d.update(objective="height", lower_bound=5),
     "but this tree's height is 4"),
    (lambda d: d.update(objective="total", optimal=True, lower_bound=20),
     "stated together with \"optimal\": true"),
    (lambda d: d.update(objective="total@3"), "allows height 3, but the tree's height is 4"),
    (lambda d: d["stats"].update(total=26.0), "stats.total: 26.0 must be an integer"),
    (lambda d: d["stats"].update(height=True), "stats.height: True must be an integer"),
    (lambda d: d["stats"].update(secrets="9"), "stats.secrets: '9' must be an integer"),
    (lambda d: d["stats"]["histogram"].update({"1": 1.0}), "stats.histogram differs"),
])
def test_claims_that_contradict_the_replay_are_defects(mm_file, capsys, edit, message):
    data = load(mm_file)
    edit(data)
    status, out, err = run(capsys, "verify", str(save(data, mm_file)))
    assert status == 1
    assert message in out


def test_true_claims_pass(mm_file, capsys):
    data = load(mm_file)
    data.update(objective="total", lower_bound=21)  # the least total of mastermind:2x3
    status, out, err = run(capsys, "verify", str(save(data, mm_file)))
    assert status == 0, out


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(lower_bound=True), "'lower_bound' must be a whole number"),
    (lambda d: d.update(version=True), "version True is not supported"),
    (lambda d: d.update(objective=7), "'objective' must be a non-empty string"),
    (lambda d: d.pop("stats"), "missing key 'stats'"),
    (lambda d: d.update(meta=[1]), "'meta' must be an object"),
])
def test_values_of_the_wrong_kind_are_defects(mm_file, capsys, edit, message):
    data = load(mm_file)
    edit(data)
    status, out, err = run(capsys, "verify", str(save(data, mm_file)))
    assert status == 1 and message in out


@pytest.mark.parametrize("raw,message", [
    (b'{"format": NaN}', "NaN is not a JSON number"),
    (b'{"format": 1' + b"0" * 5000 + b"}", "a number of 5001 digits"),
    (b'{"format": 1e999}', "the number 1e999 is past the largest a double holds"),
    (b'{"format": -9223372036854775809}', "-9223372036854775809 is past the 64-bit range"),
    (b'\xff\xfe{}', "not UTF-8 text"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
])
def test_json_a_plain_reader_would_bend_is_refused(tmp_path, capsys, raw, message):
    path = tmp_path / "t.json"
    path.write_bytes(raw)
    status, out, err = run(capsys, "verify", str(path))
    assert status == 1 and message in out and "Traceback" not in out + err


# --- item 9: moo verify --recheck ---------------------------------------------------------------


@pytest.fixture(scope="module")
def optimal_total_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("recheck") / "mastermind-2x3.total.json"
    status = main(["build", "mastermind:2x3", "--objective", "total", "-o", str(path)])
    assert status == 0
    return path


def test_recheck_confirms_an_optimal_tree(optimal_total_file, capsys):
    status, out, err = run(capsys, "verify", str(optimal_total_file), "--recheck")
    assert status == 0
    assert "RECHECK OK: the exact search confirms the optimum total 21" in out
    assert "root parts" in err  # its search's bar (standard error is no terminal here)
    assert "not re-proved here" not in out
    status, out, err = run(capsys, "verify", str(optimal_total_file), "--recheck", "--quiet")
    assert status == 0 and "RECHECK OK" in out and err == ""
    status, out, err = run(capsys, "verify", str(optimal_total_file))  # the claim is the file's
    assert out.endswith("optimal (total): proven\n  (the file's claim, from the search that "
                        "wrote it: not re-proved here; --recheck re-proves it)\n")


def test_recheck_finds_a_false_optimality_claim(mm_file, capsys):
    data = load(mm_file)
    data.update(objective="total", optimal=True)  # minimax's 26 is not the least total, 21
    status, out, err = run(capsys, "verify", str(save(data, mm_file)), "--recheck")
    assert status == 1
    assert "optimal: true, but the exact search finds total 21 and this tree has 26" in out


def test_compare_holds_an_optimality_claim_against_its_table(mm_file, capsys):
    """A stored tree claiming the least total with 26 where a tree beside it (a strategy built
    now, or another stored tree) has less: shown as a defect, not "(optimal)"."""
    data = load(mm_file)
    data.update(objective="total", optimal=True)
    save(data, mm_file)
    folder = str(mm_file.parent)
    status, out, err = run(capsys, "compare", "mastermind:2x3", "--trees", folder,
                           "--guesses", "any")
    line = next(line for line in out.splitlines() if mm_file.name in line)
    assert "(DEFECTS: optimal: true, but " in line and "against this tree's 26)" in line
    assert "(optimal)" not in out and status == 1  # a defect found, as verify's
    status, out, err = run(capsys, "compare", "mastermind:2x3", "--trees", folder, "--stored")
    assert "(optimal)" in out and "DEFECTS" not in out  # alone, nothing refutes it
    assert status == 0
    assert main(["build", "mastermind:2x3", "--objective", "total", "-o",
                 str(mm_file.parent / "exact.json")]) == 0
    status, out, err = run(capsys, "compare", "mastermind:2x3", "--trees", folder, "--stored")
    assert "(DEFECTS: optimal: true, but total `exact.json` (any guesses) has total 21" in out
    assert status == 1
    (mm_file.parent / "exact.json").unlink()
    (mm_file.parent / "folder.json").mkdir()  # a file that cannot be read, any game's: said
    status, out, err = run(capsys, "compare", "mastermind:2x3", "--trees", folder, "--stored")
    assert err == "skipped folder.json: it is a folder, not a regular file\n" and status == 0


def test_recheck_holds_an_opening_claim(mm_file, tmp_path, capsys):
    """A --first tree claims its value among the trees of its opening (meta.opening): the
    recheck searches that opening too (it said OK to any such claim)."""
    data = load(mm_file)
    first = data["root"]["guess"]
    data.update(objective="total")
    data["meta"] = {"opening": {"guess": first, "optimal": True}}
    status, out, err = run(capsys, "verify", str(save(data, mm_file)), "--recheck", "--quiet")
    assert status == 1
    assert f"meta.opening: optimal among trees opening with {first}, but the exact search of " \
           "that opening finds total " in out and "and this tree has 26" in out
    path = tmp_path / "first.json"
    assert main(["build", "mastermind:2x3", "--objective", "total", "--first", first, "-o",
                 str(path), "--quiet"]) == 0
    status, out, err = run(capsys, "verify", str(path), "--recheck", "--quiet")
    assert status == 0 and f"; opening with {first}, the exact search finds total " in out


def test_recheck_of_an_opening_whose_search_did_not_finish_is_an_error(tmp_path, capsys,
                                                                       monkeypatch):
    """A signal during the opening's search: its stopped tree is no optimum to hold the claim
    against (it once made a false DEFECT)."""
    import optimizer.search.build as building

    path = tmp_path / "first.json"
    assert main(["build", "mastermind:2x3", "--objective", "total", "--first", "01", "-o",
                 str(path), "--quiet"]) == 0
    real = building.build

    def stopped(request, *args, **kwargs):
        tree = real(request, *args, **kwargs)
        if request.first is not None:
            tree.meta["opening"]["optimal"] = False
        return tree

    monkeypatch.setattr(building, "build", stopped)
    status, out, err = run(capsys, "verify", str(path), "--recheck", "--quiet")
    assert status == 2 and "the exact search of the opening 01 did not finish" in err


def test_recheck_finds_a_false_lower_bound(mm_file, capsys):
    data = load(mm_file)
    data.update(objective="total", lower_bound=23)  # below the tree's 26, above the optimum 21
    path = save(data, mm_file)
    assert run(capsys, "verify", str(path))[0] == 0  # the tree alone cannot refute it
    status, out, err = run(capsys, "verify", str(path), "--recheck", "--json")
    assert status == 1
    report = orjson.loads(out)
    assert report["recheck"]["optimum"] == [21]
    assert any("lower_bound: 23 is above the optimum total 21" in d for d in report["defects"])


def test_recheck_says_when_a_tree_is_in_fact_optimal(optimal_total_file, tmp_path, capsys):
    data = load(optimal_total_file)
    data["optimal"] = False
    status, out, err = run(capsys, "verify", str(save(data, tmp_path / "t.json")), "--recheck")
    assert status == 0 and "the tree is in fact optimal" in out


@pytest.mark.parametrize("objective,message", [
    ("minimax", "is not an exact objective"),
])
def test_recheck_refuses_what_it_cannot_do(mm_file, capsys, objective, message):
    data = load(mm_file)
    data["objective"] = objective
    status, out, err = run(capsys, "verify", str(save(data, mm_file)), "--recheck")
    assert status == 2 and message in err and out == ""


def test_recheck_refuses_large_games(bc_tree_file, capsys, tmp_path):
    data = load(bc_tree_file)
    data["objective"] = "total"
    status, out, err = run(capsys, "verify", str(save(data, tmp_path / "t.json")), "--recheck")
    assert status == 2
    assert "bulls-cows:4x10 has 5040 codes" in err and "at most 1296 codes" in err
    status, out, err = run(capsys, "verify", str(ROOT / "trees/bulls-cows-4x10.height.any.json"))
    assert status == 0 and out.endswith(
        "optimal (height): proven\n  (the file's claim, from the search that wrote it: not "
        "re-proved here; `moo build bulls-cows:4x10 --objective height` re-proves it)\n")
    opening = ROOT / "trees/wordle.total.any.first-salet.json"  # its claim says whose it is
    status, out, err = run(capsys, "verify", str(opening))
    assert status == 0 and "claimed by the search that wrote it" in out
    assert "not re-proved here" not in out


# --- item 10: text from a file reaches the terminal escaped ------------------------------------

ESCAPE = "\x1b]0;pwned\x07\x1b[31mred\u202e"


def test_control_characters_from_a_file_are_escaped(mm_file, capsys, monkeypatch, tmp_path):
    data = load(mm_file)
    data["objective"] = ESCAPE
    path = save(data, tmp_path / "mastermind-2x3.json")
    outputs = [run(capsys, "verify", str(path))]
    outputs.append(run(capsys, "play", str(path)))  # no input: shows the strategy, then ends
    outputs.append(run(capsys, "compare", "mastermind:2x3", "--trees", str(tmp_path),
                       "--guesses", "any"))
    data["game"] = "mastermind:\x1b[2J"
    outputs.append(run(capsys, "verify", str(save(data, path))))
    for _status, out, err in outputs:
        assert "\x1b" not in out + err and "\u202e" not in out + err and "\x07" not in out + err
    assert "\\x1b[31mred\\u202e" in outputs[0][1]
    assert "\\x1b[31mred" in outputs[1][1] and "\\x1b[31mred" in outputs[2][1]
    assert "\\x1b[2j" in outputs[3][1].lower()


# --- item 11: out of memory is named ----------------------------------------------------------

OOM = """
import resource, sys
from optimizer.cli import main
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
limit = vm() + 48 * 2**20  # 48 MB more than the interpreter and its imports take
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.exit(main(["verify", sys.argv[1]]))
"""


def test_a_valid_tree_too_large_for_the_memory_is_out_of_memory(mm_file, tmp_path):
    """A valid tree file (its meta padded with 600000 small objects, 4.8 MB) read under a memory
    cap that cannot hold it: 'out of memory', exit status 2, no traceback."""
    raw = mm_file.read_bytes()
    assert raw.endswith(b"}")
    padding = b'{"padding":[' + b",".join([b'{"a":1}'] * 600_000) + b"]}"
    big = tmp_path / "big.json"
    big.write_bytes(raw[:-1] + b',"meta":' + padding + b"}")
    assert main(["verify", str(big)]) == 0  # valid, without the cap
    done = subprocess.run([sys.executable, "-c", OOM, str(big)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "out of memory" in done.stderr and "not valid JSON" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


# --- what a tree not proven optimal claims (issue 12: a height,total file's lower_bound is its
# height, and was shown next to its total) ------------------------------------------------------
@pytest.mark.parametrize("objective,lower_bound,meta,note", [
    ("height,total", 6, {"height_search": {"optimal": True}, "total_lower_bound": 19951},
     "height = 6, total >= 19951"),
    ("height,total", 6, {}, "height >= 6"),
    ("total", 48869, {"total_search": {"optimal": False}}, "total >= 48869"),
    ("height,deepest", 7, {"height_search": {"optimal": True}, "deepest_lower_bound": 41},
     "height = 7, deepest >= 41"),
    ("minimax", 5, {}, ""),
])
def test_bounds_are_named_by_what_they_bound(objective, lower_bound, meta, note):
    from types import SimpleNamespace

    from optimizer.objective import bound_note

    tree = SimpleNamespace(objective=objective, lower_bound=lower_bound, meta=meta)
    assert bound_note(tree) == note


def test_the_report_gives_each_gap_against_its_own_bound(mm_file):
    from optimizer.cli.compare import gaps, row_of

    data = orjson.loads(Path(mm_file).read_bytes())
    data.update(objective="height,total", optimal=False, lower_bound=4)
    data["meta"] = {"height_search": {"optimal": True}, "total_lower_bound": 20}
    tree = read_tree_bytes(orjson.dumps(data))
    row = row_of(tree, "height,total", None, source="x.json")
    assert row.note == "height = 4, total >= 20"
    assert gaps([row]) == ["`x.json`: best total 26, proven total >= 20, gap 30.0%"]


def read_tree_bytes(raw: bytes) -> Tree:
    from optimizer.formats.strict_json import loads
    from optimizer.formats.tree_file import tree_from_json

    return tree_from_json(loads(raw), "tree", beside=Path("."))


@pytest.mark.parametrize("options,said", [
    (["--strategy", "entropy", "--improve", "3"], "apply to exact objectives"),
    (["--objective", "height", "--lookahead", "1"], "not to height alone"),
    (["--objective", "total", "--lookahead", "-1"], "not a whole number of levels"),
    (["--objective", "total", "--lookahead", "two"], "not a whole number of levels"),
    (["--objective", "total", "--workers", "0"], "'0': the number of workers must be at least 1"),
    (["--objective", "total", "--improve", "0"], "not a positive, finite number of seconds"),
])
def test_lookahead_and_improve_are_checked(capsys, tmp_path, options, said):
    status, out, err = run(capsys, "build", "mastermind:2x3", *options, "-o",
                           str(tmp_path / "t.json"))
    assert status == 2 and said in err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("value,said", [
    ("0", "'0': the number of guesses must be at least 1"),
    ("-1", "'-1' is not a whole number of guesses (at least 1"),
    ("9" * 20, "too large a number of guesses (at most 18 digits)"),  # said "at least 0"
])
def test_prove_height_out_of_range_is_named(capsys, value, said):
    status, out, err = run(capsys, "prove", "mastermind:2x3", "--height", value)
    assert status == 2 and said in err and err.count("\n") == 1


def test_a_signal_inside_a_gc_callback_is_not_lost(unraisable_hook):
    """Python swallows an exception raised in a gc callback (Dask's scheduler installs one in
    the command's process): a signal landing there is delivered again, not lost."""
    import gc
    import signal
    import sys
    import time

    from optimizer.cli import app as cli

    landed = []

    def callback(phase, info):
        if phase == "start" and not landed:
            landed.append(True)
            cli._interrupted(signal.SIGINT, sys._getframe())  # as if the signal came now

    before = signal.signal(signal.SIGINT, cli._interrupted)
    gc.callbacks.append(callback)
    try:
        with pytest.raises(KeyboardInterrupt):
            gc.collect()
            time.sleep(5)
    finally:
        gc.callbacks.remove(callback)
        signal.signal(signal.SIGINT, before)
    assert landed


def test_a_signal_inside_a_finalizer_is_not_lost(unraisable_hook):
    """Python swallows an exception raised in ``__del__`` too (llvmlite frees compiled modules
    in finalizers; a hang-up landing there once let a run finish as if never stopped): the
    signal is delivered again, not lost."""
    import signal
    import sys
    import time

    from optimizer.cli import app as cli

    landed = []

    class Freed:
        def __del__(self):
            landed.append(True)
            cli._interrupted(signal.SIGINT, sys._getframe())  # as if the signal came now

    before = signal.signal(signal.SIGINT, cli._interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            Freed()
            time.sleep(5)
    finally:
        signal.signal(signal.SIGINT, before)
    assert landed


def test_a_signal_inside_a_weakref_callback_is_not_lost(unraisable_hook):
    """A weakref callback (``weakref.finalize``, which numba and Dask use) swallows an exception
    as well: a signal landing while the collector runs one is delivered again. The gc-callback
    test above failed now and then in a full run so: its signal came back while gc.collect()
    ran other tests' finalizers."""
    import signal
    import sys
    import time
    import weakref

    from optimizer.cli import app as cli

    landed = []

    class Owner:
        pass

    def finalizer():
        landed.append(True)
        cli._interrupted(signal.SIGINT, sys._getframe())  # as if the signal came now

    owner = Owner()
    weakref.finalize(owner, finalizer)
    before = signal.signal(signal.SIGINT, cli._interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            del owner
            time.sleep(5)
    finally:
        signal.signal(signal.SIGINT, before)
    assert landed


def test_other_unraisable_exceptions_still_reach_the_hook_before(unraisable_hook, monkeypatch):
    """The hook that re-sends swallowed interruptions passes every other swallowed exception on
    (pytest's, or Python's printing), and an interruption too once the command's ``main`` has
    ended: exit handlers run then, and a signal sent again would cut each of them short."""
    import signal
    import sys
    import types

    from optimizer.cli import app as cli

    seen = []
    sys.unraisablehook = seen.append
    with pytest.raises(KeyboardInterrupt) as caught:
        cli._interrupted(signal.SIGINT, None)
    assert sys.unraisablehook is cli._redeliver
    error = ValueError("not an interruption")
    sys.unraisablehook(types.SimpleNamespace(exc_type=ValueError, exc_value=error))
    monkeypatch.setattr(cli, "_ENDED", [True])
    sys.unraisablehook(types.SimpleNamespace(exc_type=KeyboardInterrupt,
                                             exc_value=caught.value))
    assert [u.exc_value for u in seen] == [error, caught.value]
    sent = []  # a re-send already timed when main ended is dropped too
    monkeypatch.setattr(cli.os, "kill", lambda *args: sent.append(args))
    cli._send_again(signal.SIGINT)
    assert sent == []


def test_the_kernel_cache_is_kept_per_version_of_every_kernel_source(tmp_path):
    """numba's cache checks only the file defining a kernel, yet a kernel's machine code holds
    the kernels it calls from other files: each version of the sources gets its own folder, so a
    change to one file never runs beside stale code compiled from the old one."""
    import shutil

    import numba

    import optimizer.kernels as kernels

    here = Path(kernels.__file__).parent
    copy = tmp_path / "kernels"
    copy.mkdir()
    for source in here.glob("*.py"):
        shutil.copy(source, copy / source.name)
    assert kernels.cache_folder(copy).name == kernels.cache_folder().name
    (copy / "partition.py").write_text((copy / "partition.py").read_text() + "\n# changed\n")
    assert kernels.cache_folder(copy).name != kernels.cache_folder().name
    if not os.environ.get("NUMBA_CACHE_DIR"):
        assert numba.config.CACHE_DIR == str(kernels.cache_folder())


def test_stale_kernel_caches_are_pruned_and_live_ones_kept(tmp_path):
    """Folders of other kernel versions go once untouched for STALE_DAYS; this version's two
    folders (checked and not) and recent folders of other versions stay."""
    import time

    import optimizer.kernels as kernels

    cache = tmp_path / "__pycache__"
    names = ["numba-aaaa", "numba-aaaa-boundscheck", "numba-old", "numba-old-boundscheck",
             "numba-recent", "other"]
    for name in names:
        (cache / name).mkdir(parents=True)
        (cache / name / "x.nbi").write_bytes(b"")
    old = time.time() - (kernels.STALE_DAYS + 1) * 86400
    for name in ("numba-aaaa", "numba-aaaa-boundscheck", "numba-old", "numba-old-boundscheck",
                 "other"):
        os.utime(cache / name, (old, old))
    removed = kernels.prune(cache / "numba-aaaa")
    assert sorted(p.name for p in removed) == ["numba-old", "numba-old-boundscheck"]
    assert sorted(p.name for p in cache.iterdir()) == ["numba-aaaa", "numba-aaaa-boundscheck",
                                                        "numba-recent", "other"]
