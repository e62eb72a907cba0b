"""The decision-tree file: the public JSON format (docs/tree-format.md). Version 1 names the game;
version 2 adds a ``words`` object holding a custom word game's lists (``"game": "words"``), so
that the file alone is enough to replay it. A file is written in the lowest version that holds
it, and both are read.

In memory a node holds code and feedback ids; the file holds their notation. Reading checks the
structure and names the place of any defect (``verify`` in optimizer.tree then replays every
secret). Nothing here needs numba, so the player starts instantly.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ..games import Game, GameError, WordGame, parse_game, word_game
from ..games.base import GUESS_MODES, quote
from ..reading import read_file
from ..tree import Node, Tree, TreeError, is_int, printable, replay
from .files import link_target, write_atomic
from .strict_json import JsonError, loads

FORMAT = "decision-tree"
VERSION = 1  # a game named by its spec
WORDS_VERSION = 2  # a word game of custom lists, carried in the file ("words")
TOP_KEYS = {"format", "version", "game", "words", "objective", "guesses", "optimal",
            "lower_bound", "stats", "meta", "root"}


class TreeFileError(TreeError):
    """The file itself cannot be read: missing, unreadable, or too large for the memory
    available (as opposed to a defect in what it holds)."""


def tree_to_json(tree: Tree) -> dict:
    """The tree as the file holds it. Its figures are the replay the search that built it kept
    (``Tree.replayed``, when it found no defect), else a new replay's."""
    done = tree.replayed
    stats = (done if done is not None and not done.defects else replay(tree)).as_json()
    words = _custom_words(tree.game)
    data = {
        "format": FORMAT,
        "version": VERSION if words is None else WORDS_VERSION,
        "game": tree.game.spec if words is None else "words",
    }
    if words is not None:
        data["words"] = words
    data.update(objective=tree.objective, guesses=tree.guesses, optimal=tree.optimal)
    if tree.lower_bound is not None and not tree.optimal:
        data["lower_bound"] = int(tree.lower_bound)
    data["stats"] = stats
    if tree.meta:
        data["meta"] = tree.meta
    data["root"] = node_to_json(tree.game, tree.root)
    return data


def _custom_words(game: Game) -> dict | None:
    """The lists of a word game other than ``wordle`` (whose lists ship with the program)."""
    if not isinstance(game, WordGame) or game.spec == "wordle":
        return None
    answers, guesses = game.lists()
    return {"answers": answers, "guesses": guesses}


def node_to_json(game: Game, node: Node) -> dict:
    """A node and its subtree in the file's notation (a checkpoint's incumbent tree too)."""
    return {
        "guess": game.format_code(node.guess),
        "next": {game.format_feedback(f): node_to_json(game, c) for f, c in node.next.items()},
    }


def write_tree(tree: Tree, path: str | Path) -> dict:
    """Write atomically (``write_atomic``); return the stats."""
    data = tree_to_json(tree)
    write_atomic(Path(path), orjson.dumps(data))
    return data["stats"]


def read_tree(path: str | Path) -> Tree:
    """Load and check a tree file: the public format in its canonical notation only (see
    ``tree_from_json``), and no JSON key given twice anywhere. Every defect is a TreeError
    naming its place; a file that cannot be read at all (missing, not a regular file, larger
    than MAX_FILE_BYTES, or not within the memory available) is a TreeFileError."""
    where = printable(path)
    try:
        raw = read_file(path)
        try:
            data = loads(raw)
        except JsonError as exc:
            raise TreeError(f"{where}: {exc}") from None
        folder = link_target(os.fsdecode(os.fspath(path))).parent  # a PathLike may give bytes
        return tree_from_json(data, where, beside=folder)
    except OSError as exc:
        raise TreeFileError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise TreeFileError(
            f"{where}: out of memory while reading it ({_size(path)}): the memory available "
            "to this process is too small for this tree") from None


def _size(path: str | Path) -> str:
    try:
        return f"{os.path.getsize(path) / 1e6:.1f} MB"
    except OSError:
        return "size unknown"


