"""Commands pay only for what they use: those that do not search load no numba, no kernel and
no cluster; ``moo info`` computes its facts by numpy alone, equal to what the kernels compute;
a search's tree is replayed once, and that replay is what the file's figures come from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from optimizer.cli import main
from optimizer.games import DEFAULT_GAMES, parse_game

ROOT = Path(__file__).resolve().parents[1]
TREES = ROOT / "trees"
MM_TOTAL = TREES / "mastermind-4x6.total.any.json"

# A command's run in a fresh process, then the heavy modules it loaded.
_PROBE = (
    "import sys\n"
    "from optimizer.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "heavy = ('numba', 'llvmlite', 'dask', 'distributed')\n"
    "print(status, sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
    "                     or m.startswith('optimizer.kernels')))\n"
)


@pytest.mark.parametrize("argv", [
    ["info", "mastermind"],
    ["info", "battleship"],
    ["verify", str(MM_TOTAL)],
    ["verify", str(TREES / "mastermind-4x6.height+deepest.any.json")],  # a deepest claim
    ["play", str(MM_TOTAL), "--secret", "1234"],
    ["page", str(MM_TOTAL), "-o", "{tmp}/page.html"],
    ["compare", "mastermind", "--stored", "--trees", str(TREES)],
    ["checkpoint", "show", str(TREES / "battleship-4x8x3.checkpoint.json")],  # deep, deepest
], ids=lambda argv: " ".join(argv[:2]) + (" stored" if "--stored" in argv else ""))
def test_commands_that_do_not_search_load_no_kernel(argv, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 []"


SMALL = ("mastermind:3x4", "bulls-cows:3x5", "moo:3,4,5", "moo:4,4,5,6", "battleship:2x4x2",
         "battleship:3x3x2", "mastermind:5x3", "moo:5,5,7,7")


@pytest.mark.slow
@pytest.mark.parametrize("spec", DEFAULT_GAMES + SMALL)
def test_info_prints_what_the_matrix_and_the_kernels_give(spec, capsys):
    """The numbers ``moo info`` prints, computed without the matrix, equal the old way's: the
    distinct values of the whole feedback matrix and the kernel's root classes."""
    from optimizer.search.solver import NodeSolver

    assert main(["info", spec]) == 0
    lines = _fields(capsys.readouterr().out)
    game = parse_game(spec)
    values = np.unique(game.feedback_matrix())
    assert lines["feedback classes"].strip() == (
        f"{len(values)}: " + ", ".join(game.format_feedback(int(v)) for v in values))
    kernel = NodeSolver(game, "any", table_bits=10)
    classes = kernel.representatives(kernel.all_codes, [])  # the kernel's one guess per orbit
    assert int(lines["first-guess classes"]) == len(classes)
    assert np.array_equal(game.first_guesses(), classes)  # the very codes, not just how many
    assert lines["codes"].strip().startswith(f"{game.n_codes} (")


def _fields(out: str) -> dict[str, str]:
    """``KEY: VALUE`` lines, an indented line going on the value before it."""
    fields: dict[str, str] = {}
    key = ""
    for line in out.splitlines():
        if line.startswith(" "):
            fields[key] += " " + line.strip()
        else:
            key, value = line.split(":", 1)
            fields[key] = value
    return fields


