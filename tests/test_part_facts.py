"""Checkpoint facts below the root: every part (and split part's opening) a stopped search records
holds by the plain search, a run resumed from them finishes with the plain optimum, and the file
keeps, merges and re-proves them."""

from __future__ import annotations

import orjson
import pytest
from oracle import plain_optimum, plain_values, useful_parts

from optimizer.cli import main as moo
from optimizer.formats.checkpoint import Checkpoint
from optimizer.formats.checkpoint_io import CheckpointError, part_place
from optimizer.games import parse_game
from optimizer.search.engine import InProcess
from optimizer.search.root import RootSearch
from optimizer.search.solver import NodeSolver
from optimizer.search.total import TotalSearch
from optimizer.tree import Tree, replay

GAMES = [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"), ("battleship:2x4x2", "any"),
         ("mastermind:3x3", "consistent")]


def _search(game, mode, path, threads=2) -> TotalSearch:
    solver = NodeSolver(game, mode, table_bits=14)
    solver.warm_up(("total",))
    return TotalSearch(solver, InProcess(solver, threads=threads),
                       checkpoint=Checkpoint(path, game, mode))


@pytest.fixture
def split_everything(monkeypatch):
    """Every part of three candidates or more runs guess by guess: the openings' facts too."""
    monkeypatch.setattr(RootSearch, "split_size", 3)


def _stop_after(monkeypatch, results: int) -> None:
    """The search stops (its time limit) after ``results`` finished jobs."""
    real = RootSearch.finished
    seen = [0]

    def finished(self, pending):
        for job in real(self, pending):
            if seen[0] >= results:
                raise TimeoutError
            seen[0] += 1
            yield job

    monkeypatch.setattr(RootSearch, "finished", finished)


def _refused(path, data: dict, game, message: str) -> None:
    """The file written as ``data`` is refused with ``message``."""
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(CheckpointError, match=message):
        Checkpoint(path, game, "any")


def _true_value(game, mode, path: tuple, depth: int) -> int:
    """The least total of what a part fact is about, by the plain search."""
    _, total = plain_values(game, mode)
    secrets, left, _ = part_place(game, path, depth)
    part = frozenset(int(s) for s in secrets)
    if len(path) % 2 == 0:
        return total(part, left)
    parts = useful_parts(game.feedback_matrix(), path[-1], part)
    return len(part) + sum(total(frozenset(p), left - 1) for p in parts.values())


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("stop", [1, 3, 6, 10])
def test_part_facts_hold_and_a_resumed_run_finds_the_optimum(spec, mode, stop, tmp_path,
                                                            monkeypatch, split_everything):
    game = parse_game(spec)
    height, total, limited = plain_optimum(game, mode)
    for depth, expected in ((game.n_codes, total), (height, limited)):
        path = tmp_path / f"cp{depth}.json"
        with monkeypatch.context() as patch:
            _stop_after(patch, stop)
            search = _search(game, mode, path)
            first = search.min_total(depth)
            search.engine.close()
        log = Checkpoint(path, game, mode)  # read back: every tree replays (checkpoint_io)
        facts = log.totals.get(("total", depth))
        for part, fact in (facts.parts.items() if facts else ()):
            true = _true_value(game, mode, part, depth)
            if "exact" in fact:
                assert fact["exact"] == true, part
            else:
                assert fact["at_least"] <= true, part
        search = _search(game, mode, path)
        out = search.min_total(depth)
        search.engine.close()
        assert out.optimal and out.value == expected, (depth, first.stopped)
        assert replay(Tree(game, out.root, "total", mode)).total == expected
        assert not Checkpoint(path, game, mode).totals["total", depth].parts  # all settled


