"""``moo play FILE --json`` driven by another program through pipes, a line at a time."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from optimizer.formats.tree_file import read_tree
from optimizer.tree import replay

ROOT = Path(__file__).resolve().parents[1]
BC_TREE = ROOT / "trees" / "bulls-cows-4x10.height.any.json"


class Driver:
    """A program on the other end of the pipes: one line out, exactly one JSON object back."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "optimizer", "play", *args, "--json"], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.first = self._read()

    def send(self, line: str | bytes) -> dict:
        data = line if isinstance(line, bytes) else line.encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read().decode()
        return json.loads(line)

    def close(self) -> tuple[int, str]:
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        assert rest == b"", rest  # nothing unasked for
        status = self.proc.wait(timeout=30)
        return status, self.proc.stderr.read().decode()


@pytest.mark.parametrize("fixture", ["small_tree_file", "any_tree_file"])
def test_every_secret_played_through_the_protocol(request, fixture):
    """The driver plays each of the 60 secrets to the end in one process, reading each guess
    and answering it; the guess counts are the tree's own, secret by secret."""
    path = request.getfixturevalue(fixture)
    tree = read_tree(path)
    game = tree.game
    driver = Driver(str(path))
    state = driver.first
    histogram: dict[int, int] = {}
    for code in range(game.n_codes):
        if code:
            state = driver.send("new")
        assert state["guesses"] == 0 and state["candidates"] == game.n_codes
        while not state["solved"]:
            assert "error" not in state and state["guess"] is not None
            fid = game.feedback(game.parse_code(state["guess"]), code)
            left = state["candidates"]
            state = driver.send(game.format_feedback(fid))
            assert state["candidates"] <= left
        assert state["secret"] == game.format_code(code) and state["guess"] is None
        histogram[state["guesses"]] = histogram.get(state["guesses"], 0) + 1
    status, err = driver.close()
    assert status == 0 and err == ""
    assert histogram == replay(tree).histogram


def test_garbage_lines_get_an_error_and_play_goes_on():
    driver = Driver(str(BC_TREE))
    first = driver.first
    after = driver.send("0 2")
    for bad in ("banana", "", "5 0", "1 2 3", "\x00\x01", b"\xff\xfe\xfd", "{\"json\": 1}",
                "9" * 5000):
        reply = driver.send(bad)
        assert reply["error"], bad
        assert {k: v for k, v in reply.items() if k != "error"} == after
    impossible = driver.send("3 1")
    assert "cannot happen" in impossible["error"]
    assert driver.send("1 1")["guesses"] == 2
    assert first["guess"] == "0123"
    status, err = driver.close()
    assert status == 0 and "Traceback" not in err


def test_contradiction_asks_for_the_secret_and_names_the_wrong_answers():
    driver = Driver(str(BC_TREE))
    driver.send("0 0")
    state = driver.send("0 0")
    assert state["contradiction"] and state["ask"] == "secret" and state["guess"] is None
    bad = driver.send("1123")
    assert "is not a code" in bad["error"] and bad["ask"] == "secret"
    named = driver.send("1234")
    assert named["secret"] == "1234" and "ask" not in named
    assert named["wrong_answers"] == [
        {"number": 1, "guess": "0123", "given": "0 0", "truth": "0 3"},
        {"number": 2, "guess": "4567", "given": "0 0", "truth": "0 1"},
    ]
    assert "game is over" in driver.send("1 1")["error"]
    assert driver.send("new")["guess"] == "0123"
    assert driver.close()[0] == 0


def test_without_a_tree_guesses_fit_every_answer():
    driver = Driver("mastermind", "--seed", "3")
    from optimizer.games import parse_game

    game = parse_game("mastermind")
    secret = game.parse_code("5213")
    state = driver.first
    while not state["solved"]:
        fid = game.feedback(game.parse_code(state["guess"]), secret)
        state = driver.send(game.format_feedback(fid))
    assert state["secret"] == "5213"
    assert driver.close()[0] == 0


