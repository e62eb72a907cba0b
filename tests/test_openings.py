"""Root classes searched whole, one job each and several at once (search/openings.py), against
the plain search: the least cost of the whole game on one thread and two, with classes that
outrun the cap searched by parts instead and a run that stops trying; each class's fact in the
checkpoint is true, and a stopped run's bound is one."""

from __future__ import annotations

import threading

import pytest
from oracle import plain_cost, plain_optimum, plain_values
from test_words_search import _lists

from optimizer.formats.checkpoint import Checkpoint
from optimizer.games import parse_game, word_game
from optimizer.search import total as total_module
from optimizer.search.engine import Inline, InProcess, Stopped
from optimizer.search.jobs import total_part
from optimizer.search.openings import OpeningJobs
from optimizer.search.solver import NodeSolver
from optimizer.search.total import TotalSearch, total_opening
from optimizer.tree import Tree, replay

GAMES = [("mastermind:3x3", "any"), ("bulls-cows:3x5", "consistent"), ("battleship:2x4x2", "any"),
         ("moo:3,4,5", "any"), ("words", "any"), ("words", "hard")]


def _game(spec: str):
    return word_game(*_lists(2, 12, 20)) if spec == "words" else parse_game(spec)


@pytest.fixture
def every_class_whole(monkeypatch):
    """Every root search tries its classes whole, however few."""
    monkeypatch.setattr(total_module, "MANY_CLASSES", 1)


def _search(game, mode, threads, checkpoint=None, deadline=None):
    solver = NodeSolver(game, mode, table_bits=14)
    return TotalSearch(solver, InProcess(solver, threads=threads), deadline=deadline,
                       checkpoint=checkpoint)


@pytest.mark.parametrize("spec,mode", GAMES)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("cap,tries", [(2.0, 8), (0.0, 1000), (0.0, 2)])
def test_classes_searched_whole_give_the_plain_optimum(spec, mode, threads, cap, tries,
                                                       every_class_whole, monkeypatch):
    """cap 0: every class outruns its cap (its job held until the first look) and is searched
    by parts; tries 2: the run stops trying after two such classes."""
    monkeypatch.setattr(OpeningJobs, "cap", cap)
    monkeypatch.setattr(OpeningJobs, "tries", tries)
    seen = _watch(monkeypatch)
    game = _game(spec)
    height, total, limited = plain_optimum(game, mode)
    search = _search(game, mode, threads)
    if cap == 0:
        _held_until_looked_at(search, monkeypatch)
    if search.whole_game():  # one thread, no checkpoint: the kernel's root is one job
        search.checkpoint = Checkpoint(None, game, mode)  # by classes (a file in memory)
    try:
        for depth, expected in ((game.n_codes, total), (height, limited)):
            out = search.min_total(depth)
            assert out.optimal and out.value == expected == out.lower_bound, (depth, out.value)
            replayed = replay(Tree(game, out.root, "total", mode))
            assert replayed.total == expected and replayed.height <= depth
        assert search.min_total(height - 1).root is None  # no tree that low
    finally:
        search.engine.close()
    assert seen["whole"] > 0  # every run took some class whole ...
    if cap == 0:  # ... and with no time for it, most went on by parts
        assert seen["capped"] > 0 and seen["by parts"] >= seen["capped"]
    assert not seen["gave up"] or tries == 2


def _held_until_looked_at(search, monkeypatch) -> None:
    """A class's job starts only once the search has looked for a finished job after sending it:
    a small class's job could otherwise finish before the first look, and a run whose few whole
    classes all did so would never stop one at the cap (1 run in 3, once the best tree of no
    limit served the depth limit too and the second search sent none)."""
    looked, wait, opening = threading.Event(), search.engine.wait, total_module.total_opening

    def looking(*args):
        job = wait(*args)
        looked.set()
        return job

    def held(solver, *args):
        assert looked.wait(60), "the search never looked"
        return opening(solver, *args)

    def sending(self, *args):
        looked.clear()
        return send(self, *args)

    send = OpeningJobs.send
    monkeypatch.setattr(search.engine, "wait", looking)
    monkeypatch.setattr(total_module, "total_opening", held)
    monkeypatch.setattr(OpeningJobs, "send", sending)


def _watch(monkeypatch) -> dict:
    """Counts of what the root searches did: classes whole, capped, by parts, and whether a
    run gave up trying classes whole."""
    seen = {"whole": 0, "capped": 0, "by parts": 0, "gave up": False}
    send, settle, nxt = OpeningJobs.send, TotalSearch.root_class, OpeningJobs.next

    def counted_send(self, *args):
        seen["whole"] += 1
        return send(self, *args)

    def counted_next(self):
        was_on = self.on
        index, value, tree = nxt(self)
        seen["capped"] += value is None
        self.streak = getattr(self, "streak", 0) + 1 if value is None else 0
        assert self.on == (was_on and self.streak < self.tries)  # off after `tries`, for good
        seen["gave up"] |= not self.on
        return index, value, tree

    def counted_settle(self, *args):
        seen["by parts"] += 1
        return settle(self, *args)

    monkeypatch.setattr(OpeningJobs, "send", counted_send)
    monkeypatch.setattr(OpeningJobs, "next", counted_next)
    monkeypatch.setattr(TotalSearch, "root_class", counted_settle)
    return seen


