"""The checkpoint file on disk (docs/checkpoint-format.md): its format, reading and checking a
file into facts and writing them back. The checks of single values are in ``checkpoint_fields``;
the facts in memory, in ``facts``; what the searches do with them, in ``checkpoint``; the lock
that runs sharing one file take, in ``files``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..games import Game, GameError
from ..objective import cost_value
from ..tree import Node, Tree, TreeError, replay
from .checkpoint_fields import (
    COSTS,
    FORMAT,
    LISTS,
    OLD_FORMAT,
    VERSION,
    CheckpointError,
    allowed_keys,
    count,
    estimate,
    json_object,
    number,
    read_json,
    spelling_of,
    spent,
)
from .facts import TotalFacts
from .files import collector_paused
from .tree_file import node_from_json, node_to_json

MEANING = {
    "height.refuted": "no strategy opening with this guess solves every secret within 'height' "
                      "guesses",
    "total.classes": "the least total within DEPTH guesses of the strategies opening with this "
                     "guess is 'exact', or at least 'at_least' (shown by the lookahead bound "
                     "that many levels deep when 'lookahead' is given; 'cut': that level "
                     "stopped at its cut-off, not finished)",
    "total.incumbent": "the best strategy found within DEPTH guesses (checked by replay on load)",
    "total.parts": "facts below the first guess, each about the secrets that 'path' (guess, "
                   "feedback, guess, ...) leads to: their least total within DEPTH guesses in "
                   "all (after a feedback: of every strategy for them; after a guess: of the "
                   "strategies for them opening with it) is 'exact', 'tree' one that achieves "
                   "it (checked by replay on load), or at least 'at_least'",
    "total.estimate": "the work left when it was written: first-guess classes not settled whose "
                      "bound is below the best tree, and core-hours at the pace of every run "
                      "recorded in 'spent' without a 'goal'",
    "total.spent": "by run: the CPU seconds of search it spent and the first-guess classes it "
                   "settled, or with --gap lifted to its 'goal' (not facts: what sets the "
                   "pace of the estimate, and of the runs of one goal)",
    "deepest": "as total, for 4194304 x (secrets solved with exactly DEPTH guesses) + total",
    "deep": "as total, for the number of secrets solved with exactly DEPTH guesses",
}


def part_place(game: Game, path: tuple[int, ...], depth: int,
               splits: dict | None = None) -> tuple[np.ndarray, int, tuple]:
    """(the secrets a part fact's ``path`` leads to, the guesses left to them within ``depth``,
    the (guess, feedback) pairs above them); ValueError for a path no secret follows. A path
    ending with a guess is about the strategies for the part before it that open with it.
    ``splits``: the partitions made so far, by the pairs above and the guess, for a reader of
    many facts (a Battleship file's 180,000 facts each split the 4960 secrets again: 12 s)."""
    secrets = None  # every secret, made when a split is not known already
    pairs = tuple(zip(path[0::2], path[1::2], strict=False))
    for i, (guess, fid) in enumerate(pairs):
        split = None if splits is None else splits.get((pairs[:i], guess))
        if split is None:
            if secrets is None:  # as the kernels take candidates
                secrets = np.arange(game.n_secrets, dtype=np.int32)
            split = game.parts(guess, secrets)
            if splits is not None:
                splits[pairs[:i], guess] = split
        secrets = split.get(fid)
        if secrets is None:
            raise ValueError(f"no secret gets {game.format_feedback(fid)} from "
                             f"{game.format_code(guess)} there")
    if secrets is None:  # a path of one guess: about every secret
        secrets = np.arange(game.n_secrets, dtype=np.int32)
    return secrets, depth - len(pairs), pairs


def path_text(game: Game, path: tuple[int, ...]) -> list[str]:
    """A part fact's path in the file's notation: codes and feedback keys in turn."""
    return [game.format_feedback(x) if i % 2 else game.format_code(x) for i, x in enumerate(path)]


def read_facts(path: Path, game: Game, guesses: str, data: dict | None = None
               ) -> tuple[dict[int, dict], dict[tuple[str, int], TotalFacts]]:
    """The facts of a checkpoint file of ``game`` and ``guesses`` (``data``: its JSON, when
    read already): (refuted heights by guess, least-cost facts by (cost, depth));
    CheckpointError for any defect, naming its place."""
    reader = _Reader(game, guesses)
    with collector_paused():
        reader.load(path, data)
    return reader.refuted, reader.totals


def facts_json(game: Game, guesses: str, refuted: dict, totals: dict, folder: Path,
               kept: dict | None = None) -> dict:
    """The JSON of a checkpoint's facts for a file in ``folder`` (docs/checkpoint-format.md).
    ``kept``: the part facts' JSON of the last call, by (cost, depth, path), each with the fact
    it was made from; reused for the same fact (facts are replaced, never changed) and replaced
    by this call's: a run's saves rewrite thousands of subtrees that did not change."""
    code = game.format_code
    made: dict = {}
    data = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.spec_from(folder),
        "guesses": guesses,
        "meaning": MEANING,
        "height": {"refuted": {code(g): e for g, e in sorted(refuted.items())}},
    }
    if game.digest:
        data[LISTS] = game.digest
    for (cost, depth), facts in sorted(totals.items()):
        entry: dict = {"classes": {code(g): e for g, e in sorted(facts.classes.items())}}
        if facts.incumbent is not None:
            entry["incumbent"] = {"value": facts.incumbent[0],
                                  "root": node_to_json(game, facts.incumbent[1])}
        if facts.parts:
            entry["parts"] = [_part_json(game, (cost, depth, path), fact, kept or {}, made)
                              for path, fact in sorted(facts.parts.items())]
        if facts.estimate is not None:
            entry["estimate"] = facts.estimate
        if facts.spent:
            entry["spent"] = {run: {**e, "cpu_seconds": round(e["cpu_seconds"], 3)}
                              for run, e in sorted(facts.spent.items())}
        data.setdefault(cost, {})[str(depth)] = entry
    data.setdefault("total", {})
    if kept is not None:
        kept.clear()
        kept.update(made)
    return data