def test_a_run_stopped_inside_a_class_keeps_its_parts(tmp_path, monkeypatch, split_everything):
    """Bulls and Cows 3 of 6 is one first-guess class: a stopped run keeps its parts, and the
    next run takes them and searches fewer nodes than a fresh one."""
    game = parse_game("bulls-cows:3x6")
    fresh_path, path = tmp_path / "fresh.json", tmp_path / "cp.json"
    search = _search(game, "any", fresh_path)
    fresh = search.min_total(game.n_codes)
    search.engine.close()
    with monkeypatch.context() as patch:
        _stop_after(patch, 4)
        search = _search(game, "any", path)
        assert search.min_total(game.n_codes).stopped
        search.engine.close()
    kept = Checkpoint(path, game, "any").totals["total", game.n_codes].parts
    assert kept and all(p[0] == fresh.root.guess for p in kept)
    search = _search(game, "any", path)
    resumed = search.min_total(game.n_codes)
    search.engine.close()
    assert resumed.optimal and resumed.value == fresh.value
    assert resumed.parts_taken >= len(kept) and resumed.nodes < fresh.nodes
    assert resumed.effort()["parts_from_checkpoint"] == resumed.parts_taken


def test_part_facts_stay_unless_a_tree_settles_their_class(tmp_path, monkeypatch):
    """A run that only asks whether the game reaches a value (``upper`` with no tree, which
    every class's bound reaches) keeps an earlier run's part facts: no tree on file settles
    their class (with one, test_part_facts_hold_and_a_resumed_run_finds_the_optimum: all go)."""
    game, path = _stopped_file(tmp_path, monkeypatch)
    depth = game.n_codes
    kept = dict(Checkpoint(path, game, "any").totals["total", depth].parts)
    assert kept
    search = _search(game, "any", path)
    out = search.min_total(depth, search.first_classes(depth)[0][0] - 1)
    search.engine.close()
    assert out.root is None and not out.stopped
    assert Checkpoint(path, game, "any").totals["total", depth].parts == kept


@pytest.mark.parametrize("upper", [None, 0])
def test_a_found_tree_drops_the_part_facts_of_classes_it_settles(tmp_path, upper):
    """A part fact on the class of highest bound (as a run stopped beside it leaves): once a
    run finds a tree that the class's bound reaches, the fact goes, also when the run only
    asked whether the optimum is reached (``upper``: 0 stands for the optimum, with no tree)."""
    game = parse_game("mastermind:3x3")
    path, depth = tmp_path / "cp.json", game.n_codes
    _, total = plain_values(game, "any")
    true = total(frozenset(range(game.n_secrets)), depth)
    search = _search(game, "any", path, threads=3)  # every class taken up before a tree
    bound, guess, parts = max(search.first_classes(depth), key=lambda c: c[0])
    assert bound > true
    fid, part = max(parts.items(), key=lambda kv: len(kv[1]))
    search.checkpoint.record_part("total", depth, (guess, fid),
                                  search.solver.counting(len(part), depth - 1, "total"), None)
    out = search.min_total(depth, None if upper is None else true)
    search.engine.close()
    assert out.optimal and out.value == true
    assert (guess, fid) not in Checkpoint(path, game, "any").totals["total", depth].parts


def _stopped_file(tmp_path, monkeypatch, name="cp.json", stop=5):
    game = parse_game("bulls-cows:3x6")
    path = tmp_path / name
    with monkeypatch.context() as patch:
        patch.setattr(RootSearch, "split_size", 3)
        _stop_after(patch, stop)
        search = _search(game, "any", path)
        search.min_total(game.n_codes)
        search.engine.close()
    return game, path


