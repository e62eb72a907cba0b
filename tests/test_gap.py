"""--gap: the least total proven within a share of the best tree, not exactly. The bound it
writes must hold (the optimum, by the plain search or the exact one, is at least it), the tree
must be within the gap of it, and the facts it leaves in a checkpoint must be true."""

import math

import numpy as np
import orjson
import pytest
from oracle import plain_optimum

from optimizer.cli.app import main as moo
from optimizer.formats.checkpoint import Checkpoint
from optimizer.games import parse_game
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.tree import replay

SMALL = [("mastermind:3x3", "any"), ("mastermind:2x4", "consistent"), ("bulls-cows:2x5", "any"),
         ("battleship:2x4x2", "any"), ("moo:3,4,5", "consistent")]
# Games whose greedy tree is above the optimum, so classes are shown to reach the goal only
# (their optima from the exact search, itself checked against the plain one in test_exact.py).
LARGER = [("bulls-cows:4x7", 3639), ("battleship:3x5x2", 384)]


def within(tree, gap: float) -> tuple[int, int]:
    """(the tree's total, its proven bound), the tree replayed and the gap checked."""
    total = replay(tree).total
    bound = total if tree.optimal else tree.lower_bound
    assert bound <= total <= bound * (1 + gap / 100)
    assert tree.optimal == (bound == total)
    return total, bound


@pytest.mark.parametrize("spec,mode", SMALL)
@pytest.mark.parametrize("gap", [1.0, 10.0, 50.0])
def test_the_bound_of_a_gap_holds_on_small_games(spec, mode, gap):
    game = parse_game(spec)
    _, least, _ = plain_optimum(game, mode)
    tree = build(Request(game, objective="total", guesses=mode, gap=gap))
    total, bound = within(tree, gap)
    assert bound <= least <= total


@pytest.mark.parametrize("spec,least", LARGER)
def test_a_gap_stops_short_of_the_optimum_and_says_so(spec, least):
    """A gap wide enough leaves the greedy tree's total above the optimum, with a bound below
    it; the tree is not marked optimal and its meta records the gap."""
    game = parse_game(spec)
    tree = build(Request(game, objective="total", gap=5.0))
    total, bound = within(tree, 5.0)
    assert bound <= least < total and not tree.optimal
    assert tree.meta["total_search"]["gap_percent"] == 5.0
    assert total <= math.ceil(bound * 1.05)


def test_a_gap_runs_lookahead_to_its_goal_and_shows_the_best(monkeypatch):
    """With --lookahead, a gap run asks each class only for the goal (no cut-off above it) and
    its bar shows the best tree's total as the best, the goal beside it."""
    from optimizer.search import root_bounds as bounds_module
    from optimizer.search.observer import Observer

    shown, asked = [], []

    class Bar:
        def __init__(self, *args, **options):
            pass

        def set_postfix_str(self, text):
            shown.append(text)

        def update(self, n=1):
            pass

        def close(self):
            pass

    class Watching(Observer):
        def bar(self, iterable=None, **options):
            return Bar()

    bound = bounds_module.class_bound

    def watched(solver, guess, parts, depth, levels, beta, *rest):
        asked.append(beta)
        return bound(solver, guess, parts, depth, levels, beta, *rest)

    monkeypatch.setattr(bounds_module, "class_bound", watched)
    game, gap = parse_game("bulls-cows:4x7"), 5.0
    tree = build(Request(game, objective="total", gap=gap, lookahead=1, workers=1),
                 Watching(quiet=True))
    best = replay(tree).total
    lookahead = [text for text in shown if text.startswith("bound ")]
    assert asked and lookahead
    goals = {int(text.rsplit("goal ", 1)[1]) for text in lookahead}
    bests = {int(text.split("best ", 1)[1].split(",")[0]) for text in lookahead}
    assert len(goals) == 1 and len(bests) == 1
    (goal,), (shown_best,) = goals, bests
    assert goal == math.ceil(shown_best / (1 + gap / 100)) < shown_best
    assert max(asked) <= goal
    assert best <= shown_best