def _part_json(game: Game, key: tuple, fact: dict, kept: dict, made: dict) -> dict:
    old = kept.get(key)
    if old is not None and old[0] is fact:
        made[key] = old
        return old[1]
    out: dict = {"path": path_text(game, key[2])}
    if "exact" in fact:
        out.update(exact=fact["exact"], tree=node_to_json(game, fact["tree"]))
    else:
        out["at_least"] = fact["at_least"]
    made[key] = (fact, out)
    return out


def _wordle_digest() -> str:
    """The digest of the package's own Wordle lists (not those of any game named "wordle")."""
    from ..games import parse_game  # the package's game, kept once parsed

    return parse_game("wordle").digest


class _Reader:
    """The facts of one file as they are read and checked (``read_facts``)."""

    def __init__(self, game: Game, guesses: str):
        self.game, self.guesses = game, guesses
        self.refuted: dict[int, dict] = {}
        self.totals: dict[tuple[str, int], TotalFacts] = {}
        # what was read already: codes and feedback by their text, and the partitions of the
        # part facts under one first guess (the file lists them sorted by path)
        self._codes: dict[str, int] = {}
        self._feedbacks: dict[str, int] = {}
        self._splits: dict = {}
        self._first: int | None = None

    def load(self, path: Path, data: dict | None = None) -> None:
        if data is None:
            data = read_json(path)
        where = str(path)
        unknown = set(data) - allowed_keys(data, where)
        if unknown:
            raise CheckpointError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if not self._same_game(data.get("game"), data.get(LISTS)) or \
                data.get("guesses") != self.guesses:
            if spelling_of(data.get("game"), self.game.spec) and (
                    data.get("guesses") == self.guesses):
                raise CheckpointError(f"{where}: 'game': write {self.game.spec!r}, as the "
                                      f"program does, not {data.get('game')!r}")
            raise CheckpointError(
                f"{where}: written for {data.get('game')} ({data.get('guesses')} guesses), "
                f"not {self.game.spec} ({self.guesses} guesses)")
        self._check_lists(data.get(LISTS), where)
        if data.get("format") == OLD_FORMAT:
            self._load_refuted(data.get("refuted"), f"{where}: refuted")
            return
        height = json_object(data.get("height", {}), f"{where}: height")
        if set(height) - {"refuted"}:
            raise CheckpointError(f"{where}: height: only 'refuted' is known")
        self._load_refuted(height.get("refuted", {}), f"{where}: height.refuted")
        for cost in COSTS:
            for text, facts in json_object(data.get(cost, {}), f"{where}: {cost}").items():
                self._load_total(cost, text, facts, f"{where}: {cost}[{text!r}]")

    def _same_game(self, spec, digest) -> bool:
        """Whether the file's spec is this game's: for a word game with the lists' digest on
        file any spec of word lists (its paths are the file's, relative to its folder;
        ``_check_lists`` compares the digests). Without a digest, only the same spec."""
        if not self.game.digest or digest is None:
            return spec == self.game.spec
        return isinstance(spec, str) and (spec in ("wordle", "words") or
                                          spec.startswith("words:"))

    def _check_lists(self, digest, where: str) -> None:
        """A word game's file must have been written for these very lists: a spec of files
        names the files, not their words. One written without the digest (before it was
        kept) is taken only for Wordle, whose lists are the package's own."""
        spec, mine = self.game.spec, self.game.digest
        if digest is None:
            if mine and mine != _wordle_digest():
                raise CheckpointError(
                    f"{where}: written without the word lists' digest ({LISTS}), so nothing "
                    f"shows its facts are about the lists {spec} names now; start a new "
                    f"checkpoint for them")
        elif not mine:
            raise CheckpointError(f"{where}: {LISTS} is for word games; {spec} has no lists")
        elif digest != mine:
            raise CheckpointError(
                f"{where}: written for other word lists than those {spec} names now (their "
                f"digests differ), so its facts are not about this game; start a new "
                f"checkpoint for these lists")

    def _load_refuted(self, entries, where: str) -> None:
        for text, entry in json_object(entries, where).items():
            guess = self._code(text, where)
            entry = json_object(entry, f"{where}[{text!r}]")
            if set(entry) - {"height", "nodes", "seconds"}:
                raise CheckpointError(f"{where}[{text!r}]: keys are height, nodes, seconds")
            height = count(entry.get("height"), f"{where}[{text!r}].height", 1)
            if height >= self.game.n_secrets:
                raise CheckpointError(f"{where}[{text!r}]: height {height} cannot be refuted: "
                                      f"every useful guess finishes {self.game.n_secrets} codes "
                                      "within that many guesses")
            count(entry.get("nodes", 0), f"{where}[{text!r}].nodes", 0)
            number(entry.get("seconds", 0), f"{where}[{text!r}].seconds")
            self.refuted[guess] = entry

    def _load_total(self, cost: str, text: str, facts, where: str) -> None:
        if not text.isascii() or not text.isdigit() or str(int(text)) != text or int(text) < 1:
            raise CheckpointError(f"{where}: a depth limit is a positive whole number")
        facts = json_object(facts, where)
        if set(facts) - {"classes", "incumbent", "parts", "estimate", "spent"}:
            raise CheckpointError(f"{where}: keys are classes, incumbent, parts, estimate, "
                                  "spent")
        known = self.totals.setdefault((cost, int(text)), TotalFacts())
        for code, entry in json_object(facts.get("classes", {}), f"{where}.classes").items():
            guess = self._code(code, f"{where}.classes")
            entry = json_object(entry, f"{where}.classes[{code!r}]")
            kinds = set(entry) & {"exact", "at_least"}
            if len(kinds) != 1 or set(entry) - {"exact", "at_least", "lookahead", "cut"} or (
                    "lookahead" in entry and "at_least" not in entry) or (
                    "cut" in entry and ("lookahead" not in entry or entry["cut"] is not True)):
                raise CheckpointError(f"{where}.classes[{code!r}]: one of exact, at_least "
                                      "(with lookahead when that bound proved it, and cut: "
                                      "true when its level was not finished)")
            kind = kinds.pop()
            least = 0 if cost == "deep" else self.game.n_secrets  # every secret costs a guess
            known.classes[guess] = {kind: count(entry[kind],
                                                f"{where}.classes[{code!r}].{kind}", least)}
            if "lookahead" in entry:
                known.classes[guess]["lookahead"] = count(
                    entry["lookahead"], f"{where}.classes[{code!r}].lookahead", 1)
            if "cut" in entry:
                known.classes[guess]["cut"] = True
        if "incumbent" in facts:
            known.incumbent = self._incumbent(cost, facts["incumbent"], int(text),
                                              f"{where}.incumbent")
        raw = facts.get("parts", [])
        if not isinstance(raw, list):
            raise CheckpointError(f"{where}.parts: must be a JSON list")
        for i, entry in enumerate(raw):
            path, fact = self._part(cost, int(text), entry, f"{where}.parts[{i}]")
            if path in known.parts:
                raise CheckpointError(f"{where}.parts[{i}]: a second fact on one path")
            known.parts[path] = fact
        if "estimate" in facts:
            known.estimate = estimate(facts["estimate"], f"{where}.estimate")
        for run, entry in json_object(facts.get("spent", {}), f"{where}.spent").items():
            known.spent[run] = spent(run, entry, f"{where}.spent")

    def _part(self, cost: str, depth: int, raw, where: str) -> tuple[tuple[int, ...], dict]:
        """One part fact: its path and {"exact": v, "tree": node} or {"at_least": v}; an exact
        value is the replayed cost of its tree over the part's secrets."""
        raw = json_object(raw, where)
        kinds = set(raw) & {"exact", "at_least"}
        if len(kinds) != 1 or set(raw) != {"path", *kinds, *({"tree"} if "exact" in raw else ())}:
            raise CheckpointError(f"{where}: keys are path and at_least, or path, exact, tree")
        texts = raw["path"]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise CheckpointError(f"{where}.path: a list of codes and feedback keys in turn")
        path = []
        for i, text in enumerate(texts):
            if i % 2:
                fid = self._feedbacks.get(text)
                if fid is None:
                    try:
                        fid = self._feedbacks[text] = self.game.parse_feedback(text)
                    except GameError as exc:
                        raise CheckpointError(f"{where}.path[{i}]: {exc}") from None
                if fid == self.game.win:
                    raise CheckpointError(f"{where}.path[{i}]: the winning feedback ends a path")
                path.append(fid)
            else:
                path.append(self._code(text, f"{where}.path"))
        path = tuple(path)
        if path[0] != self._first:
            self._splits.clear()
            self._first = path[0]
        try:
            secrets, left, pairs = part_place(self.game, path, depth, self._splits)
        except ValueError as exc:
            raise CheckpointError(f"{where}.path: {exc}") from None
        if left < 1:
            raise CheckpointError(f"{where}.path: no guess is left within {depth}")
        kind = kinds.pop()
        value = count(raw[kind], f"{where}.{kind}", 0 if cost == "deep" else len(secrets))
        if kind == "at_least":
            return path, {"at_least": value}
        try:
            node = node_from_json(self.game, raw["tree"], "tree", where)
        except TreeError as exc:
            raise CheckpointError(str(exc)) from None
        if len(path) % 2 and node.guess != path[-1]:
            raise CheckpointError(f"{where}.tree: opens with {self.game.format_code(node.guess)}"
                                  f", the path says {self.game.format_code(path[-1])}")
        result = replay(Tree(self.game, node, "total", self.guesses), secrets=list(secrets),
                        hints=pairs)
        if result.defects:
            raise CheckpointError(f"{where}.tree: does not replay: {result.defects[0]}")
        if cost_value(cost, left, result) != value or result.height > left:
            raise CheckpointError(f"{where}: says {cost} {value} within {left} more guesses, a "
                                  f"replay gives {cost_value(cost, left, result)} and height "
                                  f"{result.height}")
        return path, {"exact": value, "tree": node}

    def _incumbent(self, cost: str, raw, depth: int, where: str) -> tuple[int, Node]:
        raw = json_object(raw, where)
        if set(raw) != {"value", "root"}:
            raise CheckpointError(f"{where}: keys are value, root")
        try:
            root = node_from_json(self.game, raw["root"], "root", where)
        except TreeError as exc:
            raise CheckpointError(str(exc)) from None
        result = replay(Tree(self.game, root, "total", self.guesses))
        if result.defects:
            raise CheckpointError(f"{where}: the tree does not replay: {result.defects[0]}")
        value = cost_value(cost, depth, result)
        if value != raw["value"] or result.height > depth:
            raise CheckpointError(f"{where}: says {cost} {raw['value']!r} within {depth}, a "
                                  f"replay gives {value} and height {result.height}")
        return value, root

    def _code(self, text: str, where: str) -> int:
        if text in self._codes:
            return self._codes[text]
        try:
            guess = self.game.parse_code(text)
        except GameError as exc:
            raise CheckpointError(f"{where}[{text!r}]: {exc}") from None
        if self.game.format_code(guess) != text:
            raise CheckpointError(f"{where}[{text!r}]: write codes as "
                                  f"{self.game.format_code(guess)!r}")
        self._codes[text] = guess
        return guess

