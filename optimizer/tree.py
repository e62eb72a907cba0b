"""Decision trees: the public JSON format (version 1), atomic files, replay and verification.

In memory a node holds code and feedback ids; the JSON file holds their notation. Reading checks
the structure and names the place of any defect; ``verify`` replays every secret of the game.
Nothing here needs numba, so the player starts instantly.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .games import Game, GameError, parse_game

FORMAT = "decision-tree"
VERSION = 1


class TreeError(ValueError):
    """A tree file that cannot be read or does not describe a valid strategy."""


class TreeFileError(TreeError):
    """The file itself cannot be opened (as opposed to a defect in what it holds)."""


@dataclass
class Node:
    guess: int
    next: dict[int, Node] = field(default_factory=dict)


@dataclass
class Tree:
    game: Game
    root: Node
    objective: str
    guesses: str = "any"
    optimal: bool = False
    lower_bound: int | None = None
    meta: dict = field(default_factory=dict)
    stats: dict | None = None  # as stored in a file; ``replay`` gives the true figures

    # --- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict:
        stats = replay(self).as_json()
        data = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game.spec,
            "objective": self.objective,
            "guesses": self.guesses,
            "optimal": self.optimal,
        }
        if self.lower_bound is not None and not self.optimal:
            data["lower_bound"] = int(self.lower_bound)
        data["stats"] = stats
        if self.meta:
            data["meta"] = self.meta
        data["root"] = _node_to_json(self.game, self.root)
        return data


def _node_to_json(game: Game, node: Node) -> dict:
    return {
        "guess": game.format_code(node.guess),
        "next": {game.format_feedback(f): _node_to_json(game, c) for f, c in node.next.items()},
    }


def write_tree(tree: Tree, path: str | Path) -> dict:
    """Write atomically (temporary file in the same folder, then rename); return the stats."""
    data = tree.to_json()
    write_atomic(Path(path), orjson.dumps(data))
    return data["stats"]


def write_atomic(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; a tree is a public document
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_tree(path: str | Path) -> Tree:
    """Load and structurally check a tree file; every defect is a TreeError naming its place."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TreeFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise TreeError(f"{path}: not valid JSON (malformed or truncated file): {exc}") from None
    return tree_from_json(data, str(path))