def test_part_facts_are_shown_merged_and_re_proved(tmp_path, monkeypatch, capsys):
    game, a = _stopped_file(tmp_path, monkeypatch, "a.json", 3)
    _, b = _stopped_file(tmp_path, monkeypatch, "b.json", 7)
    assert moo(["checkpoint", "show", str(b)]) == 0
    assert "facts below the first guess" in capsys.readouterr().out
    out = tmp_path / "c.json"
    assert moo(["checkpoint", "merge", str(a), str(b), "-o", str(out)]) == 0
    merged = Checkpoint(out, game, "any").totals["total", game.n_codes].parts
    for path in (a, b):
        assert set(Checkpoint(path, game, "any").totals["total", game.n_codes].parts) <= set(
            merged)
    assert moo(["checkpoint", "verify", str(out), "--workers", "1", "--quiet"]) == 0
    assert "OK: every claim checked holds" in capsys.readouterr().out
    data = orjson.loads(out.read_bytes())
    entry = data["total"][str(game.n_codes)]["parts"][0]
    kind = "exact" if "exact" in entry else "at_least"
    if kind == "exact":  # a false exact value with its true tree is refused when read
        entry["exact"] += 1
        out.write_bytes(orjson.dumps(data))
        with pytest.raises(CheckpointError, match="a replay gives"):
            Checkpoint(out, game, "any")
        entry["exact"] -= 1
        entry.pop("tree")
        entry["at_least"] = entry.pop("exact")
    entry["at_least"] += 1000  # more than is true: verify names it
    out.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "verify", str(out), "--workers", "1", "--quiet"]) == 1
    assert "does not hold" in capsys.readouterr().out


def test_merge_refuses_contradicting_part_facts(tmp_path, monkeypatch):
    game, a = _stopped_file(tmp_path, monkeypatch, "a.json", 5)
    data = orjson.loads(a.read_bytes())
    entry = next(e for e in data["total"][str(game.n_codes)]["parts"] if "exact" in e)
    bad = dict(entry)
    bad.pop("tree")
    bad.pop("exact")
    bad["at_least"] = entry["exact"] + 1
    data["total"][str(game.n_codes)]["parts"] = [bad]
    b = tmp_path / "b.json"
    b.write_bytes(orjson.dumps(data))
    assert moo(["checkpoint", "merge", str(a), str(b), "-o", str(tmp_path / "c.json")]) == 2
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("change,message", [
    (lambda e: e.update(path=["0123", "1 0"]), "0123"),
    (lambda e: e.update(path=["012", "3 0"]), "winning feedback"),
    (lambda e: e.update(path=["012", "0 9"]), "feedback"),
    (lambda e: e.update(path=7), "a list of codes"),
    (lambda e: e.update(extra=1), "keys are"),
    (lambda e: e.update(tree={"guess": "345", "next": {}}), "does not replay|opens with"),
])
def test_a_bad_part_fact_is_a_clear_error(tmp_path, monkeypatch, change, message):
    game, path = _stopped_file(tmp_path, monkeypatch, stop=5)
    data = orjson.loads(path.read_bytes())
    entry = next(e for e in data["total"][str(game.n_codes)]["parts"] if "exact" in e)
    data["total"][str(game.n_codes)]["parts"] = [entry]
    change(entry)
    _refused(path, data, game, message)


def test_the_estimate_is_written_and_read(tmp_path):
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    search = _search(game, "any", path, threads=1)
    search.min_total(game.n_codes)
    search.engine.close()
    estimate = Checkpoint(path, game, "any").totals["total", game.n_codes].estimate
    assert estimate is not None and estimate["classes"] == 0
    assert set(estimate) == {"classes", "core_hours", "seconds_per_class", "classes_settled",
                             "runs"}


def test_each_run_s_spending_is_recorded_and_sets_the_next_run_s_pace(tmp_path, monkeypatch):
    """A stopped run records its CPU seconds and the classes it settled under its own id; the
    next run's estimate rests on both runs' sums."""
    game = parse_game("mastermind:4x3")
    path = tmp_path / "cp.json"
    search = _search(game, "any", path, threads=1)
    _stop_after(monkeypatch, 20)  # one of its four classes settled
    first = search.min_total(game.n_codes)
    search.engine.close()
    monkeypatch.undo()
    assert first.stopped
    assert first.work_left["this_run"]["classes"] == first.searched  # told, not written:
    assert "this_run" not in Checkpoint(path, game, "any").totals[  # the file's estimate is
        "total", game.n_codes].estimate  # every run's
    spent = Checkpoint(path, game, "any").totals["total", game.n_codes].spent
    assert len(spent) == 1
    (entry,) = spent.values()
    assert entry["cpu_seconds"] >= 0 and entry["classes"] == first.searched >= 1
    search = _search(game, "any", path, threads=1)
    second = search.min_total(game.n_codes)
    search.engine.close()
    log = Checkpoint(path, game, "any")
    spent = log.totals["total", game.n_codes].spent
    assert len(spent) == 2
    assert sum(e["classes"] for e in spent.values()) == first.searched + second.searched
    assert log.spent_so_far("total", game.n_codes)[2] == 3  # this object is a third run
    assert log.totals["total", game.n_codes].estimate["runs"] == 2