def test_info_wraps_a_long_list_of_feedback_classes(capsys):
    assert main(["info", "wordle"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines() if "0 0" in line) <= 100
    values = _fields(out)["feedback classes"].split(": ", 1)[1].split(", ")
    assert len(values) == 238 and values[0] == "0 0 0 0 0" and values[-1] == "2 2 2 2 2"


@pytest.mark.parametrize("spec", ["mastermind:4x6", "moo:4,4,5,6", "battleship:4x8x3",
                                  "battleship:3x5x2", "bulls-cows:4x7"])
def test_feedback_rows_are_the_matrix_rows(spec):
    game = parse_game(spec)
    rows = np.random.default_rng(3).choice(game.n_codes, 40, replace=False)
    assert np.array_equal(game.feedback_rows(rows), game.feedback_matrix()[rows])


@pytest.mark.parametrize("spec", ["battleship:4x8x3", "battleship:2x4x2", "battleship:9x9x2",
                                  "battleship:3x5x5", "battleship:1x5x1"])
def test_battleship_matrix_equals_the_kernel(spec):
    """The board's matrix is built by numpy (0.04 s, no parallel kernel to load): entry for
    entry the kernel's."""
    from optimizer.kernels.feedback import battleship_feedback_matrix

    game = parse_game(spec)
    expected = battleship_feedback_matrix(game.codes, game.distance, game.base)
    assert np.array_equal(game.feedback_matrix(), expected)


def test_a_built_tree_is_replayed_once_before_it_is_written(tmp_path, monkeypatch, capsys):
    """The search's tree is replayed (and checked) once; the file's figures are that replay's,
    and they are the tree's true figures."""
    import optimizer.formats.tree_file as tree_file
    import optimizer.tree as tree_module

    calls = []
    real = tree_module.replay

    def counted(tree, *args, **kwargs):
        calls.append(tree.root)
        return real(tree, *args, **kwargs)

    monkeypatch.setattr(tree_module, "replay", counted)
    monkeypatch.setattr(tree_file, "replay", counted)
    out = tmp_path / "t.json"
    assert main(["build", "mastermind:3x4", "--objective", "total", "--quiet",
                 "-o", str(out)]) == 0
    written = tree_file.read_tree(out)
    assert len(calls) == 1
    assert written.stats == real(written).as_json()
    assert "optimal" in capsys.readouterr().out


def test_a_defective_replay_is_not_written(tmp_path):
    """A kept replay stands for the tree only when it found no defect: otherwise writing the
    tree replays it anew."""
    from optimizer.formats.tree_file import read_tree, write_tree
    from optimizer.tree import Node, Replay, Tree

    game = parse_game("mastermind:2x2")
    tree = Tree(game, Node(0), "test")
    tree.replayed = Replay(secrets=99, height=9, total=999, histogram={9: 99}, defects=["x"])
    write_tree(tree, tmp_path / "t.json")
    assert read_tree(tmp_path / "t.json").stats["secrets"] == 1  # the true replay's


@pytest.mark.parametrize("argv,status,last", [
    (["info", "mastermind"], 0, "computed in:"),
    (["info", "no-such-game"], 2, ""),
    (["verify", str(MM_TOTAL)], 0, "  (the file's claim, from the search that wrote it: not "
                                   "re-proved here; --recheck re-proves it)"),
    (["compare", "mastermind", "--stored", "--trees", str(TREES)], 0, "| "),
])
def test_the_quick_exit_keeps_status_and_output(argv, status, last):
    """The entry point leaves without the interpreter's teardown: the exit status is main's,
    and every line reaches a pipe."""
    proc = subprocess.run([sys.executable, "-m", "optimizer", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == status, proc.stderr
    lines = proc.stdout.splitlines()
    assert (lines[-1].startswith(last) if last else not lines), proc.stdout
    assert ("moo: error:" in proc.stderr) == (status == 2)


@pytest.mark.parametrize("shape", [(1, 1), (3, 700), (777, 1300), (1024, 512)])
def test_blocked_transpose_is_the_transpose(shape):
    from optimizer.games.base import transposed

    matrix = np.random.default_rng(5).integers(0, 250, shape).astype(np.uint8)
    out = transposed(matrix, block=256)
    assert out.flags.c_contiguous and np.array_equal(out, matrix.T)


@pytest.mark.parametrize("spec", ["mastermind:4x6", "battleship:4x8x3", "moo:3,4,5"])
def test_dense_answers_renumber_the_ids_that_occur(spec):
    from optimizer.games.base import dense_answers

    game = parse_game(spec)
    matrix = game.feedback_matrix()
    dense, win, count = dense_answers(matrix, game.win)
    ids = np.unique(matrix)
    assert count == len(ids) and win == int(np.searchsorted(ids, game.win))
    assert np.array_equal(ids[dense], matrix)  # the same answers, numbered 0..count-1


def test_no_exit_handler_is_registered_before_the_entry_point():
    """cli._leave, registered first by the entry point, ends the process after every other
    exit handler: that holds only if none was registered while the command line was imported
    (multiprocessing's joins its children, weakref.finalize's removes temporary folders)."""
    code = ("import sys, weakref\n"
            "import optimizer.cli\n"
            "print(weakref.finalize._registered_with_atexit,\n"
            "      sorted(m for m in ('multiprocessing.util', 'logging', 'distributed')\n"
            "             if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.strip() == "False []", proc.stderr
