"""Greedy strategies, their kernel, `moo compare`, the report and the seed 002 experiment."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import orjson
import pytest

from optimizer.cli import main as moo
from optimizer.cli.compare import compare, table
from optimizer.formats.tree_file import tree_to_json, write_tree
from optimizer.games import parse_game
from optimizer.kernels.heuristics import RULES, choose_guess
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.search.strategies import CONSISTENT_ONLY, HEURISTICS, STRATEGIES, grow_tree
from optimizer.tree import Tree, replay

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks

SMALL_GAMES = ("mastermind:3x3", "bulls-cows:3x5", "moo:3,4,5", "battleship:2x4x2")
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _guesses_made(node, out=None) -> list[int]:
    out = [] if out is None else out
    out.append(node.guess)
    for child in node.next.values():
        _guesses_made(child, out)
    return out


# --- every strategy gives a valid tree -----------------------------------------------------
@pytest.mark.parametrize("spec", SMALL_GAMES)
@pytest.mark.parametrize("mode", ("any", "consistent"))
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_strategy_solves_every_secret(spec, mode, name):
    game = parse_game(spec)
    tree = build(Request(game, strategy=name, guesses=mode, seed=1))
    result = replay(tree)  # replay also flags non-candidate guesses of "consistent" trees
    assert result.defects == []
    assert result.secrets == game.n_codes
    expected_mode = "consistent" if name in CONSISTENT_ONLY else mode
    assert tree.guesses == expected_mode


@pytest.mark.parametrize("spec", SMALL_GAMES + ("mastermind:1x1",))
@pytest.mark.parametrize("mode", ("any", "consistent"))
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_depths_counted_while_growing_are_the_replays(spec, mode, name):
    """The search's greedy starting points take their height and total from the depths
    grow_tree counts, not from a replay: both must agree, secret by secret."""
    game = parse_game(spec)
    depths: dict[int, int] = {}
    root = grow_tree(game, STRATEGIES[name](game, 3), mode, depths=depths)
    result = replay(Tree(game=game, root=root, objective=name, guesses=mode))
    assert result.defects == []
    assert depths == result.histogram


@pytest.mark.parametrize("spec", SMALL_GAMES)
@pytest.mark.parametrize("name", HEURISTICS)
def test_consistent_heuristics_guess_only_candidates(spec, name):
    game = parse_game(spec)
    tree = build(Request(game, strategy=name, guesses="consistent"))
    stack = [(tree.root, np.arange(game.n_codes, dtype=np.int32))]
    while stack:
        node, candidates = stack.pop()
        assert node.guess in candidates
        parts = game.parts(node.guess, candidates)
        for fid, child in node.next.items():
            stack.append((child, parts[fid]))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_same_request_same_tree(name):
    game = parse_game("mastermind:4x4")
    first = tree_to_json(build(Request(game, strategy=name, guesses="any", seed=7)))
    again = tree_to_json(build(Request(game, strategy=name, guesses="any", seed=7)))
    assert orjson.dumps(first) == orjson.dumps(again)


def test_random_consistent_follows_its_seed():
    game = parse_game("mastermind:4x6")
    trees = [tree_to_json(build(Request(game, strategy="random-consistent", seed=s)))
             for s in (1, 2)]
    assert trees[0]["root"] != trees[1]["root"]
    assert tree_to_json(build(Request(game, strategy="random-consistent", seed=2))) == trees[1]


# --- the kernel against a plain Python reference ------------------------------------------
def reference_choice(game, candidates: list[int], guesses: list[int], rule: str) -> int:
    """The documented rule written plainly: best score, then a candidate, then lowest code."""
    scored = []
    for g in guesses:
        counts: dict[int, int] = {}
        for s in candidates:
            f = game.feedback(g, s)
            counts[f] = counts.get(f, 0) + 1
        sizes = sorted(counts.values())
        if len(sizes) == 1 and g not in candidates:
            continue  # teaches nothing
        score = {
            "minimax": max(sizes),
            "expected-size": sum(c * c for c in sizes),
            "entropy": sum(c * math.log(c) for c in sizes),
            "most-parts": -len(sizes),
        }[rule]
        scored.append((score, g))
    best = min(score for score, _ in scored)
    tied = [g for score, g in scored if score <= best + 1e-9]
    return min(tied, key=lambda g: (g not in candidates, g))


@pytest.mark.slow
@pytest.mark.parametrize("spec", SMALL_GAMES + ("mastermind:4x4",))
@pytest.mark.parametrize("rule", sorted(RULES))
def test_kernel_matches_reference(spec, rule):
    game = parse_game(spec)
    _, transposed, _, n_answers = game.answer_matrices()
    rng = np.random.default_rng(3)
    every_code = np.arange(game.n_codes, dtype=np.int32)
    for size in (1, 2, 3, 5, 9, game.n_codes):
        for _ in range(4):
            candidates = np.sort(rng.choice(game.n_codes, size=min(size, game.n_codes),
                                            replace=False)).astype(np.int32)
            for guesses in (every_code, candidates):
                got = choose_guess(transposed, candidates, guesses, RULES[rule], n_answers)
                want = reference_choice(game, candidates.tolist(), guesses.tolist(), rule)
                assert got == want, (size, rule)


# --- published figures ---------------------------------------------------------------------
def test_first_consistent_published_figures():
    mastermind = replay(build(Request(parse_game("mastermind"), strategy="first-consistent")))
    assert (mastermind.total, mastermind.height) == (7471, 9)
    bulls_cows = replay(build(Request(parse_game("bulls-cows"), strategy="first-consistent")))
    assert (bulls_cows.total, bulls_cows.height) == (28024, 9)


def test_knuth_minimax_on_mastermind():
    tree = build(Request(parse_game("mastermind"), strategy="minimax", guesses="any"))
    result = replay(tree)
    assert result.height == 5
    assert abs(result.total - 5801) <= 40
    assert tree.game.format_code(tree.root.guess) == "0011"  # Knuth's 1122


def test_battleship_expected_size_near_the_public_best():
    game = parse_game("battleship")
    tree = build(Request(game, strategy="expected-size", guesses="consistent"))
    result = replay(tree)
    assert abs(result.total - 24716) <= 20 and result.height == 10
    mirror_images = {"A1 A3 H1", "A2 A4 H4", "A1 H1 H3", "A4 H2 H4"}
    assert game.format_code(tree.root.guess) in mirror_images
    best = replay(build(Request(game, strategy="entropy", guesses="any")))
    assert best.total < 24716


# --- compare, report, experiment -----------------------------------------------------------
def test_compare_lists_strategies_and_stored_trees(tmp_path, capsys):
    game = parse_game("mastermind:3x3")
    write_tree(build(Request(game, strategy="minimax")),
               tmp_path / "mastermind-3x3.minimax.any.json")
    write_tree(build(Request(parse_game("moo:3,4,5"))), tmp_path / "moo-3_4_5.first.json")
    (tmp_path / "broken.json").write_bytes(b'{"format": "decision-tree", "vers')
    (tmp_path / "mastermind-3x3.height-checkpoint.json").write_bytes(
        b'{"format": "moo-height-checkpoint", "version": 1, "game": "mastermind:3x3",'
        b' "guesses": "any", "refuted": {}}')  # a proof's record: neither a tree nor a problem
    result = compare(game, tmp_path, progress=False)
    stored = [r for r in result.rows if r.source != "built"]
    assert [r.source for r in stored] == ["mastermind-3x3.minimax.any.json"]
    assert len(result.rows) == len(CONSISTENT_ONLY) + 2 * len(HEURISTICS) + 1
    assert any("broken.json" in p for p in result.problems)
    assert [r.total for r in result.rows] == sorted(r.total for r in result.rows)
    assert "| minimax |" in table(result.rows)

    assert moo(["compare", "mastermind:3x3", "--trees", str(tmp_path), "--guesses", "any"]) == 0
    out = capsys.readouterr().out
    assert "mastermind-3x3.minimax.any.json" in out and "| first-consistent |" in out


def test_compare_holds_stored_claims_and_names_a_missing_folder(tmp_path, capsys,
                                                                 monkeypatch):
    """A stored tree whose lower bound is above its own total was listed "(total >= 74)" beside
    73; a missing --trees folder gave an empty table and status 0."""
    import orjson

    game = parse_game("mastermind:3x3")
    path = tmp_path / "t.json"
    write_tree(build(Request(game, objective="total", workers=1)), path)
    data = orjson.loads(path.read_bytes())
    data.update(optimal=False, lower_bound=74)
    path.write_bytes(orjson.dumps(data))
    [row] = compare(game, tmp_path, build=False).rows
    assert row.note.startswith("DEFECTS: lower_bound: 74 claims that no tree has a total")
    for argv in (["--trees", str(tmp_path / "none")], ["--stored"]):
        monkeypatch.chdir(tmp_path)  # no ./trees here
        assert moo(["compare", "mastermind:3x3", *argv]) == 2
        assert "no such folder" in capsys.readouterr().err


def test_compare_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "plot.png"
    assert moo(["compare", "moo:3,4,5", "--trees", str(tmp_path), "--plot", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")


def test_report_writes_a_table_per_game(tmp_path):
    report = _script("report")
    assert report.main(["--trees", str(tmp_path), "--games", "mastermind:3x3", "moo:3,4,5"]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "## mastermind:3x3" in text and "## moo:3,4,5" in text
    assert text.count("| expected-size | any |") == 2


def test_report_of_some_games_keeps_the_other_sections(tmp_path):
    """`--games` rebuilds only the games named: the batch run of one game's trees reports that
    game without every other game's greedy builds."""
    report = _script("report")
    assert report.main(["--trees", str(tmp_path), "--games", "moo:3,4,5", "mastermind:3x3"]) == 0
    readme = tmp_path / "README.md"
    marked = readme.read_text().replace("## mastermind:3x3\n", "## mastermind:3x3\nMARK\n")
    readme.write_text(marked)
    assert report.main(["--trees", str(tmp_path), "--games", "moo:3,4,5"]) == 0
    text = readme.read_text()
    assert "MARK" in text and text.index("## moo:3,4,5") < text.index("## mastermind:3x3")
    assert text.count("## ") == 2 and text.count("| expected-size | any |") == 2
    twice = ["mastermind:3x3", "mastermind:3x3"]  # one section
    assert report.main(["--trees", str(tmp_path), "--games", *twice]) == 0
    assert "MARK" not in readme.read_text() and readme.read_text().count("## ") == 2


def test_shuffled_play_like_the_seed():
    from optimizer.kernels.shuffled import play_many

    game = parse_game("bullets-maggots")
    matrix = game.feedback_matrix()
    secret = game.parse_code("0012")
    steps = play_many(matrix, secret, game.win, 200, 5)
    assert steps.min() >= 1 and steps.max() <= 15
    assert 5.5 < steps.mean() < 7.0
    assert (play_many(matrix, secret, game.win, 200, 5) == steps).all()
    bm = _script("bm_experiment")
    assert "Average steps to solve" in bm.describe("0012", steps)