def _shared_writes(path, a_first: tuple, b_first: tuple, a_then: tuple):
    """Runs a and b share one file: a writes, b writes (taking a's record in), a writes again;
    (a, b, the records on file)."""
    game = parse_game("mastermind:3x3")
    a, b = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    for run, (cpu, classes) in ((a, a_first), (b, b_first), (a, a_then)):
        run.record_spent("total", 5, cpu, classes)
        run.save()
    return a, b, Checkpoint(path, game, "any").totals["total", 5].spent


def test_runs_sharing_a_file_or_merged_keep_each_run_s_spending(tmp_path):
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    a, b, spent = _shared_writes(path, (10.0, 1), (20.0, 2), (5.0, 0))
    assert spent == {a.run_id: {"cpu_seconds": 15.0, "classes": 1},
                     b.run_id: {"cpu_seconds": 20.0, "classes": 2}}
    other = Checkpoint(tmp_path / "other.json", game, "any")
    other.record_spent("total", 5, 7.0, 1)
    other.save()
    merged = Checkpoint(path, game, "any")
    merged.merge(Checkpoint(tmp_path / "other.json", game, "any"))
    assert merged.spent_so_far("total", 5) == (42.0, 4, 4)


def test_the_spending_on_classes_drawn_at_random_is_summed_apart(tmp_path):
    """scripts/bench_class.py --sample --record marks its spending "drawn": kept through the
    file and a merge, and summed apart (Checkpoint.drawn_so_far), the pace of the estimate."""
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    sample, run = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    sample.record_spent("total", 5, 30.0, 2, drawn=True)
    sample.save()
    run.record_spent("total", 5, 100.0, 1)
    run.save()
    other = Checkpoint(tmp_path / "other.json", game, "any")
    other.record_spent("total", 5, 12.0, 1, drawn=True)
    other.save()
    log = Checkpoint(path, game, "any")
    log.merge(Checkpoint(tmp_path / "other.json", game, "any"))
    assert log.drawn_so_far("total", 5) == (42.0, 3)
    assert log.spent_so_far("total", 5)[:2] == (142.0, 4)  # every run settling against the best
    assert log.totals["total", 5].spent[sample.run_id]["drawn"] is True


def test_gap_runs_sum_their_pace_by_goal_apart_from_the_exact_runs(tmp_path):
    """A --gap run's classes are lifted to its goal only: its pace is summed with other runs
    of that goal, never with the runs that settle classes against the best; merged and read
    back, each run keeps its goal."""
    game = parse_game("mastermind:3x3")
    path, other_path = tmp_path / "cp.json", tmp_path / "other.json"
    runs = [Checkpoint(path, game, "any") for _ in range(3)]
    for run, (cpu, classes, goal) in zip(runs, [(10.0, 2, 40), (4.0, 1, None), (6.0, 3, 40)],
                                         strict=True):
        run.record_spent("total", 5, cpu, classes, goal)
        run.save()
    other = Checkpoint(other_path, game, "any")
    other.record_spent("total", 5, 1.0, 1, 39)
    other.save()
    log = Checkpoint(path, game, "any")
    log.merge(Checkpoint(other_path, game, "any"))
    assert log.spent_so_far("total", 5, 40) == (16.0, 5, 3)  # and this object
    assert log.spent_so_far("total", 5, 39) == (1.0, 1, 2)
    assert log.spent_so_far("total", 5) == (4.0, 1, 2)
    runs[0].record_spent("total", 5, 2.0, 0, 30)  # a better tree lowered its goal
    runs[0].save()  # and it reads the others' records
    assert runs[0].spent_so_far("total", 5, 30) == (12.0, 2, 1)  # its own record alone
    assert runs[0].spent_so_far("total", 5, 40) == (6.0, 3, 2)  # the other's, and a run
    log.save()
    spent = Checkpoint(path, game, "any").totals["total", 5].spent
    assert sorted(e.get("goal", 0) for e in spent.values()) == [0, 30, 39, 40]