def test_a_gap_run_leaves_true_facts_and_keeps_its_pace_apart(tmp_path, capsys):
    """A --gap run's class bounds in the checkpoint are proven (an exact run from them finds
    the optimum). Its work spent is kept under its goal: its classes are only lifted to the
    goal, so its pace would halve the estimate of what settling them against the best costs:
    the exact run's pace leaves it out, and it writes no estimate (the file's is the exact
    one's)."""
    game, ckpt = parse_game("bulls-cows:4x7"), tmp_path / "c.json"
    tree = build(Request(game, objective="total", gap=5.0, checkpoint=str(ckpt)))
    _, bound = within(tree, 5.0)
    facts = orjson.loads(ckpt.read_bytes())["total"][str(game.n_secrets)]
    goal = math.ceil(replay(tree).total / 1.05)
    assert "estimate" not in facts
    (first,) = facts["spent"].values()
    assert first["goal"] == goal and first["classes"] >= 1
    assert min(c.get("exact", c.get("at_least")) for c in facts["classes"].values()) >= bound
    log = Checkpoint(ckpt, game, "any")
    assert log.spent_so_far("total", game.n_secrets, goal)[1:] == (first["classes"], 2)
    assert log.spent_so_far("total", game.n_secrets) == (0.0, 0, 1)  # this object's only
    exact = build(Request(game, objective="total", checkpoint=str(ckpt)))
    assert exact.optimal and replay(exact).total == 3639
    log = Checkpoint(ckpt, game, "any")
    assert log.spent_so_far("total", game.n_secrets)[1:] == (
        exact.meta["total_search"]["classes_searched"], 2)  # the exact run's alone
    assert log.spent_so_far("total", game.n_secrets, goal)[1:] == (first["classes"], 2)
    assert moo(["checkpoint", "show", str(ckpt)]) == 0
    shown = [line.strip() for line in capsys.readouterr().out.splitlines() if "work spent" in line]
    assert len(shown) == 2 and shown[0].endswith(" settled")
    lifted = f"{first['classes']} class{'es' if first['classes'] != 1 else ''} lifted"
    assert shown[1].endswith(f"in 1 run on record, {lifted} to at least {goal} (--gap)")


@pytest.mark.parametrize("objective", ["height,total", "total,height"])
@pytest.mark.parametrize("spec,gap", [("mastermind:2x3", 50.0), ("bulls-cows:4x7", 5.0)])
def test_a_gap_with_a_height(spec, gap, objective):
    """The gap is the objective's least total's: height,total bounds the total at the least
    height; total,height, when its total is reached exactly, finds the least height at it
    exactly (its searches there have no tree to beat: with the gap they once looped, each
    depth answering "no tree")."""
    game = parse_game(spec)
    _, least, at_height = plain_optimum(game) if spec == "mastermind:2x3" else (6, 3639, 3639)
    tree = build(Request(game, objective=objective, gap=gap))
    stats = replay(tree)
    bound = tree.lower_bound if objective == "total,height" else tree.meta.get(
        "total_lower_bound", stats.total)
    if tree.optimal:
        bound = stats.total
    assert bound <= (least if objective == "total,height" else at_height) <= stats.total
    assert stats.total <= bound * (1 + gap / 100)


def test_a_gap_run_keeps_the_facts_of_the_classes_it_does_not_settle(tmp_path):
    """A class lifted to the goal only is not settled: the facts below its first guess that an
    earlier run left stay for the exact run that settles it; the run adds its parts' facts but
    not its split parts' guesses'; every fact in the file is re-proved by `checkpoint verify`."""
    game, ckpt = parse_game("bulls-cows:4x7"), tmp_path / "c.json"
    depth = game.n_secrets
    root = build(Request(game, objective="total", gap=5.0)).root
    first, (fid, part) = root.guess, max(game.parts(root.guess, np.arange(game.n_secrets))
                                         .items(), key=lambda kv: len(kv[1]))
    earlier = Checkpoint(ckpt, game, "any")
    earlier.record_part("total", depth, (first, fid, int(part[0])), len(part), None)  # true
    earlier.flush()
    tree = build(Request(game, objective="total", gap=5.0, checkpoint=str(ckpt)))
    _, bound = within(tree, 5.0)
    facts = Checkpoint(ckpt, game, "any").totals["total", depth]
    best = facts.best()
    assert best == replay(tree).total
    assert (first, fid, int(part[0])) in facts.parts
    lifted = {g for g, e in facts.classes.items() if e.get("at_least", best) < best}
    assert lifted and all(len(p) == 2 or p == (first, fid, int(part[0])) for p in facts.parts)
    assert all("tree" not in e for e in facts.parts.values())  # exact values kept as bounds
    assert {p[0] for p in facts.parts} <= lifted
    assert moo(["checkpoint", "verify", str(ckpt), "--quiet"]) == 0


