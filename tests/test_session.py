"""The Python API (``optimizer.session``): every secret replayed, contradictions named, no numba."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import a_lie

from optimizer.formats.tree_file import read_tree
from optimizer.games import GameError
from optimizer.session import (
    CONTRADICTION,
    NO_MOVE,
    FeedbackError,
    Round,
    Solver,
    WrongAnswer,
)
from optimizer.tree import TreeError, replay

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "trees" / "mastermind-4x6.total.any.json"


def play_out(solver: Solver, secret: str) -> int:
    """Guesses the solver needs for ``secret``, answering truthfully."""
    session = solver.new_game()
    while not session.over:
        session.answer_for(secret)
    assert session.solved and session.secret == secret
    return session.guesses


@pytest.mark.parametrize("fixture", ["small_tree_file", "any_tree_file"])
def test_every_secret_takes_the_trees_own_count(request, fixture):
    path = request.getfixturevalue(fixture)
    solver = Solver.load(path)
    game = solver.game
    histogram: dict[int, int] = {}
    for code in range(game.n_codes):
        k = play_out(solver, game.format_code(code))
        histogram[k] = histogram.get(k, 0) + 1
    assert histogram == replay(read_tree(path)).histogram


def test_candidates_and_rounds_follow_the_answers():
    solver = Solver.load(COMMITTED)
    game = solver.game
    session = solver.new_game()
    assert session.guess == game.format_code(solver.tree.root.guess)
    assert session.candidates_left == 1296 and session.guesses == 0
    secret = "3512"
    first = session.guess
    truth = session.answer_for(secret)
    expected = [c for c in range(game.n_codes)
                if game.format_feedback(game.feedback(game.parse_code(first), c)) == truth]
    assert session.candidates == [game.format_code(c) for c in expected]
    assert session.rounds == [Round(first, truth)]
    assert secret in session.candidates


def test_stateless_use_gives_the_same_game():
    """A caller that keeps no state passes all the feedback so far each time."""
    solver = Solver.load(COMMITTED)
    live = solver.new_game()
    given: list[str] = []
    while not live.over:
        given.append(live.answer_for("5501"))
        replayed = solver.new_game(given)
        assert (replayed.guess, replayed.candidates_left, replayed.status) == (
            live.guess, live.candidates_left, live.status)


def test_feedback_as_numbers_or_text():
    solver = Solver.load(COMMITTED)
    a, b = solver.new_game(), solver.new_game()
    a.answer((1, 1))
    b.answer("1 1")
    assert a.guess == b.guess and a.candidates == b.candidates


def test_refused_feedback_leaves_the_game_unchanged():
    solver = Solver.load(COMMITTED)
    session = solver.new_game()
    before = (session.guess, session.candidates_left, session.guesses)
    for bad in ("5 0", "1 2 3", "apples", (3, 1), (0, -1)):
        with pytest.raises(GameError):
            session.answer(bad)
    assert (session.guess, session.candidates_left, session.guesses) == before
    with pytest.raises(FeedbackError, match="3 1 cannot happen: no code of mastermind:4x6 gives"):
        session.answer("3 1")


def test_contradiction_and_the_wrong_answers_named():
    solver = Solver.load(COMMITTED)
    game = solver.game
    session = solver.new_game()
    secret = "1234"
    while a_lie(session) is None:
        session.answer_for(secret)
    lied_at, lie = session.guess, a_lie(session)
    session.answer(lie)
    assert session.status == CONTRADICTION and session.contradiction
    assert session.guess is None and session.candidates == [] and session.over
    truth = game.format_feedback(game.feedback(game.parse_code(lied_at), game.parse_code(secret)))
    assert session.wrong_answers(secret) == [WrongAnswer(session.guesses, lied_at, lie, truth)]
    with pytest.raises(FeedbackError, match="the game is over"):
        session.answer("0 0")
    with pytest.raises(GameError, match="is not a code"):
        session.wrong_answers("9999")
    for secret in (1234, None, b"1234", ["1", "2", "3", "4"], 10**5000):  # named, no traceback
        with pytest.raises(GameError, match=r"a code is text such as '\d+', not .* \("):
            session.wrong_answers(secret)
        with pytest.raises(GameError, match="a code is text"):
            solver.new_game().answer_for(secret)


def test_claiming_a_ruled_out_guess_is_a_contradiction(any_tree_file):
    """'Solved' at a guess the earlier answers ruled out (the tree may guess such codes)."""
    solver = Solver.load(any_tree_file)
    game = solver.game
    for code in range(game.n_codes):
        session = solver.new_game()
        secret = game.format_code(code)
        while not session.over:
            if session.guess not in session.candidates:
                session.answer(game.format_feedback(game.win))
                assert session.contradiction
                assert len(session.wrong_answers(secret)) == 1
                return
            session.answer_for(secret)
    raise AssertionError("the tree never guesses a ruled-out code")


def test_incomplete_tree_stops_with_its_defect(small_tree_file, tmp_path):
    import orjson

    data = orjson.loads(small_tree_file.read_bytes())
    dropped = next(iter(data["root"]["next"]))
    del data["root"]["next"][dropped]
    path = tmp_path / "holed.json"
    path.write_bytes(orjson.dumps(data))
    session = Solver.load(path).new_game()
    session.answer(dropped)
    assert session.status == NO_MOVE and session.guess is None
    assert re.search(rf"no move after {data['root']['guess']} -> {dropped}, although \d+ "
                     r"secret\(s\) fit every answer", session.tree_defect)


@pytest.mark.parametrize("path", [123, 0, None, b"tree.json"])
def test_a_path_that_is_not_text_is_refused(path):
    """Solver.load(123) read file descriptor 123, and None raised a TypeError."""
    with pytest.raises(TreeError, match=r"a tree file's path is a string or a path object, not "):
        Solver.load(path)


def test_a_path_with_a_nul_byte_is_a_file_error_naming_it():
    """os.stat's ValueError ('embedded null byte') named no file."""
    from optimizer.formats.tree_file import TreeFileError

    with pytest.raises(TreeFileError, match=r"a\\x00b: cannot read: a file name has no NUL"):
        Solver.load("a\0b")


    class Bytes:  # os.PathLike may give bytes: loaded as before the NUL check
        def __fspath__(self) -> bytes:
            return str(COMMITTED).encode()

    assert Solver.load(Bytes()).game.spec == Solver.load(str(COMMITTED)).game.spec


def test_any_path_object_loads():
    """os.PathLike, not only pathlib.Path (the check above once refused the others)."""
    class Named:
        def __fspath__(self) -> str:
            return str(COMMITTED)

    assert Solver.load(Named()).game.spec == Solver.load(str(COMMITTED)).game.spec


def test_readme_example_runs_as_written():
    """The README's Python API section is a program; it must run and print what it says."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Python API", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    shown = re.findall(r"^# (.*)$", code, re.M)  # the example's own comments say the output
    assert proc.stdout.splitlines() == shown


def test_api_never_imports_numba():
    code = (
        "import sys\n"
        "from optimizer.session import Solver\n"
        f"solver = Solver.load({str(COMMITTED)!r})\n"
        "session = solver.new_game()\n"
        "while not session.over:\n"
        "    session.answer_for('2345')\n"
        "assert session.solved\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba'"
        " or m.startswith(('optimizer.kernels', 'optimizer.search'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