def test_a_class_settled_from_facts_alone_is_not_lost_to_a_sharing_run(tmp_path):
    """It adds a class and no CPU second: the file's copy of this run's record (rounded when
    written, so maybe a hair above) must not win over this run's own."""
    a, _, spent = _shared_writes(tmp_path / "cp.json", (10.0006, 1), (1.0, 0), (0.0, 1))
    assert spent[a.run_id]["classes"] == 2


@pytest.mark.parametrize("spent, message", [
    ({"not an id!": {"cpu_seconds": 1, "classes": 1}}, "not a run id"),
    ({"abc": {"cpu_seconds": 1}}, "keys are classes, cpu_seconds"),
    ({"abc": {"cpu_seconds": -1, "classes": 1}}, "a number >= 0"),
    ({"abc": {"cpu_seconds": 1, "classes": 1.5}}, "whole number"),
    ({"abc": {"cpu_seconds": 1e308, "classes": 1}}, "at most"),
    ({"abc": {"cpu_seconds": 1, "classes": 1, "goal": 0}}, "goal: a whole number >= 1"),
    ({"abc": {"cpu_seconds": 1, "classes": 1, "goal": "40"}}, "goal: a whole number >= 1"),
    ({"abc": {"cpu_seconds": 1, "classes": 1, "aim": 40}}, "keys are classes"),
])
def test_a_malformed_record_of_spending_is_refused(tmp_path, spent, message):
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    log = Checkpoint(path, game, "any")
    log.record_spent("total", 5, 1.0, 1)
    log.save()
    data = orjson.loads(path.read_bytes())
    data["total"]["5"]["spent"] = spent
    _refused(path, data, game, message)


def test_an_estimate_gives_both_figures_of_its_pace_or_neither(tmp_path):
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    log = Checkpoint(path, game, "any")
    log.record_estimate("total", 5, {"classes": 3, "core_hours": 1.0, "seconds_per_class": 2.0})
    log.save()
    Checkpoint(path, game, "any")  # as files written before the record of spending
    data = orjson.loads(path.read_bytes())
    data["total"]["5"]["estimate"]["classes_settled"] = 4  # without runs
    _refused(path, data, game, "classes_settled, runs")


def test_a_stopped_run_reports_the_bounds_its_checkpoint_proves(tmp_path, monkeypatch):
    """The classes start from the checkpoint's bounds, not their counting bounds: a run stopped
    before any job ends reports the least of them (once it reported the counting bound)."""
    game = parse_game("mastermind:3x3")
    path = tmp_path / "cp.json"
    search = _search(game, "any", path, threads=1)
    optimum = search.min_total(game.n_codes).value
    search.engine.close()
    data = orjson.loads(path.read_bytes())
    del data["total"][str(game.n_codes)]["incumbent"]  # nothing to cut the classes against
    path.write_bytes(orjson.dumps(data))
    known = min(e.get("exact", e.get("at_least"))
                for e in data["total"][str(game.n_codes)]["classes"].values())
    with monkeypatch.context() as patch:
        _stop_after(patch, 0)
        search = _search(game, "any", path, threads=1)
        out = search.min_total(game.n_codes)
        search.engine.close()
    assert out.stopped and out.lower_bound == known == optimum


