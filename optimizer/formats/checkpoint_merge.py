"""Joining checkpoint facts: ``moo checkpoint merge`` of other files and tree files, the
three-way merge of a file that other runs wrote since this run last read it (several runs, or
machines, sharing one file), and the check that the facts joined do not contradict each other.
``Checkpoint`` (checkpoint.py) takes these from ``Merging``; they work on its facts (``refuted``,
``totals``), its file (``path``) and the state it last read or wrote (``_seen``, ``_base``)."""

from __future__ import annotations

from ..tree import Node, Tree, replay
from .checkpoint_io import CheckpointError, path_text
from .facts import SPENT, TotalFacts, claimed, flatten, settles, strength, three_way, unflatten
from .files import identity


class Merging:
    """The merging half of a checkpoint (see the module)."""

    def add_tree(self, tree: Tree) -> None:
        """A tree found elsewhere (``moo checkpoint merge`` of a tree file): the best total
        within its height when it beats the file's (replayed here, its value checked). Checked
        against the file's facts whether it beats it or not: a tree costs at least what its
        opening's class is said to, or one of the two is false."""
        if (tree.game.identity, tree.guesses) != (self.game.identity, self.guesses):
            raise CheckpointError(f"a tree of {tree.game.spec} ({tree.guesses} guesses) cannot "
                                  f"join {self.game.spec} ({self.guesses} guesses)")
        result = replay(tree)
        if result.defects:
            raise CheckpointError(f"the tree does not replay: {result.defects[0]}")
        self._contradicted("total", result.height, result.total, tree.root, result.height,
                           "the tree merged")
        self.record_incumbent("total", result.height, result.total, tree.root, save=False)
        self.check()

    # --- merging -------------------------------------------------------------------------------
    def merge(self, other: Merging) -> None:
        """Add ``other``'s facts; CheckpointError where the two contradict each other (the
        caller names the file)."""
        if (other.game.identity, other.guesses) != (self.game.identity, self.guesses):
            raise CheckpointError(f"{other.game.spec} ({other.guesses} guesses) cannot be "
                                  f"merged with {self.game.spec} ({self.guesses} guesses)")
        for guess, entry in other.refuted.items():
            if entry["height"] > self.refuted_height(guess):
                self.refuted[guess] = entry
        for key, facts in other.totals.items():
            mine = self.totals.setdefault(key, TotalFacts())
            for guess, entry in facts.classes.items():
                mine.classes[guess] = self._union(guess, key, mine.classes.get(guess), entry)
            if facts.incumbent is not None and (
                    mine.incumbent is None or facts.incumbent[0] < mine.incumbent[0]):
                mine.incumbent = facts.incumbent
            for path, entry in facts.parts.items():
                mine.parts[path] = self._union(path, key, mine.parts.get(path), entry)
            if facts.estimate is not None and (
                    mine.estimate is None or facts.estimate["classes"] < mine.estimate["classes"]):
                mine.estimate = facts.estimate  # the one with less left: the later state
            for run, entry in facts.spent.items():  # runs both files record: the later state
                if run not in mine.spent or _progress(entry) > _progress(mine.spent[run]):
                    mine.spent[run] = entry
        self._settled_parts()
        self.check()

    def _union(self, guess: int | tuple, key: tuple[str, int], a: dict | None, b: dict) -> dict:
        """The union of two facts on one class (``guess``) or part (a path)."""
        if a is None:
            return b
        code = (self.game.format_code(guess) if isinstance(guess, int)
                else "/".join(path_text(self.game, guess)))
        depth = f"{key[1]} ({key[0]})"
        if "exact" in a and "exact" in b and a["exact"] != b["exact"]:
            raise CheckpointError(f"contradiction: {code} within {depth}: exact {a['exact']} "
                                  f"and exact {b['exact']}")
        exact = a if "exact" in a else b if "exact" in b else None
        if exact is not None:
            other = b if exact is a else a
            if other.get("at_least", 0) > exact["exact"]:
                raise CheckpointError(f"contradiction: {code} within {depth}: exact "
                                      f"{exact['exact']} and at least {other['at_least']}")
            return exact
        return a if strength(a) >= strength(b) else b

    def _settled_parts(self) -> None:
        """Drop the part facts of settled classes (a merge may bring both; a better tree may
        settle a --gap bound). Only the few classes with part facts are looked at: a pass over
        every class, each a pass over the parts, took seconds on Battleship's file."""
        for (cost, depth), facts in self.totals.items():
            best = facts.best()
            for guess in {path[0] for path in facts.parts}:
                entry = facts.classes.get(guess)
                if entry is not None and settles(entry, best):
                    self.drop_parts(cost, depth, (guess,))

    def check(self) -> None:
        """Facts that contradict each other: a class's least total above a tree that opens with
        it, or a refuted height at or above such a tree's height."""
        for (cost, depth), facts in self.totals.items():
            if facts.incumbent is not None:
                value, root = facts.incumbent
                height = replay(Tree(self.game, root, "total", self.guesses)).height
                self._contradicted(cost, depth, value, root, height,
                                   f"the {cost} incumbent within {depth}")

    def _contradicted(self, cost: str, depth: int, value: int, root: Node, height: int,
                      what: str) -> None:
        """CheckpointError if a tree within ``depth`` of this cost and height, opening with
        ``root``'s guess, contradicts a fact on file (about its opening's class, whichever code
        of the class the tree opens with)."""
        opening = self.game.format_code(root.guess)
        guess = self.game.first_guess_class(root.guess)
        known = self.total_lower_bound(cost, guess, depth)
        if known > value:
            raise CheckpointError(f"contradiction: {what} opens with {opening} and costs "
                                  f"{value}, but that class is said to cost at least {known}")
        if self.refuted_height(guess) >= height:
            raise CheckpointError(
                f"contradiction: {opening} is said to be refuted at height "
                f"{self.refuted_height(guess)}, but {what} opens with it and has height "
                f"{height}")

    # --- sharing one file between runs ---------------------------------------------------------
    def _facts(self) -> dict:
        return flatten(self.refuted, self.totals)

    def _take_theirs(self) -> None:
        """Merge what other runs wrote to the file since this object last read or wrote it
        (the caller holds the lock). A three-way merge against that last state: a fact only
        they changed (or removed, as a run does with a fact it found false) is theirs, one
        only this run changed is this run's, one both changed is the stronger of two proven
        facts (a contradiction between them, which only a false fact causes, becomes the
        weaker claim that holds if either does, and is said). A file removed since is no
        retraction: this run's facts are written again, all of them."""
        if self.path is None or identity(self.path) in (None, self._seen):
            return
        theirs = type(self)(self.path, self.game, self.guesses)._facts()
        merged = three_way(self._facts(), self._base, theirs, self._stronger)
        self.refuted, self.totals = unflatten(merged)
        self._settled_parts()
        try:
            self.check()
        except CheckpointError as exc:
            self._warn(f"{exc} (after merging another run's facts; `moo checkpoint verify` "
                       "finds the false one)")

    def _stronger(self, key: tuple, mine, theirs):
        """The stronger of two runs' facts under one key; a contradiction between two class
        facts (exact 206 and exact 208, exact 206 and at least 207) becomes 'at least' the
        smaller value, which holds if either fact does."""
        if key[0] == "height":
            return theirs if theirs["height"] > mine["height"] else mine
        if key[2] is None:
            return theirs if theirs[0] < mine[0] else mine
        if key[2] == "estimate":
            return mine  # this run's own measure, the newer one
        if isinstance(key[2], str):  # a run's spending: its own run's, else the later state
            return mine if key[2] == SPENT + self.run_id else max(mine, theirs, key=_progress)
        try:
            return self._union(key[2], key[:2], mine, theirs)
        except CheckpointError as exc:
            low = min((mine, theirs), key=claimed)
            value = claimed(low)
            self._warn(f"another run's fact contradicts this run's: {exc}; kept 'at least "
                       f"{value}', which holds if either does (`moo checkpoint verify` finds "
                       "the false one)")
            return {"at_least": value, **{k: low[k] for k in ("lookahead", "cut") if k in low}}


def _progress(spent: dict) -> tuple[float, int]:
    """How far a run's spending record had come: a later state of one run's record is never
    below an earlier one in either figure."""
    return spent["cpu_seconds"], spent["classes"]