def test_readme_exchange_is_what_the_program_writes():
    readme = (ROOT / "docs" / "commands.md").read_text()
    section = readme.split("## Play protocol", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1).splitlines()
    lines = [line[2:] for line in block if line.startswith("> ")]
    expected = [json.loads(line) for line in block if not line.startswith("> ")]
    proc = subprocess.run(
        [sys.executable, "-m", "optimizer", "play", str(BC_TREE), "--json"], cwd=ROOT,
        input="".join(f"{line}\n" for line in lines), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == expected


@pytest.mark.parametrize("extra", [["--secret", "0123"], ["--breaker"]])
def test_json_goes_with_neither_secret_nor_breaker(extra):
    proc = subprocess.run([sys.executable, "-m", "optimizer", "play", str(BC_TREE), "--json",
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr


def test_unreadable_tree_is_a_plain_error(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"format": "decision-tree", "version": 1, "ga')
    proc = subprocess.run([sys.executable, "-m", "optimizer", "play", str(path), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


# --- word games ----------------------------------------------------------------------------
SQUARES = "\u2b1b\U0001f7e8\U0001f7e9"  # by mark: 0 grey, 1 yellow, 2 green


@pytest.fixture(scope="module")
def word_tree_file(tmp_path_factory) -> Path:
    """A custom-list word tree (format version 2, its lists inside)."""
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import word_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    answers = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval",
               "serve", "heath", "dwarf", "model", "karma", "stink", "grade", "quiet"]
    path = tmp_path_factory.mktemp("words") / "words.total.json"
    write_tree(build(Request(word_game(answers, ["salet", "crane"]), strategy="minimax")), path)
    return path


def test_every_word_played_through_the_protocol_in_each_form(word_tree_file):
    """Marks as the tree writes them ("2 0 1 0 0"), together, as letters and as squares: the
    secrets are the answers alone (an allowed guess that is no answer is never one)."""
    tree = read_tree(word_tree_file)
    game = tree.game
    forms = [lambda m: " ".join(m), lambda m: "".join(m),
             lambda m: "".join("byg"[int(x)] for x in m),
             lambda m: "".join(SQUARES[int(x)] for x in m)]
    driver = Driver(str(word_tree_file))
    state, histogram = driver.first, {}
    for code in range(game.n_secrets):
        if code:
            state = driver.send("new")
        assert state["candidates"] == game.n_secrets == 17
        while not state["solved"]:
            marks = game.format_feedback(game.feedback(game.parse_code(state["guess"]), code))
            state = driver.send(forms[(code + state["guesses"]) % 4](marks.split()))
            assert "error" not in state
        assert state["secret"] == game.format_code(code)
        histogram[state["guesses"]] = histogram.get(state["guesses"], 0) + 1
    state = driver.send("new")
    refused = driver.send("gyb")
    assert refused["error"] == "not understood: feedback 'gyb' has 3 marks: give 5, one a " \
        "letter (e.g. gybbb, 21000, 2 1 0 0 0)"
    assert {k: v for k, v in refused.items() if k != "error"} == state
    status, err = driver.close()
    assert status == 0 and err == ""
    assert histogram == replay(tree).histogram


def test_word_contradiction_names_the_wrong_marks(word_tree_file):
    game = read_tree(word_tree_file).game
    driver = Driver(str(word_tree_file))
    guess, secret = driver.first["guess"], "naval"
    truth = game.format_feedback(game.feedback(game.parse_code(guess), game.parse_code(secret)))
    state = driver.send("nothing" if truth != "0 0 0 0 0" else "gbbbb")
    while not state["contradiction"]:
        g = game.parse_code(state["guess"])
        state = driver.send(game.format_feedback(game.feedback(g, game.parse_code(secret))))
    assert state["ask"] == "secret"
    named = driver.send(secret)
    assert named["secret"] == secret
    assert named["wrong_answers"][0]["guess"] == guess
    assert named["wrong_answers"][0]["truth"] == truth
    driver.close()


def test_a_word_game_secret_spelled_new_is_taken_as_the_secret(tmp_path):
    """Asked for the secret, the line new named it when the answers hold the word new (it
    started a new game instead); new then starts another game."""
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import word_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    path = tmp_path / "three.json"
    write_tree(build(Request(word_game(["new", "old", "ten", "net", "wen", "yes"]),
                             strategy="minimax")), path)
    driver = Driver(str(path))
    state = driver.first
    while not state["contradiction"]:  # grey, grey, grey: no answer has none of its letters
        state = driver.send("bbb")
    assert state["ask"] == "secret"
    named = driver.send("new")
    assert named["secret"] == "new" and named["wrong_answers"] and "ask" not in named
    assert driver.send("new")["guesses"] == 0  # now a new game
    assert driver.close()[0] == 0