def tree_from_json(data, where: str = "tree") -> Tree:
    if not isinstance(data, dict):
        raise TreeError(f"{where}: a tree file holds one JSON object")
    if data.get("format") != FORMAT:
        raise TreeError(f"{where}: 'format' must be {FORMAT!r}, found {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise TreeError(f"{where}: version {data.get('version')!r} is not supported (only 1)")
    for key in ("game", "objective", "guesses", "optimal", "root"):
        if key not in data:
            raise TreeError(f"{where}: missing key {key!r}")
    try:
        game = parse_game(str(data["game"]))
    except GameError as exc:
        raise TreeError(f"{where}: 'game': {exc}") from None
    if data["guesses"] not in ("any", "consistent"):
        raise TreeError(f"{where}: 'guesses' must be 'any' or 'consistent'")
    if not isinstance(data["optimal"], bool):
        raise TreeError(f"{where}: 'optimal' must be true or false")
    lower = data.get("lower_bound")
    if lower is not None and not isinstance(lower, int):
        raise TreeError(f"{where}: 'lower_bound' must be a whole number")
    stats = data.get("stats")
    if stats is not None and not isinstance(stats, dict):
        raise TreeError(f"{where}: 'stats' must be an object")
    root = _node_from_json(game, data["root"], "root", where)
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    return Tree(
        game=game,
        root=root,
        objective=str(data["objective"]),
        guesses=data["guesses"],
        optimal=data["optimal"],
        lower_bound=lower,
        meta=meta,
        stats=stats,
    )


def _node_from_json(game: Game, raw, place: str, where: str) -> Node:
    # Iterative, so that a degenerate deep file cannot exhaust Python's recursion limit.
    root_holder: dict[int, Node] = {}
    feedback_ids: dict[str, int] = {}  # a tree has thousands of keys but few distinct ones
    stack = [(raw, place, root_holder, 0)]
    while stack:
        item, at, parent, key = stack.pop()
        if not isinstance(item, dict) or "guess" not in item or "next" not in item:
            raise TreeError(f"{where}: {at}: a node is {{\"guess\": CODE, \"next\": {{...}}}}")
        if not isinstance(item["guess"], str):
            raise TreeError(f"{where}: {at}.guess: a code is a string")
        try:
            guess = game.parse_code(item["guess"])
        except GameError as exc:
            raise TreeError(f"{where}: {at}.guess: {exc}") from None
        if not isinstance(item["next"], dict):
            raise TreeError(f"{where}: {at}.next: must be an object")
        node = Node(guess)
        parent[key] = node
        for text, child in item["next"].items():
            fid = feedback_ids.get(text)
            if fid is None:
                try:
                    fid = feedback_ids[text] = game.parse_feedback(text)
                except GameError as exc:
                    raise TreeError(f"{where}: {at}.next[{text!r}]: {exc}") from None
            if fid == game.win:
                raise TreeError(
                    f"{where}: {at}.next[{text!r}]: the winning feedback is never a key"
                )
            if fid in node.next:
                raise TreeError(f"{where}: {at}.next[{text!r}]: the same feedback twice")
            node.next[fid] = None  # placeholder keeps key order
            stack.append((child, f"{at}.next[{text!r}]", node.next, fid))
    return root_holder[0]


# --- replay ----------------------------------------------------------------------------------
@dataclass
class Replay:
    secrets: int
    height: int
    total: int
    histogram: dict[int, int]
    defects: list[str]

    @property
    def average(self) -> float:
        return self.total / self.secrets if self.secrets else 0.0

    def as_json(self) -> dict:
        return {
            "secrets": self.secrets,
            "height": self.height,
            "total": self.total,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


def replay(tree: Tree, max_defects: int = 20) -> Replay:
    """Send every secret through the tree, node by node; list every way it fails."""
    game = tree.game
    defects: list[str] = []
    histogram: dict[int, int] = {}
    # (node, secrets that reach it, depth, place)
    stack = [(tree.root, list(range(game.n_codes)), 1, "root")]
    while stack and len(defects) < max_defects:
        node, secrets, depth, place = stack.pop()
        if depth > game.n_codes:
            defects.append(f"{place}: deeper than the number of codes (a loop of useless guesses)")
            continue
        if tree.guesses == "consistent" and node.guess not in secrets:
            defects.append(
                f"{place}: guess {game.format_code(node.guess)} is not consistent with the "
                "feedback so far, but the tree says guesses are 'consistent'"
            )
        parts: dict[int, list[int]] = {}
        for s in secrets:
            if s == node.guess:
                histogram[depth] = histogram.get(depth, 0) + 1
            else:
                parts.setdefault(game.feedback(node.guess, s), []).append(s)
        for fid, part in parts.items():
            child = node.next.get(fid)
            label = f"{place}.next[{game.format_feedback(fid)!r}]"
            if child is None:
                defects.append(
                    f"{label}: missing; {len(part)} secret(s) such as "
                    f"{game.format_code(part[0])} give this feedback"
                )
                continue
            stack.append((child, part, depth + 1, label))
        for fid in node.next:
            if fid not in parts:
                defects.append(
                    f"{place}.next[{game.format_feedback(fid)!r}]: no remaining secret gives "
                    "this feedback"
                )
    solved = sum(histogram.values())
    if solved != game.n_codes and not defects:
        defects.append(f"only {solved} of {game.n_codes} secrets are solved")
    return Replay(
        secrets=solved,
        height=max(histogram) if histogram else 0,
        total=sum(k * v for k, v in histogram.items()),
        histogram=histogram,
        defects=defects,
    )


def verify(tree: Tree) -> Replay:
    """Replay, then compare with the stats the file states."""
    result = replay(tree)
    if tree.stats is not None and not result.defects:
        stated = tree.stats
        for key in ("secrets", "height", "total"):
            if key in stated and stated[key] != getattr(result, key):
                result.defects.append(
                    f"stats.{key} says {stated[key]!r}, a replay gives {getattr(result, key)}"
                )
        if "histogram" in stated and stated["histogram"] != result.as_json()["histogram"]:
            result.defects.append("stats.histogram differs from what a replay gives")
    return result


def tree_filename(spec: str, objective: str, guesses: str) -> str:
    """Name of a committed tree in trees/, e.g. ``bulls-cows-4x10.height.any.json``."""
    slug = spec.replace(":", "-").replace(",", "_")
    return f"{slug}.{objective.replace(',', '+').replace('@', 'at')}.{guesses}.json"