def tree_from_json(data, where: str, *, beside: Path) -> Tree:
    """A Tree from parsed JSON, in the canonical notation of the public format: codes exactly
    as ``format_code`` writes them, feedback keys exactly as ``format_feedback`` does.
    ``beside``: the file's folder, where word lists its game names are looked for when the
    current folder has none (as for checkpoints). Required: a list named by a file is read
    without quoting its lines, which the file's author, not the user, chose."""
    if not isinstance(data, dict):
        raise TreeError(f"{where}: a tree file holds one JSON object")
    if data.get("format") != FORMAT:
        raise TreeError(f"{where}: 'format' must be {FORMAT!r}, found "
                        f"{printable(repr(data.get('format')))[:60]}")
    if not (is_int(data.get("version")) and data["version"] in (VERSION, WORDS_VERSION)):
        raise TreeError(f"{where}: version {printable(repr(data.get('version')))[:60]} is not "
                        "supported (only 1 and 2)")
    for key in ("game", "objective", "guesses", "optimal", "stats", "root"):
        if key not in data:
            raise TreeError(f"{where}: missing key {key!r}")
    unknown = sorted(set(data) - TOP_KEYS, key=str)
    if unknown:  # as in nodes and stats: a misspelt key is not silently a different file
        raise TreeError(f"{where}: unknown key {printable(repr(unknown[0]))[:40]} (a tree file's "
                        f"keys are {', '.join(sorted(TOP_KEYS))}; facts of one's own go in "
                        "'meta')")
    for key in ("game", "objective"):
        if not isinstance(data[key], str) or not data[key]:
            raise TreeError(f"{where}: {key!r} must be a non-empty string")
    game = _game(data, where, beside)
    if data["game"] != game.spec:  # the command line's leniency (case, spaces, aliases) ends here
        raise TreeError(f"{where}: 'game': {quote(data['game'])} is not in the tree format's "
                        f"notation: write {game.spec!r}")
    if data["guesses"] not in GUESS_MODES:
        raise TreeError(f"{where}: 'guesses' must be one of {', '.join(GUESS_MODES)}")
    if not isinstance(data["optimal"], bool):
        raise TreeError(f"{where}: 'optimal' must be true or false")
    lower = data.get("lower_bound")
    if lower is not None and not is_int(lower):
        raise TreeError(f"{where}: 'lower_bound' must be a whole number")
    stats = data["stats"]
    if not isinstance(stats, dict):
        raise TreeError(f"{where}: 'stats' must be an object")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise TreeError(f"{where}: 'meta' must be an object")
    for key in ("objective", "meta"):
        try:  # a lone surrogate ("\ud800") reads as text but can be neither printed nor written
            orjson.dumps(data.get(key))
        except orjson.JSONEncodeError:
            raise TreeError(f"{where}: {key!r} holds text that is not valid Unicode") from None
    root = node_from_json(game, data["root"], "root", where)
    return Tree(
        game=game,
        root=root,
        objective=data["objective"],
        guesses=data["guesses"],
        optimal=data["optimal"],
        lower_bound=lower,
        meta=meta,
        stats=stats,
    )


def _game(data: dict, where: str, beside: Path) -> Game:
    """The game a file names (version 1) or carries (version 2: ``words``, of game "words")."""
    carried = data["version"] == WORDS_VERSION
    if carried != ("words" in data) or carried != (data["game"] == "words"):
        raise TreeError(f"{where}: a version 2 file has \"game\": \"words\" and a 'words' "
                        "object with its lists; a version 1 file neither")
    try:
        if not carried:
            return parse_game(data["game"], beside=beside)
        words = data["words"]
        if not isinstance(words, dict) or not set(words) <= {"answers", "guesses"} or not all(
                isinstance(v, list) and all(isinstance(w, str) for w in v)
                for v in words.values()):
            raise GameError("'words' holds \"answers\" and \"guesses\": lists of words")
        return word_game(words.get("answers", []), words.get("guesses", []))
    except GameError as exc:  # the field at fault: the lists carried, or the game named
        raise TreeError(f"{where}: {'words' if carried else 'game'!r}: {exc}") from None


def node_from_json(game: Game, raw, place: str, where: str) -> Node:
    # Iterative, so that a degenerate deep file cannot exhaust Python's recursion limit.
    root_holder: dict[int, Node] = {}
    feedback_ids: dict[str, int] = {}  # a tree has thousands of keys but few distinct ones
    stack = [(raw, place, root_holder, 0)]
    while stack:
        item, at, parent, key = stack.pop()
        if not isinstance(item, dict) or item.keys() != {"guess", "next"}:
            raise TreeError(f"{where}: {at}: a node is {{\"guess\": CODE, \"next\": {{...}}}}")
        if not isinstance(item["guess"], str):
            raise TreeError(f"{where}: {at}.guess: a code is a string")
        try:
            guess = game.parse_code(item["guess"], strict=True)
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
                    raise TreeError(f"{where}: {at}.next[{quote(text)}]: {exc}") from None
            if fid == game.win:
                raise TreeError(
                    f"{where}: {at}.next[{text!r}]: the winning feedback is never a key"
                )
            node.next[fid] = None  # placeholder keeps key order
            stack.append((child, f"{at}.next[{text!r}]", node.next, fid))
    return root_holder[0]


def tree_filename(spec: str, objective: str, guesses: str, first: str | None = None) -> str:
    """Name of a committed tree in trees/, e.g. ``bulls-cows-4x10.height.any.json``, or
    ``wordle.total.any.first-salet.json`` for the best trees opening with one code."""
    slug = spec.replace(":", "-").replace(",", "_")
    opening = f".first-{first.replace(' ', '_')}" if first else ""
    return f"{slug}.{objective.replace(',', '+').replace('@', 'at')}.{guesses}{opening}.json"
