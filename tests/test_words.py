"""Word games (games.words): Wordle's feedback rule, the lists, the spec forms, the checks of bad
lists, the replies people type, and the least height and total of small word games by the plain
exhaustive search (tests/oracle.py), whose guesses are not all secrets."""

from __future__ import annotations

import itertools

import numpy as np
import orjson
import pytest
from oracle import plain_optimum, plain_values

from optimizer.games import GameError, WordGame, parse_game, read_word_list, word_game
from optimizer.games import words as words_module
from optimizer.games.reply import example_reply, read_reply, reply_forms
from optimizer.games.words import word_marks


def marks_by_count(guess: str, secret: str) -> list[int]:
    """The rule stated another way: a non-green letter is yellow when the secret's non-green
    positions hold more of it than the guess's non-green positions before it."""
    green = [a == b for a, b in zip(guess, secret, strict=True)]
    out = []
    for i, a in enumerate(guess):
        if green[i]:
            out.append(2)
            continue
        there = sum(1 for j, b in enumerate(secret) if b == a and not green[j])
        before = sum(1 for j in range(i) if guess[j] == a and not green[j])
        out.append(1 if there > before else 0)
    return out


@pytest.fixture(scope="module")
def wordle() -> WordGame:
    return parse_game("wordle")


# --- the rule ------------------------------------------------------------------------------------

@pytest.mark.parametrize("guess, secret, marks", [
    ("speed", "abide", "0 0 1 0 1"),  # the second e finds none left
    ("llama", "hello", "1 1 0 0 0"),  # two l's in the secret: both yellow
    ("hello", "llama", "0 0 1 1 0"),
    ("eerie", "there", "1 0 1 0 2"),  # the green e is counted first
    ("there", "eerie", "0 0 1 1 2"),
    ("eerie", "eerie", "2 2 2 2 2"),
    ("geese", "eerie", "0 2 1 0 2"),  # the e at 3rd: one e left after two greens
    ("sunns", "shrub", "2 1 0 0 0"),  # the s at the end: the one s is green already
    ("abbey", "babes", "1 1 2 2 0"),
    ("salet", "cigar", "0 1 0 0 0"),
    ("crane", "nacre", "1 1 1 1 2"),
])
def test_feedback_examples(wordle, guess, secret, marks):
    assert " ".join(map(str, word_marks(guess, secret))) == marks
    assert marks_by_count(guess, secret) == word_marks(guess, secret)
    if secret in wordle.words[:wordle.n_secrets] and guess in wordle.words:
        g, s = wordle.parse_code(guess), wordle.parse_code(secret)
        assert wordle.format_feedback(wordle.feedback(g, s)) == marks
        assert wordle.format_feedback(int(wordle.feedback_matrix()[g, s])) == marks


@pytest.mark.parametrize("earlier, secret, guess, hint", [
    ("salet", "cheek", "crony", "letter 4 must be E"),  # a green first
    ("salet", "cigar", "crony", "it must contain A"),  # a yellow
    ("geese", "eerie", "eject", "letter 2 must be E"),
    ("llama", "hello", "lucky", "it must contain L 2 times"),  # two yellows of one letter
    ("salet", "cheek", "cheek", None),  # every hint kept
    ("salet", "cigar", "cigar", None),
])
def test_hard_mode_names_the_hint_a_guess_drops(wordle, earlier, secret, guess, hint):
    marks = word_marks(earlier, secret)
    assert words_module.dropped_hint(earlier, marks, guess) == hint
    assert words_module.keeps_hints(earlier, marks, guess) == (hint is None)


def test_matrix_equals_plain_rule_on_every_pair_of_a_small_alphabet():
    words = ["".join(w) for w in itertools.product("abc", repeat=3)]
    game = word_game(words[:9], words, "abc")
    matrix = game.feedback_matrix()
    assert matrix.shape == (27, 9)
    for g, s in itertools.product(range(27), range(9)):
        guess, secret = game.words[g], game.words[s]
        assert word_marks(guess, secret) == marks_by_count(guess, secret)
        assert matrix[g, s] == game.feedback(g, s), (guess, secret)


def test_matrix_equals_plain_rule_on_random_pairs(wordle):
    matrix = wordle.feedback_matrix()
    assert matrix.shape == (12972, 2315) and matrix.dtype == np.uint8
    rng = np.random.default_rng(31)
    for g, s in zip(rng.integers(0, 12972, 4000), rng.integers(0, 2315, 4000), strict=True):
        assert matrix[g, s] == wordle.feedback(int(g), int(s))
    assert (np.diagonal(matrix[:2315]) == wordle.win).all()
    assert (matrix != wordle.win).sum() == 12972 * 2315 - 2315


