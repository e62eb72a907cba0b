"""Game rules against the seeds' worked examples, the numba matrix against a plain rule, and
the code and feedback notation of the tree format."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from optimizer.games import GameError, parse_game
from optimizer.games.reply import read_reply

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

# --- an independent statement of the rules ----------------------------------------------------


def digit_score(guess: tuple[int, ...], secret: tuple[int, ...]) -> tuple[int, int]:
    """Bulls: same symbol, same place. Cows: common symbols (with multiplicity) minus bulls."""
    bulls = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(guess.count(x), secret.count(x)) for x in set(guess))
    return bulls, common - bulls


def squares(text: str) -> list[tuple[int, int]]:
    """'A1 C3' -> [(column, row)], A1 being the upper left square."""
    return [(ord(name[0]) - ord("A"), int(name[1:]) - 1) for name in text.split()]


def battleship_score(guess: str, ships: str) -> tuple[int, int, int]:
    """Each guessed square counts once, by its king-move distance to the closest ship."""
    counts = [0, 0, 0]
    targets = squares(ships)
    for column, row in squares(guess):
        d = min(max(abs(column - c), abs(row - r)) for c, r in targets)
        if d <= 2:
            counts[d] += 1
    return counts[0], counts[1], counts[2]


def plain_score(game, guess: int, secret: int) -> tuple[int, ...]:
    if game.spec.startswith("battleship"):
        return battleship_score(game.format_code(guess), game.format_code(secret))
    codes = game.codes
    return digit_score(tuple(codes[guess].tolist()), tuple(codes[secret].tolist()))


def score(spec: str, guess: str, secret: str) -> tuple[int, ...]:
    game = parse_game(spec)
    return game.feedback_counts(game.feedback(game.parse_code(guess), game.parse_code(secret)))


# --- seeds' worked examples ----------------------------------------------------------------------


def test_seed_004_bulls_and_cows():
    assert score("bulls-cows", "1234", "4271") == (1, 2)


def test_seed_002_bm_count():
    assert score("bullets-maggots", "1212", "2132") == (1, 2)


SEED_002_GAMES = {
    # bm_solver(3420) and bm_solver(55)
    "3420": [("0851", (0, 1)), ("8486", (1, 0)), ("4475", (1, 0)), ("1376", (0, 1)),
             ("9430", (2, 1)), ("3420", (4, 0))],
    "0055": [("0810", (1, 1)), ("1852", (1, 0)), ("6808", (0, 1)), ("1470", (0, 1)),
             ("0055", (4, 0))],
    # play_maker() with the code 1234, and the lying session's true answers
    "1234": [("4408", (0, 1)), ("0966", (0, 0)), ("8252", (1, 0)), ("7247", (1, 1)),
             ("7154", (1, 1)), ("1234", (4, 0)), ("7147", (0, 2)), ("4881", (0, 2)),
             ("1496", (1, 1)), ("5214", (2, 1)), ("3514", (1, 2))],
}


@pytest.mark.parametrize("secret", sorted(SEED_002_GAMES))
def test_seed_002_transcripts(secret):
    for guess, expected in SEED_002_GAMES[secret]:
        assert score("bullets-maggots", guess, secret) == expected, guess


SEED_003_TABLE = [
    ("H1 B2 D3", "B3 C3 H3", (0, 2, 1)),
    ("H1 B2 D3", "B1 A2 H3", (0, 2, 1)),
    ("H1 B2 D3", "B2 H2 H1", (2, 1, 0)),
    ("A1 D2 B3", "A3 D2 H1", (1, 1, 0)),
    ("A1 D2 B3", "H4 G3 H2", (0, 0, 0)),
    ("A1 D2 B3", "D2 B3 A1", (3, 0, 0)),
]


@pytest.mark.parametrize("ships,guess,expected", SEED_003_TABLE)
def test_seed_003_table(ships, guess, expected):
    assert score("battleship", guess, ships) == expected
    assert battleship_score(guess, ships) == expected  # the test's own rule agrees too


def test_seed_003_win_is_three_exact():
    game = parse_game("battleship")
    secret = game.parse_code("D2 B3 A1")
    assert game.feedback(secret, secret) == game.win
    assert game.format_feedback(game.win) == "3 0 0"


# Seed 001, secret 3 2 9 0: each guess, its score in letters, and the choices left after it.
SEED_001_GAMES = [
    [("6540", "b", 480), ("7341", "c", 126), ("9527", "cc", 23), ("6912", "cc", 1)],
    [("4079", "cc", 1260), ("2741", "c", 312), ("5607", "c", 72), ("9584", "c", 12),
     ("0293", "bbcc", 3), ("0923", "cccc", 1)],
]


@pytest.mark.parametrize("spec", ["bulls-cows:4x10", "moo:10,10,10,10"])
@pytest.mark.parametrize("rounds", SEED_001_GAMES)
def test_seed_001_scores_and_choices_left(spec, rounds):
    game = parse_game(spec)
    secret = game.parse_code("3 2 9 0")
    candidates = range(game.n_codes)
    for guess_text, letters, left in rounds:
        guess = game.parse_code(guess_text)
        reply = game.feedback(guess, secret)
        assert game.feedback_counts(reply) == (letters.count("b"), letters.count("c"))
        candidates = [s for s in candidates if game.feedback(guess, s) == reply]
        assert len(candidates) == left, guess_text
    assert candidates == [secret]


# --- numba matrix against the plain rule ---------------------------------------------------------

MATRIX_GAMES = [
    "bulls-cows:4x10", "bulls-cows:3x5", "mastermind:4x6", "mastermind:4x10",
    "moo:3,4,5", "moo:10,11,12", "battleship:2x4x2", "battleship:4x8x3",
]


def _pairs(n: int, count: int, seed: int) -> list[tuple[int, int]]:
    if n * n <= count:
        return [(g, s) for g in range(n) for s in range(n)]
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, n, size=(count, 2)).tolist()
    return [(g, s) for g, s in pairs] + [(i, i) for i in rng.integers(0, n, 20).tolist()]


@pytest.mark.parametrize("spec", MATRIX_GAMES)
def test_matrix_matches_plain_rule(spec):
    game = parse_game(spec)
    matrix = game.feedback_matrix()
    assert matrix.shape == (game.n_codes, game.n_codes)
    assert matrix.dtype == np.uint8
    for g, s in _pairs(game.n_codes, 4000, seed=len(spec)):
        expected = plain_score(game, g, s)
        assert game.feedback_counts(int(matrix[g, s])) == expected, (spec, g, s)
        assert game.feedback(g, s) == matrix[g, s], (spec, g, s)


@pytest.mark.parametrize("spec", MATRIX_GAMES)
def test_win_only_on_the_diagonal(spec):
    game = parse_game(spec)
    matrix = game.feedback_matrix()
    wins = np.argwhere(matrix == game.win)
    assert len(wins) == game.n_codes
    assert (wins[:, 0] == wins[:, 1]).all()


@pytest.mark.parametrize("spec", ["mastermind:4x6", "bulls-cows:4x7", "moo:3,4,5",
                                  "mastermind:3x5", "bulls-cows:2x3"])
def test_small_games_matrix_equals_the_kernels(spec):
    """Small digit games build their matrix with numpy (no compiled kernel to load): the same
    matrix, entry for entry, as the kernel that builds the large ones."""
    from optimizer.games.digits import SMALL_MATRIX, small_feedback_matrix
    from optimizer.kernels.feedback import digit_feedback_matrix

    game = parse_game(spec)
    assert game.n_codes <= SMALL_MATRIX
    args = game.codes, game.n_symbols, game.base
    expected = digit_feedback_matrix(*args)
    assert np.array_equal(small_feedback_matrix(*args), expected)
    assert np.array_equal(game.feedback_matrix(), expected)


# --- sizes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec,count", [
    ("bulls-cows", 5040), ("hells", 5040), ("mastermind", 1296), ("mastermind:4x6", 1296),
    ("bullets-maggots", 10000), ("moo:10,11,12", 1000), ("moo", 1000), ("moo:3,4,5", 27),
    ("battleship", 4960), ("battleship:4x8x3", 4960), ("bulls-cows:3x5", 60),
    ("battleship:2x4x2", 28),
])
def test_code_counts(spec, count):
    assert parse_game(spec).n_codes == count


def test_spec_is_canonical():
    assert parse_game("bullets-maggots").spec == "mastermind:4x10"
    assert parse_game("Bulls-Cows").spec == "bulls-cows:4x10"
    assert parse_game("battleship").spec == "battleship:4x8x3"


# --- code notation -------------------------------------------------------------------------

ALL_GAMES = [
    "bulls-cows", "bulls-cows:3x5", "mastermind", "bullets-maggots", "mastermind:2x12",
    "moo:10,11,12", "moo:3,4,5", "battleship", "battleship:2x4x2",
]


@pytest.mark.parametrize("spec", ALL_GAMES)
def test_every_code_round_trips(spec):
    game = parse_game(spec)
    texts = [game.format_code(i) for i in range(game.n_codes)]
    assert len(set(texts)) == game.n_codes
    for i, text in enumerate(texts):
        assert game.parse_code(text) == i


@pytest.mark.parametrize("spec,first,last", [
    ("bulls-cows", "0123", "9876"),
    ("mastermind", "0000", "5555"),
    ("moo:10,11,12", "0 1 2", "9 10 11"),
    ("mastermind:2x12", "0 0", "11 11"),
    ("battleship", "A1 A2 A3", "H2 H3 H4"),
])
def test_codes_in_lexicographic_order(spec, first, last):
    game = parse_game(spec)
    assert game.format_code(0) == first
    assert game.format_code(game.n_codes - 1) == last


@pytest.mark.parametrize("spec,typed,canonical", [
    ("bulls-cows", "0 1 2 3", "0123"),
    ("bulls-cows", "0,1,2,3", "0123"),
    ("bulls-cows", " 3290 ", "3290"),
    ("moo:10,11,12", "0,10,11", "0 10 11"),
    ("moo:10,11,12", "  9   10 11 ", "9 10 11"),
    ("mastermind:2x12", "11, 3", "11 3"),
    ("battleship", "H2 C3 A1", "A1 C3 H2"),
    ("battleship", "h2, c3, a1", "A1 C3 H2"),
    ("battleship", "B1 A2 A1", "A1 A2 B1"),  # by column, then row
    ("battleship", "A3 A1 B2", "A1 A3 B2"),
])
def test_code_notation(spec, typed, canonical):
    game = parse_game(spec)
    assert game.format_code(game.parse_code(typed)) == canonical


def test_battleship_squares_are_column_then_row():
    game = parse_game("battleship")
    code = game.parse_code("A1 C3 H2")
    assert squares(game.format_code(code)) == [(0, 0), (2, 2), (7, 1)]


@pytest.mark.parametrize("spec,text,fragment", [
    ("bulls-cows", "1123", "all different"),
    ("bulls-cows", "0012", "all different"),
    ("bulls-cows", "12345", "not a code"),
    ("bulls-cows", "123", "not a code"),
    ("bulls-cows", "12a4", "not a code"),
    ("bulls-cows", "", "not a code"),
    ("mastermind", "0006", "0 to 5"),
    ("moo:10,11,12", "10 1 2", "below 10,11,12"),
    ("moo:10,11,12", "0 1 12", "below 10,11,12"),
    ("moo:10,11,12", "0 0 1", "all different"),
    ("battleship", "I1", "not a square"),
    ("battleship", "A5", "not a square"),
    ("battleship", "A0 B1 C1", "not a square"),
    ("battleship", "A1 A1 B2", "different"),
    ("battleship", "A1 B2", "3 different squares"),
])
def test_invalid_codes(spec, text, fragment):
    game = parse_game(spec)
    with pytest.raises(GameError) as info:
        game.parse_code(text)
    assert fragment in str(info.value)


@pytest.mark.parametrize("spec,fragment", [
    ("bulls-cows:5x3", "5 distinct symbols cannot come from 3"),
    ("battleship:4x8x0", "ships"),
    ("battleship:4x8", "battleship:RxCxK"),
    ("chess", "unknown game"),
    ("mastermind:4y6", "expected"),
    ("moo:10,x", "whole numbers"),
    ("moo:3,3,3,3", "no code"),
    ("bulls-cows:4x40", "symbols"),
])
def test_impossible_specs(spec, fragment):
    with pytest.raises(GameError) as info:
        parse_game(spec)
    assert fragment in str(info.value)


def test_a_bad_game_is_bad_input_in_one_line(capsys):
    """GameError reaches the command line as bad input (status 2, one line), not a traceback."""
    from optimizer.cli import app as cli

    assert cli.main(["info", "mastermind:0x6"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("moo: error: ") and len(err.splitlines()) == 1


# --- feedback notation ---------------------------------------------------------------------


def _valid_feedback(game) -> list[int]:
    return sorted({game.feedback(g, s) for g, s in _pairs(game.n_codes, 3000, seed=1)})


@pytest.mark.parametrize("spec", ALL_GAMES)
def test_feedback_round_trips(spec):
    game = parse_game(spec)
    for fid in _valid_feedback(game):
        text = game.format_feedback(fid)
        assert text == " ".join(str(c) for c in game.feedback_counts(fid))
        assert game.parse_feedback(text) == fid


@pytest.mark.parametrize("text", [
    "1,2", "1b2c", "(1, 2)", " 1 2", "1 2 ", "1  2", "01 2", "+1 2", "1 2.0", "\uff11 \uff12",
    "\u0661 2", "12", "1\t2", "1 " + "0" * 5000,
])
def test_tree_notation_of_feedback_is_strict(text):
    """Tree files hold feedback exactly as format_feedback writes it: one reading, no guessing."""
    with pytest.raises(GameError):
        parse_game("bulls-cows").parse_feedback(text)


@pytest.mark.parametrize("spec,text", [
    ("bulls-cows", "0 1 2 3"), ("bulls-cows", " 0123"), ("mastermind", "0 0 1 2"),
    ("bulls-cows", "\uff10\uff11\uff12\uff13"), ("moo:10,11,12", "0,10,11"),
    ("moo:10,11,12", "0  10 11"), ("battleship", "C3 A1 H2"), ("battleship", "a1 c3 h2"),
    ("battleship", "A1,C3,H2"),
])
def test_tree_notation_of_codes_is_strict(spec, text):
    game = parse_game(spec)
    if text.isascii():
        game.parse_code(text)  # a person may type it so
    with pytest.raises(GameError, match="notation|not a code"):
        game.parse_code(text, strict=True)


@pytest.mark.parametrize("spec,text", [
    ("bulls-cows", "\uff10\uff11\uff12\uff13"), ("bulls-cows", "\u0660\u0661\u0662\u0663"),
    ("bulls-cows", "0 1 2 \u00b3"), ("moo:10,11,12", "1" * 5000), ("bulls-cows", "1" * 5000),
    ("battleship", "A\u0661 B1 C1"), ("battleship", "A" + "1" * 5000),
])
def test_codes_in_other_scripts_or_huge_are_refused(spec, text):
    """Only ASCII digits are symbols (int() would take others, or fail on thousands of digits
    with a ValueError that is no GameError)."""
    with pytest.raises(GameError):
        parse_game(spec).parse_code(text)


@pytest.mark.parametrize("spec", [
    "mastermind:4x" + "9" * 5000, "moo:" + "1" * 5000, "moo:3,\u0664",
    "battleship:4x8x" + "3" * 5000, "bulls-cows:\uff14x10",
])
def test_specs_with_huge_or_foreign_numbers_are_refused(spec):
    with pytest.raises(GameError):
        parse_game(spec)


@pytest.mark.parametrize("spec,typed", [
    ("bulls-cows", "1"), ("bulls-cows", "1 2 3"), ("bulls-cows", "5 0"), ("bulls-cows", "3 2"),
    ("bulls-cows", "abc"), ("bulls-cows", ""), ("battleship", "1 2"), ("battleship", "2 1 1"),
])
def test_bad_feedback(spec, typed):
    with pytest.raises(GameError):
        parse_game(spec).parse_feedback(typed)


# --- feedback as people type it ------------------------------------------------------------------


@pytest.mark.parametrize("spec,typed,counts", [
    ("bulls-cows", "1 2", (1, 2)), ("bulls-cows", "1,2", (1, 2)), ("bulls-cows", "(1, 2)", (1, 2)),
    ("bulls-cows", " 1 ,  2 ", (1, 2)), ("bulls-cows", "[1 2]", (1, 2)),
    ("bulls-cows", "12", (1, 2)), ("bulls-cows", "1b2c", (1, 2)), ("bulls-cows", "b1 c2", (1, 2)),
    # tags are read by their names, in any order and case
    ("bulls-cows", "2c1b", (1, 2)), ("bulls-cows", "2C 1B", (1, 2)),
    ("bulls-cows", "2 cows 1 bull", (1, 2)), ("bulls-cows", "bulls: 1, cows: 2", (1, 2)),
    ("bulls-cows", "2c", (0, 2)), ("bulls-cows", "bbc", (2, 1)), ("bulls-cows", "c", (0, 1)),
    ("moo:10,11,12", "1c", (0, 1)),
    ("mastermind", "2 white 1 black", (1, 2)), ("mastermind", "1B2W", (1, 2)),
    ("mastermind", "2w 1b", (1, 2)), ("mastermind", "w", (4, 0)),
    ("bullets-maggots", "1 bullet 2 maggots", (1, 2)),
    ("battleship", "0 2 1", (0, 2, 1)), ("battleship", "021", (0, 2, 1)),
    ("battleship", "0e 2o 1t", (0, 2, 1)), ("battleship", "1 two 2 one", (0, 2, 1)),
    ("battleship", "2 one-away, 1 two-away", (0, 2, 1)), ("battleship", "exact 1", (1, 0, 0)),
    ("battleship", "-", (0, 0, 0)), ("battleship", "W", (3, 0, 0)),
])
def test_typed_feedback(spec, typed, counts):
    game = parse_game(spec)
    assert game.feedback_counts(read_reply(game, typed)) == counts


@pytest.mark.parametrize("spec,typed,fragment", [
    ("bulls-cows", "-1 2", "'-' is not understood"), ("bulls-cows", "1e2", "needs a name"),
    ("bulls-cows", "1 2 apples", "needs a name"), ("bulls-cows", "1.0 2", "'.' is not"),
    ("bulls-cows", "1" + "0" * 5000, "should be 2 numbers"),
    ("bulls-cows", "1b " + "0" * 4999 + "7c", "between 0 and 4"),
    ("bulls-cows", "\uff11 \uff12", "digits 0-9"), ("bulls-cows", "\u0661 2", "digits 0-9"),
    ("bulls-cows", "1b 2", "needs a name"), ("bulls-cows", "1b 1b", "bulls given twice"),
    ("bulls-cows", "1 bull and 2 cows", "needs a name"), ("bulls-cows", "1w 2c", "'w' names no"),
    ("bulls-cows", "1b 5c", "between 0 and 4"), ("bulls-cows", "3b 2c", "add up"),
    ("mastermind", "bw", "no numbers"), ("mastermind", "1 black 2 cows", "'cows' names no"),
    ("battleship", "1 2", "should be 3 numbers"), ("battleship", "1e 1x", "'x' names no"),
])
def test_typed_feedback_refused(spec, typed, fragment):
    with pytest.raises(GameError) as info:
        read_reply(parse_game(spec), typed)
    assert fragment in str(info.value)
    assert len(str(info.value)) < 300  # one line, even for a 5000-digit reply


# --- sizes by formula, ids that fit every board ------------------------------------------------


@pytest.mark.parametrize("spec,count", [
    ("battleship:9x14x5", "244,222,650"), ("battleship:8x8x5", "7,624,512"),
    ("battleship:9x26x5", "5,"), ("bulls-cows:8x36", "1,220,096,908,800"),
    ("mastermind:8x36", "2,821,109,907,456"), ("moo:36,36,36,36,36,36,36,36", "1,220,096,908,800"),
])
def test_too_large_games_are_refused_by_formula(spec, count):
    """The count comes from a formula: nothing is listed, so the refusal is instant and small."""
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(GameError, match=f"{count}.* codes is more than this tool handles"):
        parse_game(spec)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert seconds < 0.5 and peak < 1_000_000


@pytest.mark.parametrize("spec,last", [
    ("battleship:9x15x1", "O9"), ("battleship:9x26x1", "Z9"), ("battleship:9x26x2", "Z8 Z9"),
])
@pytest.mark.slow
def test_the_largest_boards_work(spec, last):
    """Square ids up to 233 (a 9 x 26 board) fit the codes' dtype; the numba feedback kernel,
    compiled for it, agrees with the plain rule."""
    game = parse_game(spec)
    assert game.codes.dtype == np.int16
    assert int(game.codes.max()) == game.rows * game.columns - 1
    assert game.format_code(game.n_codes - 1) == last
    assert game.parse_code(last) == game.n_codes - 1
    matrix = game.feedback_matrix()
    for g, s in _pairs(game.n_codes, 400, seed=3):
        assert game.feedback_counts(int(matrix[g, s])) == plain_score(game, g, s)


def test_info_on_the_largest_board(capsys):
    from optimizer.cli import main

    assert main(["info", "battleship:9x26x1"]) == 0
    out = capsys.readouterr().out
    assert "codes:            234" in out and "Z9" in out


def test_a_game_of_one_code_is_told_in_the_singular(tmp_path, capsys):
    """Counts of one read "1 symbol", "1 guess"; the one code is shown once as an example."""
    from optimizer.cli import main

    assert main(["info", "bulls-cows:1x1"]) == 0
    out = capsys.readouterr().out
    assert "(1 symbol from 0 to 0, all different)" in out and "example codes:    0\n" in out
    (tmp_path / "w.txt").write_text("cat\n")
    assert main(["info", f"words:{tmp_path / 'w.txt'}"]) == 0
    assert "1 allowed guess (1 possible answer and 0 other words)" in capsys.readouterr().out
    assert main(["prove", "bulls-cows:1x1", "--height", "1", "--deepest", "1"]) == 0
    out = capsys.readouterr().out
    assert "with 1 secret at depth 1" in out and "the fewest secrets needing 1 guess is 1" in out


def test_win_notation():
    assert parse_game("bulls-cows").format_feedback(parse_game("bulls-cows").win) == "4 0"
    assert parse_game("moo:10,11,12").format_feedback(parse_game("moo").win) == "3 0"
