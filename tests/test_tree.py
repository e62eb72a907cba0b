"""The tree file format: round trips, verification of broken files, atomic writes, and the
published first-consistent baselines."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import HalfWriter

from optimizer.cli import main
from optimizer.formats.tree_file import read_tree, write_tree
from optimizer.games import parse_game, word_game
from optimizer.provenance import verify
from optimizer.tree import Node, Tree, TreeError, replay

ROOT = Path(__file__).resolve().parents[1]


def load(path: Path) -> dict:
    return orjson.loads(path.read_bytes())


def save(data: dict, path: Path) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


def moo_verify(path: Path, capsys, *extra: str) -> tuple[int, str]:
    """Exit status and all output of ``moo verify``."""
    status = main(["verify", str(path), *extra])
    out = capsys.readouterr()
    return status, out.out + out.err


# --- round trip ----------------------------------------------------------------------------


def test_json_round_trip(bc_tree, bc_tree_file):
    back = read_tree(bc_tree_file)
    assert back.game.spec == "bulls-cows:4x10"
    assert back.root == bc_tree.root
    assert (back.objective, back.guesses, back.optimal) == ("first-consistent", "consistent", False)
    assert back.stats == replay(bc_tree).as_json()


def test_rewriting_a_read_tree_gives_the_same_bytes(bc_tree_file, tmp_path):
    again = tmp_path / "again.json"
    write_tree(read_tree(bc_tree_file), again)
    assert again.read_bytes() == bc_tree_file.read_bytes()


def test_file_follows_the_public_format(bc_tree_file):
    data = load(bc_tree_file)
    assert data["format"] == "decision-tree" and data["version"] == 1
    assert data["game"] == "bulls-cows:4x10"
    assert set(data["stats"]) >= {"secrets", "height", "total", "histogram"}
    assert all(isinstance(k, str) for k in data["stats"]["histogram"])
    root = data["root"]
    assert root["guess"] == "0123"
    assert "4 0" not in root["next"]
    assert sorted(root["next"]) == [
        "0 0", "0 1", "0 2", "0 3", "0 4", "1 0", "1 1", "1 2", "1 3", "2 0", "2 1", "2 2", "3 0",
    ]


def test_verify_accepts_a_good_file(bc_tree_file, capsys):
    status, out = moo_verify(bc_tree_file, capsys)
    assert status == 0
    assert "total 28024" in out and "OK" in out


def test_reading_and_verifying_need_no_numba(bc_tree_file):
    code = (
        "import sys; from optimizer.formats.tree_file import read_tree; "
        "from optimizer.provenance import verify; "
        f"r = verify(read_tree({str(bc_tree_file)!r})); "
        "assert not r.defects and r.total == 28024; "
        "assert 'numba' not in sys.modules, 'numba was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)


# --- published baselines -------------------------------------------------------------------


def test_first_consistent_bulls_and_cows(bc_tree):
    result = verify(bc_tree)
    assert not result.defects
    assert (result.secrets, result.total, result.height) == (5040, 28024, 9)


def test_first_consistent_mastermind():
    from optimizer.search.build import build
    from optimizer.search.request import Request

    tree = build(Request(parse_game("mastermind:4x6"), strategy="first-consistent"))
    result = verify(tree)
    assert not result.defects
    assert (result.secrets, result.total, result.height) == (1296, 7471, 9)
    assert tree.game.format_code(tree.root.guess) == "0000"  # "1111" in 1-based colours


# --- broken trees ----------------------------------------------------------------------------


@pytest.fixture
def bc_data(bc_tree_file) -> dict:
    return load(bc_tree_file)


def test_missing_branch(bc_data, tmp_path, capsys):
    del bc_data["root"]["next"]["0 0"]
    status, out = moo_verify(save(bc_data, tmp_path / "t.json"), capsys)
    assert status == 1
    assert "root.next['0 0']: missing" in out
    assert "360 secret(s)" in out


def test_extra_branch_nobody_reaches(bc_data, tmp_path, capsys):
    node = bc_data["root"]["next"]["0 4"]  # the 9 permutations of 0123 all share its digits
    assert "0 0" not in node["next"]
    node["next"]["0 0"] = {"guess": "4567", "next": {}}
    status, out = moo_verify(save(bc_data, tmp_path / "t.json"), capsys)
    assert status == 1
    assert "root.next['0 4'].next['0 0']: no remaining secret gives this feedback" in out


@pytest.mark.parametrize("key,value,message", [
    ("total", 28023, "stats.total says 28023, a replay gives 28024"),
    ("height", 7, "stats.height says 7, a replay gives 9"),
    ("secrets", 5000, "stats.secrets says 5000"),
    ("histogram", {"1": 5040}, "stats.histogram differs"),
])
def test_wrong_stats(bc_data, tmp_path, capsys, key, value, message):
    bc_data["stats"][key] = value
    status, out = moo_verify(save(bc_data, tmp_path / "t.json"), capsys)
    assert status == 1
    assert message in out


def test_wrong_stats_in_json_output(bc_data, tmp_path, capsys):
    bc_data["stats"]["total"] = 1
    status, out = moo_verify(save(bc_data, tmp_path / "t.json"), capsys, "--json")
    assert status == 1
    report = orjson.loads(out)
    assert report["ok"] is False and report["total"] == 28024
    assert any("stats.total" in d for d in report["defects"])


def test_non_consistent_guess_in_a_consistent_tree(tmp_path, capsys, minimax):
    game = parse_game("bulls-cows:3x5")
    path = tmp_path / "minimax.json"
    write_tree(Tree(game, minimax(game), objective="minimax", guesses="any"), path)
    assert moo_verify(path, capsys)[0] == 0
    data = load(path)
    data["guesses"] = "consistent"
    status, out = moo_verify(save(data, path), capsys)
    assert status == 1
    assert "is not consistent with the feedback so far" in out


def test_a_consistent_word_tree_opening_with_a_guess_only_word_says_why(tmp_path, capsys):
    """At the root there is no feedback yet: the opening is not a possible secret."""
    game = word_game(["cat", "hat", "bat", "mat"], ["chb"])
    tree = Tree(game, Node(4, {game.feedback(4, s): Node(s) for s in range(4)}),
                objective="minimax", guesses="any")
    path = tmp_path / "w.json"
    write_tree(tree, path)
    data = load(path)
    data["guesses"] = "consistent"
    status, out = moo_verify(save(data, path), capsys)
    assert status == 1 and "root: guess chb is not a possible secret" in out


# Defects found while reading: the file does not describe a tree; `moo verify` exits 1 too.
@pytest.mark.parametrize("edit,message", [
    (lambda d: d["root"]["next"]["0 1"].update(guess="0012"),
     "root.next['0 1'].guess: '0012' is not a code of bulls-cows:4x10"),
    (lambda d: d["root"].update(guess=123), "root.guess: a code is a string"),
    (lambda d: d["root"]["next"].update({"4 0": {"guess": "0123", "next": {}}}),
     "root.next['4 0']: the winning feedback is never a key"),
    (lambda d: d["root"]["next"].update({"1 9": {"guess": "0124", "next": {}}}),
     "root.next['1 9']"),
    (lambda d: d["root"]["next"].update({"0 3": []}), "root.next['0 3']: a node is"),
    (lambda d: d.update(format="decision-forest"), "'format' must be 'decision-tree'"),
    (lambda d: d.update(version=3), "version 3 is not supported"),
    (lambda d: d.update(version=2), "a version 2 file has \"game\": \"words\""),
    (lambda d: d.update(words={"answers": ["abc"]}), "a version 2 file has"),
    (lambda d: d.pop("root"), "missing key 'root'"),
    (lambda d: d.update(lowerbound=5), "unknown key 'lowerbound' (a tree file's keys are"),
    (lambda d: d.update(game="bulls-cows:5x3"), "5 distinct symbols cannot come from 3"),
    (lambda d: d.update(guesses="some"), "'guesses' must be"),
])
def test_unreadable_trees(bc_data, tmp_path, capsys, edit, message):
    edit(bc_data)
    path = save(bc_data, tmp_path / "t.json")
    with pytest.raises(TreeError):
        read_tree(path)
    status, out = moo_verify(path, capsys)
    assert status == 1
    assert message in out
    assert "Traceback" not in out


@pytest.mark.parametrize("content,message", [
    (None, "not valid JSON (malformed or truncated file)"),  # truncated
    (b"hello, tree", "not valid JSON"),
    (b"", "not valid JSON"),
    (b"[1, 2]", "a tree file holds one JSON object"),
])
def test_truncated_or_not_json(bc_tree_file, tmp_path, capsys, content, message):
    raw = bc_tree_file.read_bytes()
    path = tmp_path / "t.json"
    path.write_bytes(raw[: len(raw) // 2] if content is None else content)
    status, out = moo_verify(path, capsys)
    assert status == 1
    assert message in out


def test_missing_file(tmp_path, capsys):
    status, out = moo_verify(tmp_path / "nowhere.json", capsys)
    assert status == 2
    assert "cannot read" in out


# --- atomic writes ---------------------------------------------------------------------------


def _tree_of(minimax, spec: str) -> Tree:
    game = parse_game(spec)
    return Tree(game, minimax(game), objective="minimax", guesses="any")


def test_failed_write_leaves_the_target_untouched(tmp_path, monkeypatch, minimax):
    target = tmp_path / "tree.json"
    write_tree(_tree_of(minimax, "bulls-cows:2x3"), target)
    before = target.read_bytes()
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: HalfWriter(real_fdopen(fd, *a, **k)))
    with pytest.raises(OSError):
        write_tree(_tree_of(minimax, "bulls-cows:3x5"), target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["tree.json"]  # no temporary file left behind
    read_tree(target)


def test_failed_rename_leaves_the_target_untouched(tmp_path, monkeypatch, minimax):
    target = tmp_path / "tree.json"
    write_tree(_tree_of(minimax, "bulls-cows:2x3"), target)
    before = target.read_bytes()

    def fail(*args, **kwargs):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_tree(_tree_of(minimax, "bulls-cows:3x5"), target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["tree.json"]


def test_failed_first_write_creates_nothing(tmp_path, monkeypatch, minimax):
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: HalfWriter(real_fdopen(fd, *a, **k)))
    with pytest.raises(OSError):
        write_tree(_tree_of(minimax, "bulls-cows:2x3"), tmp_path / "new.json")
    assert os.listdir(tmp_path) == []