def test_feedback_ids_and_notation(wordle):
    assert wordle.win == 242 and wordle.format_feedback(wordle.win) == "2 2 2 2 2"
    assert wordle.parse_feedback("2 0 1 0 0") == 2 * 81 + 9
    assert wordle.format_squares(2 * 81 + 9) == "🟩⬛🟨⬛⬛"
    for bad in ("20100", "2 0 1 0", "2 0 1 0 3", "02 0 1 0 0", "2  0 1 0 0", " 2 0 1 0 0",
                "g y b b b", "2 0 1 0 0 0"):
        with pytest.raises(GameError):
            wordle.parse_feedback(bad)


# --- the lists and codes ------------------------------------------------------------------------

def test_wordle_lists(wordle):
    assert (wordle.n_secrets, wordle.n_codes) == (2315, 12972)
    assert wordle.spec == "wordle" and wordle.letters == 5
    answers = wordle.words[:2315]
    assert answers == sorted(answers) and wordle.words[2315:] == sorted(wordle.words[2315:])
    assert len(set(wordle.words)) == 12972
    assert wordle.is_answer(wordle.parse_code("cigar"))
    salet = wordle.parse_code("salet")
    assert salet >= 2315 and not wordle.is_answer(salet)
    assert wordle.format_code(salet) == "salet"
    # the number of different answers an opening gets (published: trace 150, salet 148)
    matrix = wordle.feedback_matrix()
    assert len(np.unique(matrix[wordle.parse_code("trace")])) == 150
    assert len(np.unique(matrix[salet])) == 148


def test_codes_read_leniently_or_strictly(wordle):
    assert wordle.parse_code("  SaLeT ") == wordle.parse_code("salet", strict=True)
    for bad, strict in (("Salet", True), (" salet", True), ("salets", False), ("sa1et", False),
                        ("xxxxx", False), ("", False), ("sälet", False)):
        with pytest.raises(GameError):
            wordle.parse_code(bad, strict=strict)
    assert "5-letter word" in wordle.code_rule()


def test_base_helpers_on_a_rectangular_matrix(wordle):
    game = word_game(["cat", "hat", "mat", "bat"], ["chm", "cat", "zzz"], "tiny")
    assert game.words == ["bat", "cat", "hat", "mat", "chm", "zzz"]
    assert (game.n_secrets, game.n_codes) == (4, 6)
    assert list(game.first_guesses()) == list(range(6))
    assert game.symmetry().code_perms.shape == (1, 6)
    parts = game.parts(4, np.arange(4))  # chm tells all four apart
    assert sorted(len(p) for p in parts.values()) == [1, 1, 1, 1]
    assert list(game.parts(1, np.arange(4))) == [game.parse_feedback("0 2 2")]
    dense, transposed, win, count = game.answer_matrices()
    assert dense.shape == (6, 4) and transposed.shape == (4, 6)
    assert (transposed == dense.T).all() and dense[1, 1] == win
    assert game.feedback_rows(np.array([4, 5])).shape == (2, 4)
    assert list(game.feedback_classes()) == sorted(np.unique(game.feedback_matrix()))
    assert game.describe()["secrets"] == 4 and game.describe()["codes"] == 6


# --- spec forms and bad lists ---------------------------------------------------------------------

def test_word_spec_forms(tmp_path):
    answers = tmp_path / "Answers.txt"
    answers.write_text("hat\n\n  cat \nbat\n")
    guesses = tmp_path / "guesses.txt"
    guesses.write_text("cat\nzzz\n")
    game = parse_game(f"words:{answers}")
    assert game.words == ["bat", "cat", "hat"] and game.spec == f"words:{answers}"
    game = parse_game(f" WORDS:{answers},{guesses}")
    assert game.words == ["bat", "cat", "hat", "zzz"] and game.n_secrets == 3
    assert read_word_list(str(answers)) == ["hat", "cat", "bat"]
    answers.write_bytes(b"\xef\xbb\xbfhat\r\ncat\r\nbat\r\n")  # as Notepad writes it
    assert read_word_list(str(answers)) == ["hat", "cat", "bat"]
    tree = tmp_path / "t.json"  # a JSON file is no word list: a tree or a checkpoint
    tree.write_bytes(b"{}")
    for spec, words in (("words", "give the word-list files"), ("words:", "give the"),
                        ("wordle:", "no parameters"), ("Wordle:x", "no parameters"),
                        (f"words:{answers},{guesses},{guesses}", "two file paths"),
                        (f"words:{answers},", "two file paths"),
                        (f"words:{tmp_path}/none.txt", "cannot be read"),
                        (str(answers), f"for a word list write words:{answers} "),
                        (str(tree), "`moo verify FILE` describes a tree"),
                        ("x" * 5000, "unknown game")):  # too long a file name: no OSError
        with pytest.raises(GameError, match=words):
            parse_game(spec)


