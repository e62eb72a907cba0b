"""The exact search on word games (guesses that are not secrets) against the plain exhaustive
search of tests/oracle.py: random small lists, every objective and guess mode, each pruning rule
on and off."""

from __future__ import annotations

import random

import numpy as np
import orjson
import pytest
from oracle import plain_cost, plain_optimum
from oracle import plain_values as plain_values_of

from optimizer.games import word_game
from optimizer.kernels import bundles as B
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.search.solver import NodeSolver

pytestmark = pytest.mark.kernels  # make test runs these again with numba's bounds checks


def _lists(seed: int, answers: int, others: int, letters: str = "abcdef", width: int = 3):
    """Two disjoint random lists of distinct words over a small alphabet (repeated letters
    included, where Wordle's yellow rule matters)."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < answers + others:
        words.add("".join(rng.choice(letters) for _ in range(width)))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered[:answers], ordered[answers:]


GAMES = [(seed, a, o) for seed, a, o in ((1, 9, 12), (2, 12, 20), (3, 14, 6), (4, 10, 30))]


@pytest.mark.parametrize("seed,answers,others", GAMES)
@pytest.mark.parametrize("mode", ["any", "consistent", "hard"])
def test_least_height_and_total_equal_the_plain_search(seed, answers, others, mode):
    game = word_game(*_lists(seed, answers, others))
    height, total, total_at_height = plain_optimum(game, mode)
    for objective, value in (("height", height), ("total", total),
                             ("height,total", total_at_height)):
        tree = build(Request(game, objective=objective, guesses=mode))
        assert tree.optimal and not tree.replayed.defects
        got = tree.replayed.height if objective == "height" else tree.replayed.total
        assert got == value, (objective, got, value)
        if objective == "height,total":
            assert tree.replayed.height == height


@pytest.mark.parametrize("seed,answers,others", GAMES[:2])
def test_depth_limits_and_deepest_equal_the_plain_search(seed, answers, others):
    game = word_game(*_lists(seed, answers, others))
    cost = plain_cost(game, "any")
    root = frozenset(range(game.n_secrets))
    solver = NodeSolver(game, "any", table_bits=14)
    for depth in range(2, 6):
        want = cost(root, depth, 1, 0)
        value, guess = solver.min_total(solver.root(), depth)
        if want >= B.INF:
            assert value >= B.INF
        else:
            assert value == want and guess >= 0
        want_deep = cost(root, depth, 0, 1)
        if want_deep < B.INF:
            assert solver.min_total(solver.root(), depth, cost="deep")[0] == want_deep


@pytest.mark.parametrize("rule", [B.OPT_DEDUPE, B.OPT_TT, B.OPT_PROBE, B.OPT_SEPARATE,
                                  B.OPT_BRANCHING, B.OPT_CANDIDATES_FIRST, B.OPT_SMALL,
                                  B.OPT_SHARES])
def test_each_rule_alone_off_keeps_the_optimum(rule):
    """Every rule switched off in turn gives the same values, and so does the plain kernel
    (every rule and the counting bounds off)."""
    game = word_game(*_lists(5, 12, 16))
    height, total, _ = plain_optimum(game, "any")
    for opts, counting in ((B.OPT_ALL & ~rule, True), (0, False)):
        solver = NodeSolver(game, "any", opts=opts, table_bits=14, counting=counting)
        assert solver.min_height(solver.root()) == height
        assert solver.min_total(solver.root(), game.n_secrets)[0] == total


def test_a_guess_that_is_no_answer_is_used_when_it_pays():
    """bat cat hat mat (answers) and chm (a guess only): chm gives each answer its own feedback
    (0 0 0, 2 0 0, 0 1 0, 0 0 1), so the least total is 8, two guesses each, opening with chm."""
    game = word_game(["bat", "cat", "hat", "mat"], ["chm"])
    tree = build(Request(game, objective="total"))
    assert game.format_code(tree.root.guess) == "chm"
    assert tree.replayed.total == plain_optimum(game, "any")[1] == 8


# --- the tree file of a custom word game, and openings --------------------------------------
def test_a_custom_word_tree_carries_its_lists(tmp_path, capsys):
    """A tree of words:FILES holds the lists (version 2): it replays with the files gone."""
    from optimizer.cli import main as moo
    from optimizer.formats.tree_file import read_tree

    answers, others = _lists(6, 10, 12)
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(others) + "\n")
    out = tmp_path / "t.json"
    spec = f"words:{tmp_path / 'a.txt'},{tmp_path / 'g.txt'}"
    assert moo(["build", spec, "--objective", "total", "--quiet", "-o", str(out)]) == 0
    (tmp_path / "a.txt").unlink()
    (tmp_path / "g.txt").unlink()
    tree = read_tree(out)
    assert tree.game.spec == "words" and tree.game.answers == sorted(answers)
    assert moo(["verify", str(out)]) == 0
    assert "every secret is solved" in capsys.readouterr().out
    raw = orjson.loads(out.read_bytes())
    assert raw["version"] == 2 and raw["game"] == "words"
    assert sorted(raw["words"]["guesses"]) == sorted(others)


def test_compare_lists_the_stored_trees_of_its_own_word_lists(tmp_path, capsys):
    """A version 2 tree names its game "words": compare matches it by its lists, not by the
    spec (it skipped every such tree without a word); another list's tree is not listed."""
    from optimizer.cli import main as moo

    answers, others = _lists(6, 10, 12)
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(others) + "\n")
    (tmp_path / "b.txt").write_text("\n".join(answers[:5]) + "\n")
    spec = f"words:{tmp_path / 'a.txt'},{tmp_path / 'g.txt'}"
    assert moo(["build", spec, "--objective", "total", "--quiet", "-o",
                str(tmp_path / "t.json")]) == 0
    capsys.readouterr()
    assert moo(["compare", spec, "--trees", str(tmp_path), "--stored"]) == 0
    assert "total `t.json` (optimal)" in capsys.readouterr().out
    assert moo(["compare", f"words:{tmp_path / 'b.txt'}", "--trees", str(tmp_path),
                "--stored"]) == 0
    assert "t.json" not in capsys.readouterr().out
    data = orjson.loads((tmp_path / "t.json").read_bytes())
    data["root"]["guess"] = "zzz"  # broken, and of these lists: a problem of this table only
    (tmp_path / "t.json").write_bytes(orjson.dumps(data))
    assert moo(["compare", "mastermind:2x2", "--trees", str(tmp_path), "--stored"]) == 0
    assert "t.json" not in capsys.readouterr().err
    assert moo(["compare", spec, "--trees", str(tmp_path), "--stored"]) == 1  # a defect
    assert "skipped t.json" in capsys.readouterr().err