def test_a_gap_on_one_thread_starts_from_the_greedy_tree():
    """On one thread a game may be searched as one job, whose start is the first tree at hand;
    a gap run goes by classes, so it needs a tree to beat: within a depth limit the first one
    may not fit, and the gap was then ignored (an exact search, marked optimal)."""
    game = parse_game("bulls-cows:4x7")
    tree = build(Request(game, objective="total@6", gap=5.0, workers=1))
    total, bound = within(tree, 5.0)
    assert not tree.optimal and bound <= 3639 < total


def test_a_better_tree_settles_the_classes_a_gap_run_lifted(tmp_path):
    """A class a gap run lifted to the goal keeps its facts below the first guess; once a
    better tree makes its bound reach the best, they are dropped, so no class whose fact
    settles it keeps any."""
    game, ckpt = parse_game("battleship:3x5x2"), tmp_path / "c.json"
    build(Request(game, objective="total", gap=2.0, checkpoint=str(ckpt)))
    exact = build(Request(game, objective="total", checkpoint=str(ckpt)))
    assert exact.optimal and replay(exact).total == 384
    facts = Checkpoint(ckpt, game, "any").totals["total", game.n_secrets]
    for path in facts.parts:
        entry = facts.classes.get(path[0])
        assert entry is None or "exact" not in entry and entry["at_least"] < facts.best()
    assert moo(["checkpoint", "verify", str(ckpt), "--quiet"]) == 0


def test_the_command_line_refuses_a_gap_it_cannot_keep(tmp_path, capsys):
    out = str(tmp_path / "t.json")
    for args, says in [
        (["--objective", "height,deepest", "--gap", "2"], "--gap applies to objectives with"),
        (["--strategy", "minimax", "--gap", "2"], "apply to exact objectives"),
    ]:
        assert moo(["build", "mastermind:2x3", *args, "-o", out, "--quiet"]) == 2
        assert says in capsys.readouterr().err
    for text in ("0", "nan", "101", "-1", "2%"):
        with pytest.raises(SystemExit) as stop:
            moo(["build", "mastermind:2x3", "--objective", "total", "--gap", text, "-o", out])
        assert stop.value.code == 2 and "not a percentage" in capsys.readouterr().err
    assert moo(["build", "bulls-cows:4x7", "--objective", "total", "--gap", "5", "-o", out,
                "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "not proven optimal" in text and "% above it (--gap 5)" in text


def test_a_gap_among_one_opening_prints_its_bound(tmp_path, capsys):
    """--first with --gap printed the tree and no bound: that bound is the opening's (in
    meta.opening), which the line "proven: ..." of the other builds never reads."""
    out = tmp_path / "t.json"
    assert moo(["build", "bulls-cows:3x6", "--objective", "total", "--first", "012", "--gap",
                "5", "--workers", "1", "-o", str(out)]) == 0
    data = orjson.loads(out.read_bytes())
    bound, total = data["meta"]["opening"]["lower_bound"], data["stats"]["total"]
    assert (f"proven among trees opening with 012: total >= {bound}; the tree is "
            f"{100 * (total - bound) / bound:.2f}% above it (--gap 5)"
            in capsys.readouterr().out)
    assert moo(["build", "bulls-cows:3x6", "--objective", "height,total", "--first", "012",
                "--gap", "5", "--workers", "1", "-o", str(out)]) == 0
    said = capsys.readouterr().out  # the opening's bound is a height: no gap to a total
    assert "proven among trees opening with 012: height >= " in said and "% above" not in said