@pytest.mark.parametrize("text, message", [
    ("", "no words"),
    ("\n  \n", "no words"),
    ("cat\nhorse\n", "line 2: 'horse' has 5 letters where line 1's 'cat' has 3"),
    ("cat\n\nhat\ncat\n", "line 4: 'cat' repeats line 1"),
    ("cat\nHat\n", "line 2: 'Hat' has 'H': words are the letters a-z alone \\(write words in"),
    ("cat\nh4t\n", "line 2: 'h4t' has '4'"),
    ("cat\nhät\n", "line 2: 'hät' has 'ä'"),
    ("cat\nh-t\n", "line 2: 'h-t' has '-'"),
    ("cat\nh t\n", "line 2: 'h t' has ' '"),
    ("new york\n", "line 1: 'new york' has ' '"),  # said before its length
    ("better\nbitter\n", "line 1: a word of 6 letters: words of at most 5 letters are"),
    ("cat\n" + "x" * 100_000 + "\n", "line 2: a word of 100,000 letters: words of at most 5 "),
])
def test_bad_lists_are_refused_with_one_line(tmp_path, text, message):
    path = tmp_path / "list.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GameError, match=message) as error:
        read_word_list(str(path))
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    assert len(str(error.value)) < 200 + len(str(path))


def test_a_long_word_in_a_tree_file_is_a_defect(tmp_path, capsys):
    """A word of 100,000 letters in a version 2 tree: Python's limit on converting long numbers
    to text was the message (3^100000), with exit 2 and a ValueError from the API."""
    from optimizer.cli import main
    from optimizer.formats.tree_file import read_tree, write_tree
    from optimizer.search.build import build
    from optimizer.search.request import Request
    from optimizer.tree import TreeError

    path = tmp_path / "t.json"
    write_tree(build(Request(word_game(["cat", "hat", "hit"]))), path)
    data = orjson.loads(path.read_bytes())
    data["words"]["answers"][0] = "x" * 100_000
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(TreeError, match="a word of 100,000 letters"):
        read_tree(path)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("DEFECT: ") and "at most 5 letters" in out and len(out) < 400


@pytest.mark.parametrize("kind", ["tree", "checkpoint"])
def test_a_file_naming_another_file_as_its_word_list_does_not_show_it(tmp_path, kind, capsys):
    """A version 1 tree or a checkpoint names its word lists by path: one naming a file that is
    no word list (/etc/shadow, /proc/self/environ) had its first line quoted in the error."""
    from optimizer.cli import main

    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr\n")  # a line short enough to be quoted
    path = tmp_path / f"{kind}.json"
    if kind == "tree":
        data = {"format": "decision-tree", "version": 1, "game": f"words:{secret}",
                "objective": "total", "guesses": "any", "optimal": False,
                "stats": {"secrets": 1, "height": 1, "total": 1, "histogram": {"1": 1}},
                "root": {"guess": "cat", "next": {}}}
        command = ["verify", str(path)]
    else:
        data = {"format": "moo-checkpoint", "version": 2, "game": f"words:{secret}",
                "guesses": "any"}
        command = ["checkpoint", "show", str(path)]
    path.write_bytes(orjson.dumps(data))
    main(command)
    said = capsys.readouterr()
    assert "s3cr" not in said.out + said.err
    assert "not a list of words this program reads" in said.out + said.err
    with pytest.raises(GameError, match="'s3cr' has '3'"):  # named on the command line: shown
        parse_game(f"words:{secret}")