def test_a_version_1_tree_naming_word_lists_finds_them_beside_it(tmp_path, monkeypatch):
    """Its lists were looked for in the current folder only: the same file verified in one
    folder and not in another. Now beside the file too, as for checkpoints."""
    from optimizer.cli.compare import stored_rows
    from optimizer.formats.tree_file import read_tree, tree_to_json
    from optimizer.games import parse_game

    answers, _ = _lists(5, 8, 0)
    folder = tmp_path / "trees"
    folder.mkdir()
    (folder / "a.txt").write_text("\n".join(answers) + "\n")
    monkeypatch.chdir(folder)
    data = tree_to_json(build(Request(word_game(answers, []), objective="total")))
    data.update(version=1, game="words:a.txt")
    data.pop("words")
    (folder / "t.json").write_bytes(orjson.dumps(data))
    monkeypatch.chdir(tmp_path)  # elsewhere: the list is beside the file
    assert read_tree(folder / "t.json").game.words == sorted(answers)
    linked = tmp_path / "linked"  # a folder of links to trees kept elsewhere: beside the file
    linked.mkdir()  # the link names, as read_tree looks (compare looked beside the link)
    (linked / "t.json").symlink_to(folder / "t.json")
    assert read_tree(linked / "t.json").game.words == sorted(answers)
    rows, problems = stored_rows(parse_game("words:a.txt", beside=folder), linked)
    assert [row.source for row in rows] == ["t.json"] and problems == []


