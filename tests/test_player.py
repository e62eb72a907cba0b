"""``moo play`` driven through its standard input, as a person would use it."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from optimizer.cli import main
from optimizer.cli.player import parse_reply
from optimizer.games import GameError, parse_game

ROOT = Path(__file__).resolve().parents[1]
BC = parse_game("bulls-cows")


class Keyboard(io.TextIOBase):
    """Standard input whose lines are strings, or functions of the screen so far (so that a
    simulated person can answer the guess just shown). No lines left means end of input."""

    def __init__(self, screen: io.StringIO, lines):
        self.screen = screen
        self.lines = list(lines)

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:
        if not self.lines:
            return ""
        item = self.lines.pop(0)
        return (item(self.screen.getvalue()) if callable(item) else item) + "\n"


def play(monkeypatch, args: list[str], lines=()) -> tuple[int, str]:
    """Exit status and everything ``moo play ARGS`` wrote, stdout and stderr together."""
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(sys, "stdin", Keyboard(screen, lines))
    status = main(["play", *args])
    monkeypatch.undo()
    return status, screen.getvalue()


def guesses_shown(screen: str) -> list[str]:
    return re.findall(r"^Guess \d+: (.+)$", screen, re.M)


def person(game, secret: str, lies: dict[int, str] | None = None, style=None):
    """Answers the last guess on the screen for ``secret``, except at the rounds in ``lies``;
    gives the secret when asked for it."""
    lies = lies or {}
    code = game.parse_code(secret)

    def answer(screen: str) -> str:
        if screen.endswith("What was your secret? "):
            return secret
        shown = guesses_shown(screen)
        if len(shown) in lies:
            return lies[len(shown)]
        fid = game.feedback(game.parse_code(shown[-1]), code)
        return style(len(shown), fid) if style else game.format_feedback(fid)

    return answer


def walk(tree, secret: int) -> list[tuple[int, int]]:
    """(guess, true feedback) of each round of the tree against ``secret``."""
    game, node, rounds = tree.game, tree.root, []
    while True:
        fid = game.feedback(node.guess, secret)
        rounds.append((node.guess, fid))
        if fid == game.win:
            return rounds
        node = node.next[fid]


def choices_after(game, rounds) -> list[int]:
    candidates, left = range(game.n_codes), []
    for guess, fid in rounds:
        candidates = [s for s in candidates if game.feedback(guess, s) == fid]
        left.append(len(candidates))
    return left


# --- the computer guesses, the person answers ----------------------------------------------


def test_correct_game(monkeypatch, bc_tree, bc_tree_file):
    rounds = walk(bc_tree, BC.parse_code("3290"))
    status, screen = play(monkeypatch, [str(bc_tree_file)], [person(BC, "3290")] * 20)
    assert status == 0
    assert "5040 possible secrets." in screen
    assert guesses_shown(screen) == [BC.format_code(g) for g, _ in rounds]
    left = choices_after(BC, rounds)[:-1]
    expected = [f"{n} choices left" if n > 1 else "one choice left; it must be 3290" for n in left]
    assert re.findall(r"^(\d+ choices left|one choice left.*)$", screen, re.M) == expected
    assert f"Solved: your secret is 3290, found in {len(rounds)} guesses." in screen


def test_wrong_answer_is_named(monkeypatch, bc_tree, bc_tree_file):
    secret = BC.parse_code("1234")
    (g1, f1), (g2, true2) = walk(bc_tree, secret)[:2]
    lie = next(f for f in bc_tree.root.next[f1].next if f != true2)  # a branch the tree has
    lines = [person(BC, "1234", lies={2: BC.format_feedback(lie)})] * 20
    status, screen = play(monkeypatch, [str(bc_tree_file)], lines)
    assert status == 1
    assert "no secret agrees with all your answers" in screen
    assert "You say your secret is 1234." in screen
    wrong = re.findall(r"^When I guessed .*$", screen, re.M)
    assert wrong == [
        f"When I guessed {BC.format_code(g2)} you replied {BC.format_feedback(lie)} (bulls cows) "
        f"but in fact it is {BC.format_feedback(true2)} (bulls cows)."
    ]
    # said at once: no guess after the answer that no secret fits
    assert "Guess" not in screen.split("That cannot be")[1]


def test_seed_002_lying_session_in_live_mode(monkeypatch):
    """Without a tree the guesses are random: lie at the first answer (seed 002's session)."""
    mm = parse_game("bullets-maggots")
    secret = mm.parse_code("1234")

    def lie(screen: str) -> str:
        truth = mm.feedback(mm.parse_code(guesses_shown(screen)[0]), secret)
        return "0 0" if mm.feedback_counts(truth) != (0, 0) else "0 1"

    lines = [lie, *[person(mm, "1234")] * 30]
    status, screen = play(monkeypatch, ["bullets-maggots", "--seed", "2"], lines)
    first = guesses_shown(screen)[0]
    truth = mm.format_feedback(mm.feedback(mm.parse_code(first), secret))
    assert status == 1
    wrong = re.findall(r"^When I guessed .*$", screen, re.M)
    assert wrong == [f"When I guessed {first} you replied {lie(screen)} (black white) but in "
                     f"fact it is {truth} (black white)."]


def first_ruled_out_guess(tree) -> tuple[int, int, int, int]:
    """A secret, and the round, guess and true feedback where the tree guesses a code that the
    answers so far have ruled out."""
    game = tree.game
    for secret in range(game.n_codes):
        candidates = set(range(game.n_codes))
        for k, (guess, fid) in enumerate(walk(tree, secret), start=1):
            if guess not in candidates:
                return secret, k, guess, fid
            candidates = {c for c in candidates if game.feedback(guess, c) == fid}
    raise AssertionError("the tree only makes consistent guesses")


def test_winning_claim_that_cannot_be(monkeypatch, any_tree_file):
    from optimizer.formats.tree_file import read_tree

    tree = read_tree(any_tree_file)
    game = tree.game
    secret, k, guess, truth = first_ruled_out_guess(tree)
    lines = [person(game, game.format_code(secret), lies={k: "w"})] * 20
    status, screen = play(monkeypatch, [str(any_tree_file)], lines)
    assert status == 1
    assert (f"When I guessed {game.format_code(guess)} you replied 3 0 (bulls cows) but in fact "
            f"it is {game.format_feedback(truth)} (bulls cows).") in screen


def test_invalid_secret_when_asked(monkeypatch, bc_tree_file):
    # 0 0 to 0123 leaves codes of 4..9, which share at least two digits with the next guess
    status, screen = play(monkeypatch, [str(bc_tree_file)], ["0 0", "0 0", "1123", "99", "3290"])
    assert status == 1
    assert "That cannot be" in screen
    assert screen.count("That is not a valid code") == 2
    assert "'1123' is not a code of bulls-cows:4x10" in screen
    assert "You say your secret is 3290." in screen
    assert ("When I guessed 0123 you replied 0 0 (bulls cows) but in fact it is 0 3 (bulls cows)."
            in screen)


STYLES = [
    lambda b, c: f"{b},{c}",
    lambda b, c: f"{b}b{c}c",
    lambda b, c: f"({b}, {c})",
    lambda b, c: ("b" * b + "c" * c) or "-",  # seed 001's letters
    lambda b, c: f"{b}{c}",
    lambda b, c: f" {b}   {c} ",
    lambda b, c: f"{c}c{b}b",  # tags are read by name, in any order
    lambda b, c: f"{c} cows {b} BULLS",
]


def forgiving(number: int, fid: int) -> str:
    if fid == BC.win:
        return "w"
    return STYLES[number % len(STYLES)](*BC.feedback_counts(fid))


def test_forgiving_inputs(monkeypatch, bc_tree, bc_tree_file):
    rounds = walk(bc_tree, BC.parse_code("3290"))
    lines = [person(BC, "3290", style=forgiving)] * 20
    status, screen = play(monkeypatch, [str(bc_tree_file)], lines)
    assert status == 0
    assert f"found in {len(rounds)} guesses" in screen
    assert "understand" not in screen


@pytest.mark.parametrize("typed,counts", [
    ("1 2", (1, 2)), ("1,2", (1, 2)), ("1b2c", (1, 2)), ("(1, 2)", (1, 2)), ("12", (1, 2)),
    ("bcc", (1, 2)), ("b c c", (1, 2)), ("-", (0, 0)), ("0 0", (0, 0)), ("4 0", (4, 0)),
    ("w", (4, 0)), ("W", (4, 0)), ("solved", (4, 0)), ("bbbb", (4, 0)),
])
def test_parse_reply(typed, counts):
    assert BC.feedback_counts(parse_reply(BC, typed)) == counts


def test_misread_replies_are_refused_and_asked_again(monkeypatch, bc_tree, bc_tree_file):
    """Replies that are neither plain nor tagged numbers were once read as the digits in them
    ('-1 2' as 1 2): each is refused with a reason, then asked again."""
    rounds = walk(bc_tree, BC.parse_code("3290"))
    bad = ["-1 2", "1e2", "1 2 apples", "1" * 5000, "\uff11 \uff12"]
    status, screen = play(monkeypatch, [str(bc_tree_file)], [*bad, *[person(BC, "3290")] * 20])
    assert status == 0
    assert f"found in {len(rounds)} guesses" in screen
    assert screen.count("I do not understand that") == len(bad)
    assert guesses_shown(screen)[:2] == [BC.format_code(g) for g, _ in rounds[:2]]


def test_the_promise_comes_from_the_replay_not_the_stats(monkeypatch, bc_tree_file, tmp_path):
    """A file whose stats claim height 5 (the tree needs 9) is played with the true figure."""
    data = orjson.loads(bc_tree_file.read_bytes())
    data["stats"]["height"] = 5
    path = tmp_path / "lying-stats.json"
    path.write_bytes(orjson.dumps(data))
    status, screen = play(monkeypatch, [str(path)])
    assert "at most 9 guesses" in screen and "at most 5" not in screen
    del data["root"]["next"]["0 0"]  # a defective tree promises nothing
    path.write_bytes(orjson.dumps(data))
    status, screen = play(monkeypatch, [str(path)])
    assert "I follow a stored strategy (first-consistent)." in screen
    assert "Warning: the tree file is defective (root.next['0 0']: missing" in screen  # at once


@pytest.mark.parametrize("spec,typed,counts", [
    ("battleship", "0 2 1", (0, 2, 1)), ("battleship", "021", (0, 2, 1)),
    ("battleship", "(0,2,1)", (0, 2, 1)), ("battleship", "w", (3, 0, 0)),
    ("bullets-maggots", "1b2w", (1, 2)), ("bullets-maggots", "w", (4, 0)),
    ("bullets-maggots", "2 white 1 black", (1, 2)), ("bulls-cows", "2c1b", (1, 2)),
])
def test_parse_reply_other_games(spec, typed, counts):
    game = parse_game(spec)
    assert game.feedback_counts(parse_reply(game, typed)) == counts


def test_invalid_inputs_are_explained_and_asked_again(monkeypatch, bc_tree, bc_tree_file):
    rounds = walk(bc_tree, BC.parse_code("3290"))
    bad = ["abc", "5 0", "2 3", "1 2 3", "3 1", "", "?"]
    status, screen = play(
        monkeypatch, [str(bc_tree_file)], [*bad, *[person(BC, "3290")] * 20]
    )
    assert status == 0
    assert f"found in {len(rounds)} guesses" in screen  # bad lines do not count as guesses
    assert screen.count("I do not understand that") == 4
    assert "should be 2 numbers" in screen
    assert "between 0 and 4" in screen
    assert "add up to more than 4" in screen
    assert "3 1 cannot happen: no code of bulls-cows:4x10 gives that to 0123" in screen
    assert screen.count("Type the feedback for my guess") == 2  # empty line and ?
    assert guesses_shown(screen)[0] == "0123"


def test_end_of_input(monkeypatch, bc_tree_file):
    status, screen = play(monkeypatch, [str(bc_tree_file)], ["0 3"])
    assert status == 1
    assert "Guess 2:" in screen
    assert screen.rstrip().endswith("No more answers: game over.")


def test_end_of_input_when_asked_for_the_secret(monkeypatch, bc_tree_file):
    status, screen = play(monkeypatch, [str(bc_tree_file)], ["0 0", "0 0"])
    assert status == 1
    assert screen.rstrip().endswith("What was your secret? \nNo more answers: game over.")
    assert screen.rstrip().endswith("No more answers: game over.")


def test_quit(monkeypatch, bc_tree_file):
    status, screen = play(monkeypatch, [str(bc_tree_file)], ["q"])
    assert status == 1
    assert screen.endswith("? q\nStopped: game over.\n")  # not "No more answers"


def test_help_and_quit_when_asked_for_the_secret(monkeypatch, bc_tree_file):
    status, screen = play(monkeypatch, [str(bc_tree_file)], ["0 0", "0 0", "?", "Quit"])
    assert status == 1
    assert screen.endswith("What was your secret? ?\n  Type the code you thought of, e.g. "
                           "0123, and I name the answers that were wrong; q to stop.\n"
                           "What was your secret? Quit\nStopped: game over.\n")


def test_live_mode_battleship(monkeypatch):
    game = parse_game("battleship")
    lines = [person(game, "A1 D2 B3")] * 40
    status, screen = play(monkeypatch, ["battleship", "--seed", "1"], lines)
    assert status == 0
    assert "Solved: your secret is A1 B3 D2" in screen
    assert "exact one-away two-away?" in screen


def test_live_mode_moo_ranges(monkeypatch):
    game = parse_game("moo:10,11,12")
    lines = [person(game, "9 10 0")] * 30
    status, screen = play(monkeypatch, ["moo:10,11,12", "--seed", "4"], lines)
    assert status == 0
    assert "Solved: your secret is 9 10 0" in screen


# --- the computer plays against a given secret --------------------------------------------


def test_secret(monkeypatch, bc_tree, bc_tree_file):
    rounds = walk(bc_tree, BC.parse_code("3290"))
    status, screen = play(monkeypatch, [str(bc_tree_file), "--secret", "3290"])
    assert status == 0
    lines = [line for line in screen.splitlines() if line.startswith("Guess")]
    left = choices_after(BC, rounds)
    for line, (guess, fid), n in zip(lines, rounds, left, strict=True):
        assert line.startswith("Guess ")
        assert f": {BC.format_code(guess)} -> {BC.format_feedback(fid)} (bulls cows)" in line
        assert line.endswith("solved" if fid == BC.win else
                             (f"{n} choices left" if n > 1 else "it must be 3290"))
    assert screen.rstrip().endswith(f"Solved 3290 in {len(rounds)} guesses.")


def test_secret_without_a_tree(monkeypatch):
    status, screen = play(monkeypatch, ["battleship", "--secret", "h2 c3 a1", "--seed", "3"])
    assert status == 0
    assert "Solved A1 C3 H2 in" in screen


def test_invalid_secret_argument(monkeypatch, bc_tree_file):
    status, screen = play(monkeypatch, [str(bc_tree_file), "--secret", "1123"])
    assert status == 2
    assert "'1123' is not a code of bulls-cows:4x10" in screen


@pytest.mark.parametrize("target,message", [
    ("nowhere/tree.json", "no such tree file"),
    ("chess", "unknown game 'chess'"),
    ("bulls-cows:5x3", "5 distinct symbols cannot come from 3"),
])
def test_bad_target(monkeypatch, target, message):
    status, screen = play(monkeypatch, [target])
    assert status == 2
    assert message in screen


def test_unreadable_tree(monkeypatch, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "decision-tree", "version": 1, "game"')
    status, screen = play(monkeypatch, [str(path)])
    assert status == 2
    assert "not valid JSON" in screen


# --- the person guesses --------------------------------------------------------------------


def drawn_secret(monkeypatch, args: list[str]) -> str:
    status, screen = play(monkeypatch, args, ["?"])
    assert status == 1
    return re.search(r"The secret was (.+?); you made 0 guesses\.", screen).group(1)


def test_breaker_with_seed(monkeypatch):
    secret = drawn_secret(monkeypatch, ["bulls-cows", "--breaker", "--seed", "7"])
    assert drawn_secret(monkeypatch, ["bulls-cows", "--breaker", "--seed", "7"]) == secret
    wrong = "0123" if secret != "0123" else "4567"
    expected = BC.format_feedback(BC.feedback(BC.parse_code(wrong), BC.parse_code(secret)))
    lines = ["12", "1123", "hello", wrong, secret]
    status, screen = play(monkeypatch, ["bulls-cows", "--breaker", "--seed", "7"], lines)
    assert status == 0
    assert screen.count("Not a valid guess") == 3
    assert "'1123' is not a code of bulls-cows:4x10: 4 symbols from 0 to 9, all different" in screen
    assert f"  {expected} (bulls cows)\n" in screen
    assert f"solved! The secret is {secret}; you found it in 2 guesses." in screen


@pytest.mark.parametrize("give_up", ["?", "give up", "-1"])
def test_breaker_gives_up(monkeypatch, give_up):
    status, screen = play(monkeypatch, ["mastermind", "--breaker", "--seed", "1"],
                          ["0000", give_up])
    assert status == 1
    assert re.search(r"The secret was [0-5]{4}; you made 1 guess\.", screen)


def test_breaker_end_of_input_reveals(monkeypatch):
    status, screen = play(monkeypatch, ["battleship", "--breaker", "--seed", "3"], ["A1 B2 C3"])
    assert status == 1
    assert re.search(r"No more guesses\. The secret was [A-H][1-4] [A-H][1-4] [A-H][1-4]\.",
                     screen)


def test_breaker_with_a_tree_file_uses_its_game(monkeypatch, small_tree_file):
    status, screen = play(monkeypatch, [str(small_tree_file), "--breaker", "--seed", "1"])
    assert "bulls-cows:3x5" in screen and status == 1


def test_a_seed_with_a_tree_that_draws_nothing_is_refused(monkeypatch, small_tree_file):
    """A tree's guesses are fixed: --seed there was ignored silently."""
    for args in ([str(small_tree_file), "--seed", "4"], [str(small_tree_file), "--json",
                                                          "--seed", "4"]):
        status, screen = play(monkeypatch, args)
        assert status == 2 and "--seed draws the secret (--breaker)" in screen


def test_breaker_consistent_guesses_refuse_codes_that_cannot_be_the_secret(monkeypatch):
    """--guesses consistent: a guess that does not fit an answer so far is refused, names that
    answer and does not count; one that fits is scored."""
    args = ["bulls-cows", "--breaker", "--seed", "7", "--guesses", "consistent"]
    secret = BC.parse_code(drawn_secret(monkeypatch, args))
    first = BC.parse_code("0123" if BC.format_code(secret) != "0123" else "4567")
    reply = BC.feedback(first, secret)
    fits = [c for c in range(BC.n_codes) if BC.feedback(first, c) == reply and c != secret]
    misfit = next(c for c in range(BC.n_codes) if BC.feedback(first, c) != reply)
    lines = [BC.format_code(first), BC.format_code(misfit), BC.format_code(fits[0]),
             BC.format_code(secret)]
    status, screen = play(monkeypatch, args, lines)
    assert status == 0
    assert "Each guess must fit every answer so far" in screen
    assert screen.count("Not allowed") == 1
    assert (f"Not allowed (consistent guesses only): it cannot be the secret, as "
            f"{BC.format_code(first)} got {BC.format_feedback(reply)} (bulls cows).") in screen
    assert "you found it in 3 guesses." in screen


def test_breaker_consistent_word_game_guesses_only_answers(monkeypatch):
    """In a word game a consistent guess is one of the answers (a word that is never the secret
    is refused, first guess included), as a consistent tree's guesses are (tree.py)."""
    args = ["wordle", "--breaker", "--seed", "3", "--guesses", "consistent"]
    wordle = parse_game("wordle")
    secret = drawn_secret(monkeypatch, args)
    assert wordle.parse_code("aahed") >= wordle.n_secrets  # an allowed guess, never the answer
    status, screen = play(monkeypatch, args, ["aahed", secret])
    assert status == 0
    assert ("Not allowed (consistent guesses only): it cannot be the secret: it is not one of "
            "the 2,315 answers.") in screen
    assert "you found it in 1 guess." in screen


def test_breaker_hard_mode_keeps_every_hint(monkeypatch):
    """--guesses hard (Wordle's hard mode): a green must stay in its place and a yellow letter
    be used; a guess that drops one is refused and does not count."""
    wordle = parse_game("wordle")
    args = ["wordle", "--breaker", "--seed", "3", "--guesses", "hard"]
    secret = drawn_secret(monkeypatch, args)
    reply = wordle.feedback(wordle.parse_code("salet"), wordle.parse_code(secret))
    marks = wordle.feedback_counts(reply)
    green = next(i for i, m in enumerate(marks) if m == 2)  # the test's seed gives a green
    dropped = next(w for w in ("lakes", "tales", "steal", "crane", "pious")
                   if w[green] != "salet"[green])
    status, screen = play(monkeypatch, args, ["salet", dropped, secret])
    assert status == 0
    assert "Hard mode: each guess must keep every hint so far" in screen
    assert "Not allowed (hard mode): salet got " in screen
    assert f", so letter {green + 1} must be {'salet'[green].upper()}." in screen  # which hint
    assert "you found it in 2 guesses." in screen


@pytest.mark.parametrize("args,message", [
    (["bulls-cows", "--breaker", "--guesses", "hard"], "bulls-cows:4x10 has no hard mode"),
    (["bulls-cows", "--guesses", "consistent"], "--guesses is the breaker's rule"),
    (["bulls-cows", "--guesses", "any"], "--guesses is the breaker's rule"),  # was ignored
    ([str(ROOT / "trees" / "mastermind-4x6.total.any.json"), "--guesses", "any",
      "--secret", "1234"], "--guesses is the breaker's rule"),
])
def test_breaker_guess_mode_errors(monkeypatch, args, message):
    status, screen = play(monkeypatch, args)
    assert status == 2
    assert screen.startswith("moo: error: ") and screen.count("\n") == 1  # as every command
    assert message in screen


# --- a real process --------------------------------------------------------------------------


def moo_process(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, **kwargs,
    )


CHECK_IMPORTS = """
import sys
from optimizer.cli import main
status = main(sys.argv[1:])
heavy = [m for m in sys.modules if m.split(".")[0] == "numba" or m.startswith("optimizer.kernels")
         or m.startswith("optimizer.search")]
print("heavy modules:", heavy, file=sys.stderr)
raise SystemExit(status)
"""


def test_process_needs_no_numba_and_shows_no_traceback(bc_tree_file):
    proc = moo_process("-c", CHECK_IMPORTS, "play", str(bc_tree_file))
    out, err = proc.communicate(b"0 3\nnonsense\n", timeout=60)
    text, log = out.decode(), err.decode()
    assert proc.returncode == 1
    assert "Guess 2:" in text and "game over" in text
    assert "Traceback" not in log
    assert "heavy modules: []" in log


def test_module_entry_point(bc_tree_file):
    proc = moo_process("-m", "optimizer", "play", str(bc_tree_file), "--secret", "3290")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.decode().rstrip().endswith("Solved 3290 in 8 guesses.")


def read_until(proc: subprocess.Popen, marker: bytes, timeout: float = 30) -> bytes:
    seen, fd, end = b"", proc.stdout.fileno(), time.monotonic() + timeout
    while marker not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            raise AssertionError(f"no {marker!r} within {timeout} s; saw {seen!r}")
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_ends_cleanly(bc_tree_file):
    proc = moo_process("-m", "optimizer", "play", str(bc_tree_file))
    try:
        read_until(proc, b"bulls cows? ")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert b"Traceback" not in err


# --- word games ----------------------------------------------------------------------------
WORD_ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval",
                "serve", "heath", "dwarf", "model", "karma", "stink", "grade", "quiet", "bench"]
SQUARES = {"2": "\U0001f7e9", "1": "\U0001f7e8", "0": "\u2b1b"}


@pytest.fixture(scope="module")
def word_tree_file(tmp_path_factory) -> Path:
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import word_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    path = tmp_path_factory.mktemp("words") / "words.minimax.json"
    write_tree(build(Request(word_game(WORD_ANSWERS, ["salet", "crane"]), strategy="minimax")),
               path)
    return path


def word_styles(game):
    """Each of the forms games/reply.py reads, in turn: gybbb, 21000, 2 1 0 0 0, the squares."""

    def style(number: int, fid: int) -> str:
        marks = game.format_feedback(fid).split()
        forms = ["".join("byg"[int(m)] for m in marks), "".join(marks), " ".join(marks),
                 "".join(SQUARES[m] for m in marks)]
        return forms[number % 4]

    return style


def test_word_game_answered_in_every_form(monkeypatch, word_tree_file):
    from optimizer.formats.tree_file import read_tree

    game = read_tree(word_tree_file).game
    for secret in ("cigar", "quiet", "bench"):
        status, screen = play(monkeypatch, [str(word_tree_file)],
                              [person(game, secret, style=word_styles(game))] * 8)
        assert status == 0, screen
        assert f"Solved: your secret is {secret}, found in " in screen
    assert "Think of a secret word of words: one of the 18 answers, 5-letter words." in screen
    assert "Answer each guess with its marks, one a letter: g green (right place), y yellow " \
        "(elsewhere), b grey (absent), e.g. gybbb, 21000 or \U0001f7e9\U0001f7e8\u2b1b\u2b1b" \
        "\u2b1b; w (or ggggg) when I have it" in screen
    assert "  marks (g green, y yellow, b grey)? " in screen
    assert "1st 2nd" not in screen


def test_word_game_help_names_the_forms_and_refusals_are_explained(monkeypatch,
                                                                    word_tree_file):
    status, screen = play(monkeypatch, [str(word_tree_file)], ["?", "gyb", "gyzbb", "q"])
    assert status == 1
    help_text = screen[screen.index("? ?"):]
    for form in ("gybbb", "21000", "2 1 0 0 0", "\U0001f7e9\U0001f7e8\u2b1b\u2b1b\u2b1b"):
        assert form in help_text
    assert "when I have guessed your word" in screen
    assert "feedback 'gyb' has 3 marks: give 5" in screen
    assert "'z' is not a mark" in screen


def test_word_game_lie_named_with_squares(monkeypatch, word_tree_file):
    from optimizer.formats.tree_file import read_tree

    game = read_tree(word_tree_file).game
    secret = "naval"
    first = game.format_code(read_tree(word_tree_file).root.guess)
    truth = game.format_feedback(game.feedback(game.parse_code(first), game.parse_code(secret)))
    lie = next(game.format_feedback(f) for f in sorted({game.feedback(game.parse_code(first), s)
                                                         for s in range(game.n_secrets)})
               if game.format_feedback(f) != truth and f != game.win)
    lines = [lie] + [person(game, secret)] * 6
    status, screen = play(monkeypatch, [str(word_tree_file)], lines)
    assert status == 1 and "That cannot be" in screen  # caught, at once or later
    squares = "".join(SQUARES[m] for m in lie.split())
    assert f"When I guessed {first} you replied {lie} ({squares}) but in fact it is " \
        f"{truth} (" in screen


def test_word_secret_shown_with_squares(monkeypatch, word_tree_file):
    status, screen = play(monkeypatch, [str(word_tree_file), "--secret", "CIGAR"])
    assert status == 0
    assert re.search(r"^Guess 1: \w{5} -> [0-2]( [0-2]){4} \([\U0001f7e9\U0001f7e8\u2b1b]{5}\), "
                     r"\d+ choices? left", screen, re.M)
    assert screen.endswith(" -> 2 2 2 2 2 (\U0001f7e9\U0001f7e9\U0001f7e9\U0001f7e9"
                           "\U0001f7e9), solved\nSolved cigar in " + screen.split(
                               "Solved cigar in ")[1])


def test_a_secret_that_may_only_be_guessed_is_refused_at_once(monkeypatch, word_tree_file):
    """salet is an allowed guess, no answer: played, it led the game to a contradiction."""
    from optimizer.formats.tree_file import read_tree
    from optimizer.session import Solver

    refusal = "'salet' may be guessed in words but is not one of its 18 possible answers"
    status, screen = play(monkeypatch, [str(word_tree_file), "--secret", "salet"])
    assert status == 2 and screen == f"moo: error: {refusal}\n"
    session = Solver(read_tree(word_tree_file)).new_game()
    for ask in (session.answer_for, session.wrong_answers):
        with pytest.raises(GameError, match=refusal):
            ask("salet")
    game = read_tree(word_tree_file).game
    first = session.guess
    lie = next(game.format_feedback(f) for f in sorted({game.feedback(game.parse_code(first), s)
                                                         for s in range(game.n_secrets)})
               if f != game.win and game.format_feedback(f) != session.answer_for("naval"))
    told = []

    def person_says_salet_first(screen: str) -> str:
        if screen.endswith("What was your secret? "):
            told.append(screen)
            return "salet" if len(told) == 1 else "naval"
        return person(game, "naval")(screen)

    status, screen = play(monkeypatch, [str(word_tree_file)], [lie] + [person_says_salet_first] * 8)
    assert status == 1 and f"That is not a valid code: {refusal}." in screen
    assert "You say your secret is naval." in screen and len(told) == 2


def test_wordle_breaker_draws_an_answer_and_takes_any_allowed_word(monkeypatch):
    game = parse_game("wordle")
    secret = drawn_secret(monkeypatch, ["wordle", "--breaker", "--seed", "5"])
    assert game.is_answer(game.parse_code(secret))
    secrets = {drawn_secret(monkeypatch, ["wordle", "--breaker", "--seed", str(s)])
               for s in range(8)}
    assert all(game.is_answer(game.parse_code(s)) for s in secrets)
    guess = "xylyl"  # allowed, never an answer
    assert not game.is_answer(game.parse_code(guess))
    marks = game.format_feedback(game.feedback(game.parse_code(guess), game.parse_code(secret)))
    squares = "".join(SQUARES[m] for m in marks.split())
    status, screen = play(monkeypatch, ["wordle", "--breaker", "--seed", "5"],
                          [guess, "abcde", secret])
    assert status == 0
    assert "I have picked a secret word of wordle: one of its 2,315 answers (5 letters). You " \
        "may guess any of its 12,972 allowed words (10,657 are never the answer)." in screen
    assert f"Guess 1: {guess}\n  {marks} ({squares})\n" in screen
    assert "Not a valid guess: 'abcde' is not a code of wordle" in screen
    assert f"  2 2 2 2 2 ({SQUARES['2'] * 5}): solved! The secret is {secret}; you found it " \
        "in 2 guesses." in screen


def test_a_secret_spelled_like_a_quit_or_help_word_is_the_secret(monkeypatch, tmp_path):
    """Asked for the secret, stop and help stopped the game or showed help, though they were
    answers of the word game."""
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import word_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    words = ["stop", "help", "pots", "tops", "spot", "quit", "exit", "hole"]
    path = tmp_path / "w.json"
    write_tree(build(Request(word_game(words), strategy="minimax")), path)
    for secret in ("stop", "help"):
        status, screen = play(monkeypatch, [str(path)], ["bbbb"] * 4 + [secret])
        assert status == 1 and f"You say your secret is {secret}." in screen, screen
    status, screen = play(monkeypatch, [str(path)], ["bbbb"] * 4 + ["?", "q"])
    assert "Type the answer you thought of" in screen and screen.endswith("Stopped: game over.\n")
