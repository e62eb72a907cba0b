"""Checkpoint files: what long searches settle as they go (docs/checkpoint-format.md has every
fact), so that a search stopped for any reason (a time limit, a signal, a lost machine) goes on
where it was, on this machine or another, and runs on several machines can be merged.

A checkpoint is a list of claims, not a proof: a run that takes a fact from a file says so (and
so does the tree it writes), and ``moo checkpoint verify`` re-proves any of them. The facts:
refuted heights of first guesses; per cost and depth limit, each first-guess class's exact least
cost or a bound (``lookahead``: the level of the lookahead bound that proved it), the best tree
(replayed when loaded, so its value is checked), facts below the first guess (``parts``, keyed
by the path of guesses and answers that leads to them: an exact value with its subtree, replayed
when loaded, or a bound; dropped once their class is settled), and the estimate of the work left
(not a fact).

The file is rewritten atomically as facts come (part facts at most every ``save_every`` seconds;
none more often than fifty times a write's time, so that writing stays under a fiftieth of the run,
nor less often than every minute) and at the end: a run killed outright loses at most those
seconds. Several runs may share one file: each write holds a lock (``.NAME.lock`` beside it),
re-reads the file when another run has written it since, and merges that run's new facts with its
own (``facts.three_way``), so no run erases another's. A write that fails (a full disk, a folder
made read-only) is said in one line; the run goes on with its facts in memory and still writes its
tree. Reading a file is in ``checkpoint_io``, merging facts in ``checkpoint_merge``, the lock in
``files``.
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import orjson

from ..games import Game
from ..tree import Node, node_height, printable
from .checkpoint_fields import read_header, read_json
from .checkpoint_io import facts_json, read_facts
from .checkpoint_merge import Merging
from .facts import TotalFacts, claim_text, claimed, levels_done, settles, strength
from .files import collector_paused, identity, link_target, locked, write_atomic


class Checkpoint(Merging):
    """The facts of one file (``path`` None: in memory only, for merging)."""

    # Facts come faster than a file is worth rewriting: at most every save_every seconds,
    # and less often when a write takes long (a large file), so that writing stays under a
    # fiftieth of the command's time: a run sends no job while it writes (Battleship's 62 MB
    # take 0.75 s, every 40 s). But never more than save_at_most seconds apart while facts
    # come: a write that first reads another run's facts from a shared file takes seconds more.
    save_every = 2.0
    save_at_most = 60.0

    def __init__(self, path: str | Path | None, game: Game, guesses: str, load: bool = True,
                 data: dict | None = None):
        self.path = Path(path) if path is not None else None
        self.game, self.guesses = game, guesses
        self.refuted: dict[int, dict] = {}  # guess -> {"height", "nodes", "seconds"}
        self.totals: dict[tuple[str, int], TotalFacts] = {}  # (cost, depth) -> facts
        # The file as this object last read or wrote it: its identity (another run's write
        # changes it) and its facts (what that run changed is told from them).
        self._seen: tuple | None = None
        self._base: dict = {}
        self.unsaved: str | None = None  # why the last write of the file failed (None: it did not)
        self._said: set[str] = set()
        self._dirty = False  # facts recorded since the last save
        self._saved_at = time.monotonic()
        self._save_cost = 0.0  # seconds the last write of the file took
        # the part facts' JSON of the last write (facts_json): held between writes, about
        # as much memory as the facts themselves
        self._json_kept: dict = {}
        self.corrections: list[str] = []  # facts of the file this run found false (``_correct``)
        # (cost, depth, path) of the part facts this run recorded, and (cost, depth, (guess,)) of
        # its class facts, each with the value it recorded (a stronger one merged in from
        # another run is that run's)
        self._own: dict[tuple, int] = {}
        self.run_id = uuid.uuid4().hex[:16]  # this run's key in the record of work spent
        # ``data``: the file's JSON, as Checkpoint.read found it (its version not known)
        if data is not None or (load and self.path is not None and self.path.exists()):
            if data is None:
                self._seen = identity(self.path)  # before reading: a later change is not missed
            self.refuted, self.totals = read_facts(self.path, game, guesses, data)
            self._base = self._facts()

    @classmethod
    def read(cls, path: str | Path, data: dict | None = None) -> Checkpoint:
        """A checkpoint file on its own (its game and guess mode read from it). ``data``: its
        JSON, read already (a 62 MB file takes a second to parse). The file's version is not
        kept: a save of this object (none of the commands makes one) reads it again first."""
        if data is None:
            data = read_json(Path(path))
        game, guesses = read_header(path, data)
        return cls(path, game, guesses, data=data)

    # --- facts for the searches ----------------------------------------------------------------
    def refuted_height(self, guess: int) -> int:
        """The largest height at which this opening is known to fail (0: not known)."""
        entry = self.refuted.get(guess)
        return entry["height"] if entry else 0

    def record_refuted(self, guess: int, height: int, nodes: int, seconds: float) -> None:
        if self.refuted_height(guess) >= height:
            return
        self.refuted[guess] = {"height": height, "nodes": int(nodes),
                               "seconds": round(seconds, 2)}
        self._keep()

    def tree_in_hand(self, root: Node, height: int, cost: str | None = None, depth: int = 0,
                     value: int = 0) -> None:
        """A tree of ``height`` (and ``value`` of ``cost`` within ``depth``) opening with
        ``root.guess`` is in hand: a fact of the file about its class that it disproves (refuted
        within ``height`` or more; a least cost above ``value``) is said, removed and written,
        so that the search does that class's work rather than take the false fact."""
        guess = self.game.first_guess_class(root.guess)
        false = self._unrefuted(guess, height)
        for (kind, limit), facts in self.totals.items() if cost is not None else ():
            entry = facts.classes.get(guess)
            if entry is not None and kind == cost and claimed(entry) > value and (
                    limit == depth or (cost == "total" and limit > depth)):
                self._correct(f"{self.game.format_code(guess)} within {limit}: least {cost} "
                              f"{claim_text(entry)}", f"a tree of {cost} {value} opening with it")
                del facts.classes[guess]
                false = True
        if false:
            self._keep()

    def _unrefuted(self, guess: int, height: int) -> bool:
        """Class ``guess`` has a tree of ``height`` or less: a claim that it is refuted within
        ``height`` or more is said and removed (the caller writes); whether there was one."""
        claimed_height = self.refuted_height(guess)
        if claimed_height < height:
            return False
        self._correct(f"{self.game.format_code(guess)} refuted within {claimed_height} guesses",
                      f"a tree of height {height} or less opening with it")
        del self.refuted[guess]
        return True

    def count_refuted(self, height: int) -> int:
        return sum(1 for entry in self.refuted.values() if entry["height"] >= height)

    def total_lower_bound(self, cost: str, guess: int, depth: int) -> int:
        """What the file says the least ``cost`` within ``depth`` opening with ``guess`` is at
        least (exact values included; 0: nothing known). For the total, a fact within a larger
        depth limit is a bound too (more depth can only lower a total); the other costs count the
        secrets at the depth limit itself, so only facts of the same limit are."""
        return self._class_bound(cost, guess, depth)[0]

    def taken_class(self, cost: str, guess: int, depth: int) -> bool:
        """Whether ``total_lower_bound`` rests on a fact this run did not record itself (one an
        earlier run left: what a claim resting on the file counts)."""
        value, limit = self._class_bound(cost, guess, depth)
        return value > 0 and not self._mine((cost, limit, (guess,)), value)

    def _mine(self, key: tuple, value: int) -> bool:
        """Whether this run recorded the fact ``key`` with ``value`` (or a stronger one)."""
        return self._own.get(key, -1) >= value

    def _class_bound(self, cost: str, guess: int, depth: int) -> tuple[int, int]:
        """(``total_lower_bound``, the depth limit of the fact that gives it; this run's own
        among equals)."""
        best, where = 0, depth
        for (kind, limit), facts in self.totals.items():
            entry = facts.classes.get(guess)
            if entry is None or kind != cost:
                continue
            if limit == depth or (cost == "total" and limit > depth):
                value = claimed(entry)
                if value > best or value == best and self._mine((cost, limit, (guess,)), value):
                    best, where = value, limit
        return best, where

    def lookahead_levels(self, cost: str, guess: int, depth: int) -> int:
        """How many levels of the lookahead bound of this class within ``depth`` earlier runs
        finished (0: none)."""
        facts = self.totals.get((cost, depth))
        entry = facts.classes.get(guess) if facts is not None else None
        return levels_done(entry) if entry is not None else 0

    def record_total(self, cost: str, guess: int, depth: int, value: int, exact: bool,
                     lookahead: int = 0, cut: bool = False) -> None:
        """``lookahead``: the bound is the class's lookahead bound that many levels deep
        (`moo checkpoint verify` then re-proves it that way; ``cut``: the job stopped at its
        cut-off before the level's end). Such a bound does not settle the class. A fact of the
        file that this result contradicts is corrected, and said (``corrections``)."""
        facts = self.totals.setdefault((cost, depth), TotalFacts())
        old = facts.classes.get(guess)
        false = old is not None and (old.get("exact", value) != value if exact
                                     else old.get("exact", value) < value)
        if exact and old is not None and old.get("at_least", value) > value:
            false = True
        code = self.game.format_code(guess)
        if false:
            self._correct(f"{code} within {depth}: least {cost} {claim_text(old)}",
                          f"{'exactly' if exact else 'at least'} {value}")
        if exact and self._unrefuted(guess, depth):  # a tree within depth opens with it
            false = True  # written at once, as said
        new = {"exact" if exact else "at_least": int(value)}
        if lookahead and not exact:
            new["lookahead"] = int(lookahead)
            if cut:
                new["cut"] = True
        if old is not None and not exact and not false and (
                "exact" in old or strength(old) >= strength(new)):
            if settles(old, facts.best()):  # settled since by a better tree (a --gap bound)
                self.drop_parts(cost, depth, (guess,))
            return
        facts.classes[guess] = new
        self._own[cost, depth, (guess,)] = int(value)
        if settles(new, facts.best()):
            self.drop_parts(cost, depth, (guess,))
        if false:  # a false fact of the file is corrected at once
            self._keep()
        else:
            self._keep_soon()

    def _correct(self, fact: str, found: str) -> None:
        """A fact read from the file (or recorded by another run) that this run found false:
        said in one line naming the file and the fact, and kept in ``corrections``; the caller
        writes the fact this run proved in its place."""
        text = f"the fact '{fact}' is false: this run found {found}; corrected in the file"
        self.corrections.append(text)
        self._warn(text)

    def better_incumbent(self, cost: str, depth: int, upper: int | None, root: Node | None):
        """(value, root) of the best of a caller's tree and the file's trees within ``depth``
        (for the total, any of height ``depth`` or less, whatever the limit it was found in)."""
        for (kind, limit), facts in self.totals.items():
            if kind != cost or facts.incumbent is None or (
                    upper is not None and facts.incumbent[0] >= upper):
                continue
            if limit == depth or (cost == "total" and (
                    limit < depth or node_height(facts.incumbent[1]) <= depth)):
                upper, root = facts.incumbent
        return upper, root

    def record_incumbent(self, cost: str, depth: int, value: int, root: Node,
                         save: bool = True) -> None:
        """A better tree within ``depth``; written at once unless ``save`` is False (a merge,
        which checks the whole before it writes)."""
        facts = self.totals.setdefault((cost, depth), TotalFacts())
        if facts.incumbent is None or value < facts.incumbent[0]:
            facts.incumbent = (int(value), root)
            self._settled_parts()  # a bound below the old tree may reach the new one
            if save:
                self._keep()
            else:
                self._dirty = True

    def part_fact(self, cost: str, depth: int, path: tuple[int, ...]) -> dict | None:
        """What the file says of the part (or the part's opening) ``path`` leads to, within
        ``depth`` for the whole game: {"exact": v, "tree": node}, {"at_least": v} or None."""
        facts = self.totals.get((cost, depth))
        return facts.parts.get(tuple(path)) if facts is not None else None

    def proved_here(self, cost: str, depth: int, path: tuple[int, ...]) -> bool:
        """Whether this run recorded the part fact on ``path`` as it is on file (a fact it did
        not take; one another run made stronger since is that run's)."""
        fact = self.part_fact(cost, depth, path)
        return fact is not None and self._mine((cost, depth, tuple(path)), claimed(fact))

    def record_part(self, cost: str, depth: int, path: tuple[int, ...], value: int,
                    tree: Node | None) -> None:
        """A part settled below the root: exactly ``value`` with ``tree``, or at least ``value``
        (``tree`` None). Saved as ``_keep_soon`` says."""
        facts = self.totals.setdefault((cost, depth), TotalFacts())
        path = tuple(int(x) for x in path)
        if not facts.set_part(path, value, tree):
            return
        self._own[cost, depth, path] = claimed(facts.parts[path])
        self._keep_soon(self.save_every)

    def drop_parts(self, cost: str, depth: int, prefix: tuple[int, ...]) -> None:
        """Forget the part facts below ``prefix``: a settled fact above them says all they did."""
        facts = self.totals.get((cost, depth))
        if facts is not None and facts.drop_below(prefix):
            self._dirty = True

    def drop_classes_parts(self, cost: str, depth: int, guesses: set[int]) -> None:
        """Forget the part facts of classes that a search found settled by their bound against
        the best tree (total.py): a run that searched them beside others and was stopped left
        them, and no search would take them up again."""
        facts = self.totals.get((cost, depth))
        if facts is not None and guesses and facts.drop_classes(guesses):
            self._dirty = True

    def record_estimate(self, cost: str, depth: int, estimate: dict) -> None:
        """The work left, as this run measures it; written with the next save."""
        self.totals.setdefault((cost, depth), TotalFacts()).estimate = dict(estimate)
        self._dirty = True

    def record_spent(self, cost: str, depth: int, cpu: float, classes: int,
                     goal: int | None = None, drawn: bool = False) -> None:
        """This run spent ``cpu`` more CPU seconds of search and settled ``classes`` more
        first-guess classes (with --gap: lifted them to ``goal``; a run whose goal fell with a
        better tree keeps its sums under the last; ``drawn``: classes drawn at random among
        those open); written with the next save. Summed over every run of the same kind, it
        sets the pace of the estimate (``progress.Pace``)."""
        facts = self.totals.setdefault((cost, depth), TotalFacts())
        old = facts.spent.get(self.run_id, {"cpu_seconds": 0.0, "classes": 0})
        # a new entry, not the old one changed: the file's last state (``_base``) holds that
        entry = {"cpu_seconds": old["cpu_seconds"] + cpu,  # rounded on write
                 "classes": old["classes"] + classes}
        if goal is not None:
            entry["goal"] = int(goal)
        if drawn:
            entry["drawn"] = True
        facts.spent[self.run_id] = entry
        self._dirty = True

    def spent_so_far(self, cost: str, depth: int,
                     goal: int | None = None) -> tuple[float, int, int]:
        """(CPU seconds, classes settled) that the runs on record of this kind (``goal``:
        ``TotalFacts.spent_in_all``) spent, this one's so far included, and how many runs
        that is with this one."""
        facts = self.totals.get((cost, depth)) or TotalFacts()
        cpu, classes, runs = facts.spent_in_all(goal)
        own = facts.spent.get(self.run_id)
        return cpu, classes, runs + (own is None or own.get("goal") != goal)

    def drawn_so_far(self, cost: str, depth: int) -> tuple[float, int]:
        """(CPU seconds, classes) of the runs on record that settled classes drawn at random
        (``TotalFacts.drawn``)."""
        return (self.totals.get((cost, depth)) or TotalFacts()).drawn()

    def flush(self) -> None:
        """Save what is recorded and not yet written (part facts, the estimate)."""
        if self._dirty:
            self._keep()

    def close(self, create: bool = True) -> None:
        """At a run's end: what is not yet written, and (``create``) the file itself when the
        run had no fact to record (a height proof that counting settles), so that a user who
        named it finds it, with the game and no facts, rather than "No such file" from the next
        command."""
        if self._dirty or (create and self.path is not None and not self.path.exists()):
            self._keep(last=True)

    # --- writing -------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The file's JSON (a word game's list files named from the file's folder, or the
        current one for a checkpoint in memory)."""
        folder = link_target(self.path).parent if self.path is not None else Path.cwd()
        return facts_json(self.game, self.guesses, self.refuted, self.totals, folder,
                          self._json_kept)

    def save(self) -> None:
        """Write the facts to this checkpoint's file, under its lock, after merging what other
        runs (or a `moo checkpoint merge` into it) wrote there since this object last read or
        wrote it."""
        if self.path is None:
            return
        started = time.monotonic()
        with locked(self.path), collector_paused():
            self._take_theirs()
            write_atomic(self.path, self._payload())
            self._seen = identity(self.path)
            self._base = self._facts()
        now = time.monotonic()
        self._dirty, self._save_cost, self._saved_at = False, now - started, now

    def _payload(self) -> bytes:
        return orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2)

    def _keep_soon(self, floor: float = 0.0) -> None:
        """Save a new fact now when nothing was saved for fifty times the last write's time
        (and ``floor`` seconds; at most ``save_at_most``), else with a later one or ``flush``,
        so that writing stays under a fiftieth of the run's time: facts may come many a second
        (a split part's guesses; Wordle's openings, a tenth of a second each, where a write of
        every class fact took a quarter of the parent's time)."""
        self._dirty = True
        wait = max(floor, min(50 * self._save_cost, self.save_at_most))
        if time.monotonic() - self._saved_at >= wait:
            self._keep()

    def _keep(self, last: bool = False) -> None:
        """Save a new fact during a search. A failure must not end the search (its tree is
        worth more than the file): it is said once, and each later fact tries again with
        everything known; at the run's end (``last``) there is no later fact, so it says what
        is lost."""
        try:
            self.save()
        except (OSError, ValueError) as exc:  # CheckpointError, OutputError are ValueErrors
            reason = (f"{exc.strerror}" if isinstance(exc, OSError) and exc.strerror
                      else str(exc))
            if last:
                self._warn(f"cannot write the checkpoint at the run's end ({reason}); the facts "
                           "of this run that it does not hold are lost (the tree is not)")
            elif self.unsaved is None:
                self._warn(f"cannot write the checkpoint ({reason}); the run goes on with its "
                           "facts in memory, writes its tree, and tries again at each new fact")
            self.unsaved = reason
        else:
            if self.unsaved is not None:
                self._warn("the checkpoint is written again, with every fact of this run")
            self.unsaved = None

    def _warn(self, text: str) -> None:
        line = f"moo: warning: {printable(self.path)}: {text}"
        if line not in self._said:
            self._said.add(line)
            print(line, file=sys.stderr, flush=True)