def test_a_part_bound_keeps_its_openings_facts_an_exact_value_drops_them():
    """A split part asked again starts from its guesses' bounds, so a bound on the whole part
    leaves them; its exact value says all they did."""
    from optimizer.formats.facts import TotalFacts
    from optimizer.tree import Node

    facts = TotalFacts()
    assert facts.set_part((5, 1, 7), 40, None) and facts.set_part((5, 1, 8), 41, None)
    assert facts.set_part((5, 1), 40, None)
    assert set(facts.parts) == {(5, 1, 7), (5, 1, 8), (5, 1)}
    assert not facts.set_part((5, 1), 39, None)  # weaker: kept as it was
    assert facts.set_part((5, 1), 42, Node(7))
    assert set(facts.parts) == {(5, 1)} and facts.parts[5, 1]["exact"] == 42


def test_a_reader_s_partitions_kept_give_every_path_its_own_secrets():
    """part_place with the partitions made so far (what a reader of many facts passes) finds
    the secrets of each path as it does alone, in any order of the paths, and refuses a path
    no secret follows all the same."""
    import random

    import numpy as np

    game = parse_game("mastermind:3x3")
    root = np.arange(game.n_secrets, dtype=np.int32)
    paths = []
    for g in (0, 1, 5):
        for f, part in game.parts(g, root).items():
            paths.append((g, f))
            for g2 in (2, 13):
                paths += [(g, f, g2)] + [(g, f, g2, f2) for f2 in game.parts(g2, part)]
    random.Random(7).shuffle(paths)
    splits: dict = {}
    for path in paths:
        secrets, left, pairs = part_place(game, path, 6, splits)
        alone = part_place(game, path, 6)
        assert np.array_equal(secrets, alone[0]) and (left, pairs) == alone[1:]
    g, f = paths[0][:2]
    missing = next(int(x) for x in game.answer_ids() if x != game.win
                   and x not in game.parts(g, root))
    with pytest.raises(ValueError, match="no secret gets"):
        part_place(game, (g, missing), 6, splits)


def test_a_save_writes_each_part_fact_as_it_is_now(tmp_path):
    """A save reuses the JSON of the part facts the last one wrote (``facts_json``'s ``kept``):
    after facts are raised, solved (dropping those below) or added, the file says what a save
    from nothing would."""
    import numpy as np

    from optimizer.formats.checkpoint_io import facts_json, path_text
    from optimizer.tree import Node

    game = parse_game("mastermind:3x3")
    path = tmp_path / "c.json"
    log = Checkpoint(path, game, "any")
    g = 0
    f, f2 = list(game.parts(g, np.arange(game.n_secrets)))[:2]
    steps = [((g, f, 2), 30, None), ((g, f, 5), 31, None), ((g, f2), 20, None),
             ((g, f, 2), 33, None), ((g, f2), 22, None), ((g, f), 40, Node(2)),
             ((g, f2, 7), 9, None)]
    for where, value, tree in steps:
        log.record_part("total", 6, where, value, tree)
        log.save()
        fresh = facts_json(game, "any", log.refuted, log.totals, tmp_path)
        assert orjson.loads(path.read_bytes())["total"] == orjson.loads(orjson.dumps(
            fresh))["total"]
    assert [p["path"][:2] for p in orjson.loads(path.read_bytes())["total"]["6"]["parts"]] == [
        path_text(game, (g, f)), path_text(game, (g, f2)), path_text(game, (g, f2))]


def test_a_stopped_build_tells_its_own_pace_beside_every_run_s(tmp_path, monkeypatch, capsys):
    """`moo build` stopped: the work left at the mean pace of every run on record, and this
    run's own pace beside it."""
    import re

    _stop_after(monkeypatch, 30)  # one of its classes settled (one thread: in order)
    path = tmp_path / "cp.json"
    assert moo(["build", "mastermind:4x3", "--objective", "total", "--checkpoint", str(path),
                "-o", str(tmp_path / "t.json"), "--quiet"]) == 3
    out = capsys.readouterr().out
    assert re.search(r"left: \d+ first-guess classes below the best total, about [\d.]+ "
                     r"core-hours at [\d.]+ CPU seconds a class \(the mean of (\d+) class(es)? "
                     r"settled in 1 run\); this run: [\d.]+ CPU seconds a class over its \1\n",
                     out), out