def test_trees_of_named_games_stay_version_1():
    from optimizer.formats.tree_file import tree_to_json
    from optimizer.games import parse_game

    tree = build(Request(parse_game("mastermind:2x3"), objective="total"))
    data = tree_to_json(tree)
    assert data["version"] == 1 and "words" not in data


@pytest.mark.parametrize("spec,mode", [("mastermind:3x3", "any"), ("bulls-cows:3x5", "any")])
def test_the_best_opening_is_the_optimum_and_each_opening_is_exact(spec, mode):
    """--first: each opening's least total equals the plain search's least total of the trees
    opening so; the least of them is the game's; the tree never claims more than its opening."""
    from optimizer.games import parse_game

    game = parse_game(spec)
    _, total = plain_values_of(game, mode)
    root = frozenset(range(game.n_secrets))
    values = []
    for first in range(0, game.n_codes, max(1, game.n_codes // 6)):
        word = game.format_code(first)
        tree = build(Request(game, objective="total", guesses=mode, first=word))
        assert tree.root.guess == first and not tree.optimal
        assert tree.meta["opening"] == {"guess": word, "optimal": True}
        parts = game.parts(first, np.arange(game.n_secrets))
        want = len(root) + sum(total(frozenset(int(c) for c in p), game.n_secrets)
                               for p in parts.values())
        assert tree.replayed.total == want
        values.append(want)
    assert min(values) >= plain_optimum(game, mode)[1]


def test_first_is_refused_where_it_cannot_hold():
    from optimizer.games import GameError, parse_game

    game = parse_game("mastermind:3x3")
    with pytest.raises(GameError):
        Request(game, objective="total", first="999")
    with pytest.raises(ValueError, match="exact objective"):
        Request(game, first="012")
    with pytest.raises(ValueError, match="--checkpoint or --improve"):
        Request(game, objective="total", first="012", checkpoint="c.json")
    answers, others = _lists(1, 9, 12)
    words = word_game(answers, answers + others)
    with pytest.raises(ValueError, match=f"{others[0]} is only allowed as a guess"):
        Request(words, objective="total", guesses="consistent", first=others[0])
    Request(words, objective="total", guesses="hard", first=others[0])  # hard mode opens freely
    Request(words, objective="total", guesses="consistent", first=answers[0])
    blind = word_game(["abcde", "abced", "abdce"], ["zzzzz"])  # one answer from every secret
    for objective in ("total", "height", "height,deepest"):  # a traceback from the greedy tree
        with pytest.raises(ValueError, match="--first zzzzz: every secret gives it the same"):
            Request(blind, objective=objective, first="zzzzz")


def test_verify_holds_an_opening_claim_against_the_tree(tmp_path, capsys):
    from optimizer.cli import main as moo
    from optimizer.formats.tree_file import tree_to_json
    from optimizer.games import parse_game

    game = parse_game("mastermind:3x3")
    data = tree_to_json(build(Request(game, objective="total", first="012")))
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps(data))
    assert moo(["verify", str(path)]) == 0
    assert "optimal among trees opening with 012" in capsys.readouterr().out
    for edit, message in ((lambda d: d["meta"]["opening"].update(guess="001"), "opens with 012"),
                          (lambda d: d.update(optimal=True), "proves no optimum over every"),
                          (lambda d: d["meta"].update(opening="012"), "meta.opening: an object")):
        bad = orjson.loads(orjson.dumps(data))
        edit(bad)
        path.write_bytes(orjson.dumps(bad))
        assert moo(["verify", str(path)]) == 1
        assert message in capsys.readouterr().out


def test_hard_mode_keeps_the_hints_by_the_plain_rule():
    """The kernels' hint rule equals the plain definition on every triple of a small game, and a
    hard-mode tree keeps every hint on every path (verify replays it)."""
    from optimizer.games.words import keeps_hints as plain_keeps
    from optimizer.kernels.guesses import keeps_hints
    from optimizer.search.solver import NodeSolver

    game = word_game(*_lists(7, 10, 14, letters="abca"))
    solver = NodeSolver(game, "hard")
    codes, marks = solver.orbits.codes, solver.problem.marks
    ids = {int(f): k for k, f in enumerate(np.flatnonzero(
        np.bincount(game.feedback_matrix().ravel(), minlength=256)))}
    for earlier in range(game.n_codes):
        for s in range(game.n_secrets):
            fid = game.feedback(earlier, s)
            for guess in range(game.n_codes):
                want = plain_keeps(game.words[earlier], game.feedback_counts(fid),
                                   game.words[guess])
                assert keeps_hints(codes, marks, earlier, ids[fid], guess) == want
    tree = build(Request(game, objective="total", guesses="hard"))
    assert not tree.replayed.defects


def test_a_hard_tree_that_drops_a_hint_is_a_defect_naming_it():
    """cab got 2 2 0 (c and a in place): dog after it is fine in any mode, a defect in hard
    mode, and verify says which hint it drops."""
    from optimizer.tree import Node, Tree, replay

    game = word_game(["cab", "cat", "dog"], ["cot"])
    code = game.parse_code
    cab, dog, cat = code("cab"), code("dog"), code("cat")
    root = Node(cab, {game.feedback(cab, cat): Node(dog, {game.feedback(dog, cat): Node(cat)}),
                      game.feedback(cab, dog): Node(dog)})
    assert not replay(Tree(game=game, root=root, objective="total", guesses="any")).defects
    assert replay(Tree(game=game, root=root, objective="total", guesses="hard")).defects == [
        "root.next['2 2 0']: guess dog drops a hint (cab got 2 2 0, so letter 1 must be C), "
        "but the tree says guesses are 'hard'"]


@pytest.mark.parametrize("objective", ["total", "height", "height,total"])
def test_hard_mode_never_merges_guesses_that_split_alike(objective):
    """xqy and xay split the answers alike, but xay's green a forbids chm below it, the guess
    that then tells bat, cat, hat and mat apart: xqy is the only best opening (total 21), and a
    search that took the two for one said 22."""
    game = word_game(["bat", "cat", "hat", "mat", "vxx", "xxx", "yxx", "zxx"],
                     ["chm", "xay", "xqy"])
    height, total, total_at_height = plain_optimum(game, "hard")
    assert (height, total, total_at_height) == (3, 21, 21)
    tree = build(Request(game, objective=objective, guesses="hard"))
    assert tree.optimal and not tree.replayed.defects
    got = tree.replayed.height if objective == "height" else tree.replayed.total
    assert got == {"height": height, "total": total, "height,total": total_at_height}[objective]


def test_hard_mode_is_refused_where_the_game_has_none():
    from optimizer.games import GameError, parse_game

    with pytest.raises(GameError, match="no hard mode"):
        Request(parse_game("mastermind:3x3"), objective="total", guesses="hard")


@pytest.mark.parametrize("mode", ["any", "hard"])
def test_searched_by_first_guess_classes_every_code_opens(tmp_path, mode):
    """By classes (a checkpoint makes the total search go class by class; the height search
    always does), the openings are every code, not only the answers: the game below is solved
    in 2 only by opening with a word that is no answer."""
    game = word_game(["bat", "cat", "hat", "mat"], ["chm"])
    height, total, _ = plain_optimum(game, mode)
    assert (height, total) == (2, 8)
    for objective, value in (("height", height), ("total", total)):
        tree = build(Request(game, objective=objective, guesses=mode,
                             checkpoint=str(tmp_path / f"{objective}.json")))
        got = tree.replayed.height if objective == "height" else tree.replayed.total
        assert tree.optimal and got == value and game.format_code(tree.root.guess) == "chm"