def test_bad_lists_in_memory_and_together(tmp_path, monkeypatch):
    with pytest.raises(GameError, match="answers, word 2: 'CAT' has 'C'"):
        word_game(["hat", "CAT"])
    with pytest.raises(GameError, match="guesses, word 3: 'hat' repeats word 1"):
        word_game(["hat"], ["hat", "cat", "hat"])
    with pytest.raises(GameError, match="no words"):
        word_game([], ["cat"])
    with pytest.raises(GameError, match="have 4 letters, those of answers 3"):
        word_game(["hat"], ["cats"])
    answers, guesses = tmp_path / "a.txt", tmp_path / "g.txt"
    answers.write_text("hat\n")
    guesses.write_text("cats\n")
    with pytest.raises(GameError, match="g.txt have 4 letters"):
        parse_game(f"words:{answers},{guesses}")
    # too many words: refused by the sizes alone, before any matrix is built
    monkeypatch.setattr(words_module, "MAX_CELLS", 20)
    monkeypatch.setattr(WordGame, "_build_matrix", lambda self: pytest.fail("built"))
    with pytest.raises(GameError, match="7 allowed guesses x 3 answers is 21 feedback bytes"):
        word_game(["aa", "ab", "ac"], ["ba", "bb", "bc", "ca"])
    assert word_game(["aa", "ab", "ac"], ["ba", "bb", "bc"]).n_codes == 6


def test_a_game_of_answers_alone_round_trips_through_a_tree_file(tmp_path):
    """`words:A,A` (no guess beyond the answers) is written with an empty guess list, which
    must read back (`moo verify` once called it "no words")."""
    from optimizer.cli import main as moo

    answers = tmp_path / "a.txt"
    answers.write_text("bat\ncat\nhat\nmat\nrat\n")
    out = tmp_path / "t.json"
    assert moo(["build", f"words:{answers},{answers}", "--objective", "total", "-o", str(out),
                "--quiet"]) == 0
    assert moo(["verify", str(out)]) == 0
    assert word_game(["hat", "cat"], []).words == ["cat", "hat"]
    from optimizer.formats.tree_file import read_tree
    from optimizer.tree import TreeError

    data = orjson.loads(out.read_bytes())
    data["words"]["answers"].append("bat")  # the defect is in 'words', not in 'game'
    out.write_bytes(orjson.dumps(data))
    with pytest.raises(TreeError, match=r": 'words': words answers, word 6: 'bat' repeats "):
        read_tree(out)


def test_word_list_files_are_read_again_at_each_parse(tmp_path):
    """The spec names files, not words: a changed file is a changed game (a cached game once
    hid the change from a checkpoint's check of its lists)."""
    answers = tmp_path / "a.txt"
    answers.write_text("bat\ncat\n")
    first = parse_game(f"words:{answers}")
    answers.write_text("bat\ncat\nhat\n")
    second = parse_game(f"words:{answers}")
    assert first.n_secrets == 2 and second.n_secrets == 3 and first.digest != second.digest
    assert parse_game("wordle") is parse_game("wordle")  # the package's lists: kept


# --- replies people type --------------------------------------------------------------------------

def test_replies(wordle):
    expected = wordle.parse_feedback("2 1 0 0 0")
    for text in ("gybbb", "GYBBB", "gyxx.", "21000", "2 1 0 0 0", " 2,1,0,0,0 ", "[2 1 0 0 0]",
                 "🟩🟨⬛⬛⬛", "🟩🟨⬜⬜⬛", "🟩\ufe0f🟨\ufe0f⬛\ufe0f⬛\ufe0f⬛\ufe0f",
                 "🟧🟦⬛⬛⬛", "g y b b b"):
        assert read_reply(wordle, text) == expected, text
    assert read_reply(wordle, "w") == read_reply(wordle, "ggggg") == wordle.win
    assert read_reply(wordle, "none") == 0
    for text, message in (("gyb", "has 3 marks: give 5"), ("gybbbb", "has 6 marks"),
                          ("3 1 0 0 0", "'3' is not a mark"), ("gybbq", "'q' is not a mark"),
                          ("🟥🟨⬛⬛⬛", "is not a mark"), ("21 0 0 0", "written together"),
                          ("", "has 0 marks"), ("２1000", "is not a mark")):
        with pytest.raises(GameError, match=message):
            read_reply(wordle, text)
    assert read_reply(wordle, example_reply(wordle)) == expected
    assert "gybbb" in reply_forms(wordle) and "21000" in reply_forms(wordle)


@pytest.mark.parametrize("letters", [1, 2, 5])
def test_the_example_answers_shown_are_answers(letters):
    """Every example of the player's and the page's instructions reads as one answer (a one-
    letter game's said gy, 21 or two squares: two marks, refused if typed)."""
    from optimizer.cli.page_games import answer_label
    from optimizer.cli.play_text import how_to_answer
    from optimizer.games.reply import word_example

    words = ["".join(w) for w in itertools.islice(itertools.product("abc", repeat=letters), 3)]
    game = word_game(words)
    example = word_example(letters)
    assert len({read_reply(game, form) for form in example.values()}) == 1
    assert len(example["letters"]) == letters
    for text in (how_to_answer(game), answer_label(game)):
        assert example["letters"] in text and example["digits"] in text
        assert example["squares"] in text
    assert f"e.g. {example['letters']}, {example['digits']} or {example['squares']};" in \
        how_to_answer(game)