@pytest.mark.parametrize("spec,mode", GAMES[:3])
def test_the_deep_counts_of_classes_searched_whole(spec, mode, every_class_whole):
    game = _game(spec)
    height = plain_optimum(game, mode)[0]
    cost = plain_cost(game, mode)
    root = frozenset(range(game.n_secrets))
    search = _search(game, mode, 2)
    search.cost = "deep"
    try:
        out = search.min_total(height)
        assert out.optimal and out.value == cost(root, height, 0, 1)
    finally:
        search.engine.close()


@pytest.mark.parametrize("spec,mode", [("battleship:2x4x2", "any"), ("words", "any")])
def test_the_facts_of_classes_searched_whole_are_true(spec, mode, every_class_whole, tmp_path):
    """Each class's least total or bound in the checkpoint against the plain class value, and
    a second run on the file settles every class from it."""
    game = _game(spec)
    _, total = plain_values(game, mode)
    log = Checkpoint(tmp_path / "c.json", game, mode)
    search = _search(game, mode, 2, checkpoint=log)
    try:
        out = search.min_total(game.n_codes)
    finally:
        search.engine.close()
    facts = 0
    for guess, parts in search.root_classes():
        true = game.n_secrets + sum(total(frozenset(int(s) for s in p), game.n_codes - 1)
                                    for p in parts.values())
        known = log.total_lower_bound("total", guess, game.n_codes)
        assert known <= true, guess
        facts += known > 0
    assert facts > 0
    again = _search(game, mode, 2, checkpoint=Checkpoint(tmp_path / "c.json", game, mode))
    try:
        second = again.min_total(game.n_codes)
    finally:
        again.engine.close()
    assert second.optimal and second.value == out.value and second.searched == 0


@pytest.mark.parametrize("cap", [2.0, 0.0])
def test_a_run_stopped_among_whole_classes_keeps_true_facts_and_goes_on(cap, every_class_whole,
                                                                         monkeypatch, tmp_path):
    """Stopped (Ctrl-C) at the third class to finish, classes still running: its bound and
    every fact it wrote are true, and the next run on the file ends at the optimum."""
    monkeypatch.setattr(OpeningJobs, "cap", cap)
    game = parse_game("battleship:2x4x2")
    _, total = plain_values(game, "any")
    optimum = plain_optimum(game, "any")[1]
    nxt, calls = OpeningJobs.next, []

    def interrupted(self):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return nxt(self)

    monkeypatch.setattr(OpeningJobs, "next", interrupted)
    log = Checkpoint(tmp_path / "c.json", game, "any")
    search = _search(game, "any", 2, checkpoint=log)
    try:
        out = search.min_total(game.n_codes)
    finally:
        search.engine.close()
    assert out.stopped and not out.optimal and out.lower_bound <= optimum
    again = Checkpoint(tmp_path / "c.json", game, "any")  # what was written, flushed at the stop
    written = 0
    for guess, parts in search.root_classes():
        true = game.n_secrets + sum(total(frozenset(int(s) for s in p), game.n_codes - 1)
                                    for p in parts.values())
        assert again.total_lower_bound("total", guess, game.n_codes) <= true
        written += again.total_lower_bound("total", guess, game.n_codes) > 0
    assert written == 2 or cap == 0
    monkeypatch.setattr(OpeningJobs, "next", nxt)
    resumed = _search(game, "any", 2, checkpoint=again)
    try:
        last = resumed.min_total(game.n_codes)
    finally:
        resumed.engine.close()
    assert last.optimal and last.value == optimum


def test_a_class_with_part_facts_on_file_is_searched_by_parts(every_class_whole, monkeypatch,
                                                              tmp_path):
    """A whole job would not take the facts an earlier run left on its parts."""
    seen = _watch(monkeypatch)
    game = parse_game("battleship:2x4x2")
    log = Checkpoint(tmp_path / "c.json", game, "any")
    search = _search(game, "any", 2, checkpoint=log)
    guess, parts = search.root_classes()[0]
    fid = next(iter(parts))
    log.record_part("total", game.n_codes, (guess, fid), 1, None)  # a true bound: one guess
    sent = []
    send = OpeningJobs.send
    monkeypatch.setattr(OpeningJobs, "send",
                        lambda self, index, g, beta: (sent.append(g), send(self, index, g, beta)))
    try:
        out = search.min_total(game.n_codes)
    finally:
        search.engine.close()
    assert out.optimal and out.value == plain_optimum(game, "any")[1]
    assert guess not in sent and sent and seen["by parts"] >= 1


def test_a_cancelled_class_job_ends_at_its_next_step():
    """The search inside a whole-class job runs on engine.Inline: once the job is cancelled (its
    solver's stop flag), the next job it submits raises Stopped, and the job returns at once."""
    game = parse_game("battleship:2x4x2")
    solver = NodeSolver(game, "any", table_bits=14)
    inline = Inline(solver)
    assert inline.submit(total_part, solver.root(), game.n_codes, 10**9, []).done()
    solver.stop[0] = 1
    with pytest.raises(Stopped):
        inline.submit(total_part, solver.root(), game.n_codes, 10**9, [])
    value, tree, _, _ = total_opening(solver, int(solver.root()[0]), game.n_codes, 10**9)
    assert tree is None