def test_a_one_letter_game_reads_y_as_a_mark():
    game = word_game(["a", "b", "c"], ["d"], "letters")
    assert read_reply(game, "y") == 1 and read_reply(game, "g") == game.win
    assert read_reply(game, "yes") == game.win


# --- the plain exhaustive search on word games ----------------------------------------------------

def best_total_tree(game, total, cands, depth):
    """A tree of least total (by the oracle's values), as {guess: {feedback: subtree}}."""
    want = total(cands, depth)
    for g in range(game.n_codes):
        parts: dict[int, list[int]] = {}
        for s in cands:
            if s != g:
                parts.setdefault(int(game.feedback_matrix()[g, s]), []).append(s)
        if len(parts) == 1 and g not in cands:
            continue
        value = len(cands) + sum(total(frozenset(p), depth - 1) for p in parts.values())
        if value == want:
            return g, {f: best_total_tree(game, total, frozenset(p), depth - 1)
                       for f, p in parts.items()}
    raise AssertionError("no guess reaches the oracle's value")


def replay(game, tree) -> list[int]:
    """The number of guesses each secret takes, feedback by the plain rule."""
    depths = []
    for secret in range(game.n_secrets):
        (guess, children), depth = tree, 1
        while guess != secret:
            guess, children = children[game.feedback(guess, secret)]
            depth += 1
        depths.append(depth)
    return depths


def test_oracle_on_a_game_won_by_a_word_that_is_no_answer():
    """bat cat hat mat: an answer guessed tells the three others nothing (each gets 0 2 2), so
    guessing answers only takes 1 + 2 + 3 + 4 = 10 guesses and 4 at worst; chm, no answer,
    tells all four apart (0 0 0, 2 0 0, 0 1 0, 0 0 1): 8 and 2, and no tree does better (an
    answer first leaves three in one part: at least 1 + 3 * 3)."""
    game = word_game(["bat", "cat", "hat", "mat"], ["chm"], "tiny")
    assert plain_optimum(game, "consistent") == (4, 10, 10)
    assert plain_optimum(game, "any") == (2, 8, 8)
    _, total = plain_values(game, "any")
    tree = best_total_tree(game, total, frozenset(range(4)), 4)
    assert game.format_code(tree[0]) == "chm" and replay(game, tree) == [2, 2, 2, 2]


IGHT = ["fight", "light", "might", "night", "right", "sight", "tight", "wight"]
OTHERS = ["flows", "marsh", "worms", "wrist", "snowy", "frown", "lemon", "north", "smelt",
          "twirl", "glint", "swift"]


def test_oracle_on_the_ight_trap():
    """Eight answers that differ in the first letter alone: guessing answers only finds one
    more each guess (1 + 2 + ... + 8 = 36, height 8); twelve other words cut that down. The
    least total is at least 2 * 8 - 1 = 15 and at most what any tree gives; the tree of the
    least total replays to it by the plain rule."""
    game = word_game(IGHT, OTHERS, "ight")
    assert (game.n_secrets, game.n_codes) == (8, 20)
    assert plain_optimum(game, "consistent") == (8, 36, 36)
    height, total, total_in_height = plain_optimum(game, "any")
    assert 2 <= height <= 4 and 15 <= total <= total_in_height <= 36
    _, values = plain_values(game, "any")
    tree = best_total_tree(game, values, frozenset(range(8)), 8)
    depths = replay(game, tree)
    assert sum(depths) == total and max(depths) >= height
    # no answer is a better opening than the best other word: each tells the others nothing
    for opening in range(8):
        assert len(game.parts(opening, np.arange(8))) == 1
    # the same answers with fewer allowed words can only cost more
    fewer = word_game(IGHT, OTHERS[:4], "ight-4")
    h4, t4, _ = plain_optimum(fewer, "any")
    assert h4 >= height and t4 >= total
    # a part of n secrets costs at least 2n - 1 guesses after the opening (one found at once,
    # the others later): an opening of k parts costs at least 8 + 16 - k; an answer, 8 + 13
    most = max(len(game.parts(g, np.arange(8))) for g in range(game.n_codes))
    assert total >= min(8 + 16 - most, 8 + 13)
    assert (height, total) == (3, 20)  # the oracle's values, pinned against regressions
