"""Decision trees: the public JSON format (version 1), atomic files, replay and verification.

In memory a node holds code and feedback ids; the JSON file holds their notation. Reading checks
the structure and names the place of any defect; ``verify`` replays every secret of the game.
Nothing here needs numba, so the player starts instantly.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .games import Game, GameError, parse_game
from .games.base import quote
from .objective import exact_objective

FORMAT = "decision-tree"
VERSION = 1


class TreeError(ValueError):
    """A tree file that cannot be read or does not describe a valid strategy."""


class TreeFileError(TreeError):
    """The file itself cannot be read: missing, unreadable, or too large for the memory
    available (as opposed to a defect in what it holds)."""


class OutputError(ValueError):
    """A place where an output file cannot be written, found before any work starts."""


def printable(text: object) -> str:
    """``text`` (from a file, or quoting one) made safe for a terminal: control characters,
    escape sequences and other invisible characters are shown as Python escapes (``\\x1b``)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


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
    # This tree's own replay, kept by the search that built and checked it (Search._tree):
    # writing it takes the figures from there instead of replaying the tree a second time.
    replayed: Replay | None = field(default=None, repr=False, compare=False)

    # --- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict:
        done = self.replayed
        stats = (done if done is not None and not done.defects else replay(self)).as_json()
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
    """Write atomically (``write_atomic``); return the stats."""
    data = tree.to_json()
    write_atomic(Path(path), orjson.dumps(data))
    return data["stats"]


def write_atomic(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` so that a reader sees the old file or the whole new one,
    never a part: a temporary file in the same folder, then a rename over the old file.

    Only regular files are written: a folder, device, FIFO or socket at ``path`` is refused
    (OutputError) instead of being replaced. A symbolic link is followed (a dangling one too,
    as the shell's ``>`` does): the file it names is replaced and the link stays. The file keeps
    its permissions (and, where allowed, its owner); a new file gets 0666 less the umask, as any
    program's new file does. No folder is created: ``check_output`` refuses a missing one
    before the work. An OSError names ``path`` (not the temporary file)."""
    target = _target(path)
    old = _existing(target, path)
    try:
        fd, tmp = _temporary(target, ".tmp")
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        _existing(target, path)  # replaced by a device or FIFO meanwhile: still refused
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
        raise


def check_output(path: str | Path) -> Path:
    """Refuse, before any search starts, a place where ``write_atomic`` would fail or do harm: a
    folder, a device, FIFO or socket (never replaced by a file), a missing folder (none is
    created), a place this process cannot write. A symbolic link is checked where it points.
    Every command checks its output files (``-o``, ``--checkpoint``, ``--plot``) with this."""
    path = Path(path)
    target = _target(path)
    _existing(target, path)
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist (make it first)"
        raise OutputError(f"{printable(path)}: the folder {printable(folder)} {what}")
    try:  # the only true test of writing: permissions, read-only file systems, quotas
        fd, probe = _temporary(target, ".probe")
    except OSError as exc:
        raise OutputError(
            f"{printable(path)}: cannot write in {printable(folder)}: {exc.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    return path


def _target(path: str | Path) -> Path:
    """The file that writing ``path`` replaces: symbolic links followed, dangling ones too."""
    return Path(os.path.realpath(path))


_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _existing(target: Path, path: str | Path) -> os.stat_result | None:
    """The status of the file that an output replaces (None: there is none yet); OutputError
    for anything but a regular file."""
    try:
        status = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the folder is checked)
        return None
    except OSError as exc:  # a loop of links, a folder that cannot be searched
        raise OutputError(f"{printable(path)}: cannot write: {exc.strerror}") from None
    shown = (f"{printable(path)} (a link to {printable(target)})" if os.path.islink(path)
             else printable(path))
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown}: is a folder, not a file name")
    if not stat.S_ISREG(status.st_mode):
        raise OutputError(f"{shown}: is {_kind(status.st_mode)}, not a regular file: outputs "
                          "are regular files only (it is never replaced)")
    return status


def _temporary(target: Path, suffix: str) -> tuple[int, str]:
    """A new hidden file next to ``target`` (open for writing), created with 0666 less the
    umask (mkstemp's 0600 would make every new output private)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(4)}{suffix}")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """The replacement keeps the old file's permissions, and its owner where this process may
    give it (root may; others keep their own)."""
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass  # not allowed: the file becomes this user's, as any rewrite makes it
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after chown, which clears set-id bits


# The largest file a reader takes. The largest legitimate one: a tree of the largest game
# (MAX_CODES, 40,000 codes) is about 50 bytes a code, 2 MB; a checkpoint holds a few such trees
# indented (about 150 bytes a code each, 6 MB) and its classes' facts. 256 MB is a wide margin
# that still stops /dev/zero-like files before they take all memory.
MAX_FILE_BYTES = 256 * 2**20


def read_file(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of a tree or checkpoint file. Only a regular file of at most ``limit`` bytes
    (default MAX_FILE_BYTES) is read: a device (/dev/zero never ends), a FIFO (blocks until a
    writer comes) or a socket is refused before it is opened, and so is a larger file. Each
    refusal is an OSError naming ``path``, as a missing file is."""
    limit = MAX_FILE_BYTES if limit is None else limit
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else _kind(status.st_mode)
        raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
    # O_NONBLOCK: a FIFO put in its place since the check does not block the open
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, f"it is {_kind(status.st_mode)}, not a regular file",
                          str(path))
        raw = handle.read(limit + 1) if status.st_size <= limit else b""
    if status.st_size > limit or len(raw) > limit:
        size = max(status.st_size, len(raw))
        raise OSError(errno.EFBIG, f"the file has {size:,} bytes, more than the {limit:,} "
                      f"({limit / 2**20:g} MB) a tree or checkpoint file may have", str(path))
    return raw


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
        return tree_from_json(data, where)
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


class JsonError(TreeError):
    """Bytes that are not one JSON document this reader takes (the message names no file)."""


class _Duplicated(dict):
    """A JSON object that names some key more than once (the value kept is the last)."""

    duplicates: list[str]


def loads(raw: bytes) -> object:
    """Parse JSON text, refusing what a plain JSON parser would silently accept or change: a key
    given twice in one object (found here and named by its place), NaN or Infinity, numbers too
    long to convert, text that is not UTF-8. MemoryError propagates, to be named as such."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonError(f"not UTF-8 text (byte {exc.start})") from None
    found: list[_Duplicated] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        twice = _Duplicated(obj)
        seen: set[str] = set()
        twice.duplicates = [k for k, _ in items if k in seen or seen.add(k)]
        found.append(twice)
        return twice

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=_json_int,
                          parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON (malformed or truncated file): {exc}") from None
    except RecursionError:
        raise JsonError("not a tree file: JSON nested too deeply") from None
    if found:
        place, key = _first_duplicate(data)
        raise JsonError(f"{place}: the key {printable(repr(key))} appears twice (JSON "
                         "readers keep one of them: the file is ambiguous)")
    return data


def _json_int(text: str) -> int:
    if len(text) > 30:  # far past any count in a tree; int() of thousands of digits fails
        raise JsonError(f"not a tree file: a number of {len(text)} digits")
    return int(text)


def _no_constant(name: str) -> float:
    raise JsonError(f"not valid JSON: {name} is not a JSON number")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _first_duplicate(data) -> tuple[str, str]:
    """Place (``root.next['0 1']``) and key of the first object that names a key twice."""
    stack = [(data, "")]
    while stack:
        item, place = stack.pop()
        if isinstance(item, _Duplicated):
            return place or "the top level", item.duplicates[0]
        if isinstance(item, dict):
            for key, value in reversed(item.items()):
                step = f".{key}" if _NAME.fullmatch(key) else f"[{key!r}]"
                stack.append((value, (place + step).lstrip(".")))
        elif isinstance(item, list):
            stack.extend((value, f"{place}[{i}]") for i, value in reversed(list(enumerate(item))))
    raise AssertionError("a duplicate key was reported but not found")


def _is_int(value) -> bool:
    return type(value) is int  # JSON true, false and 1.0 are not whole numbers here


def tree_from_json(data, where: str = "tree") -> Tree:
    """A Tree from parsed JSON, in the canonical notation of the public format: codes exactly
    as ``format_code`` writes them, feedback keys exactly as ``format_feedback`` does."""
    if not isinstance(data, dict):
        raise TreeError(f"{where}: a tree file holds one JSON object")
    if data.get("format") != FORMAT:
        raise TreeError(f"{where}: 'format' must be {FORMAT!r}, found "
                        f"{printable(repr(data.get('format')))[:60]}")
    if not (_is_int(data.get("version")) and data["version"] == VERSION):
        raise TreeError(f"{where}: version {printable(repr(data.get('version')))[:60]} is not "
                        "supported (only 1)")
    for key in ("game", "objective", "guesses", "optimal", "stats", "root"):
        if key not in data:
            raise TreeError(f"{where}: missing key {key!r}")
    for key in ("game", "objective"):
        if not isinstance(data[key], str) or not data[key]:
            raise TreeError(f"{where}: {key!r} must be a non-empty string")
    try:
        game = parse_game(data["game"])
    except GameError as exc:
        raise TreeError(f"{where}: 'game': {exc}") from None
    if data["game"] != game.spec:  # the command line's leniency (case, spaces, aliases) ends here
        raise TreeError(f"{where}: 'game': {quote(data['game'])} is not in the tree format's "
                        f"notation: write {game.spec!r}")
    if data["guesses"] not in ("any", "consistent"):
        raise TreeError(f"{where}: 'guesses' must be 'any' or 'consistent'")
    if not isinstance(data["optimal"], bool):
        raise TreeError(f"{where}: 'optimal' must be true or false")
    lower = data.get("lower_bound")
    if lower is not None and not _is_int(lower):
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
    root = _node_from_json(game, data["root"], "root", where)
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


def _node_from_json(game: Game, raw, place: str, where: str) -> Node:
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


# --- replay ----------------------------------------------------------------------------------
def height_and_total(histogram: dict[int, int]) -> tuple[int, int]:
    """(height, total) of a tree from its secrets solved per depth."""
    return (max(histogram) if histogram else 0), sum(k * v for k, v in histogram.items())


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
    height, total = height_and_total(histogram)
    return Replay(
        secrets=solved,
        height=height,
        total=total,
        histogram=histogram,
        defects=defects,
    )


def verify(tree: Tree) -> Replay:
    """Replay, then hold every claim the file makes against what the replay shows: the stats,
    and the lower bound and optimality claims (a claim that contradicts the tree is a defect)."""
    result = replay(tree)
    repeated = repeated_guess(tree)
    if repeated is not None:  # the cause: what the replay finds on that path follows from it
        result.defects = [repeated]
    elif not result.defects:
        result.defects += _stats_defects(tree, result) + _claim_defects(tree, result)
    return result


def repeated_guess(tree: Tree) -> str | None:
    """Where the tree makes a guess again that a node above it made, or None. Such a guess
    never wins (the earlier one did not) and tells nothing (it gets the same feedback again), so
    a chain of them is a game that makes no progress (issue 28: a file repeating one guess
    hundreds deep). Without repeats a path holds at most one node per code, so every game ends.
    One pass over the nodes: 2-5 ms for the committed 5040- and 10000-code trees, a fifth of
    reading them."""
    game = tree.game
    stack = [(tree.root, 0, -1)]  # (node, depth, feedback that leads to it)
    guesses: list[int] = []  # the guesses on the path to the node, and the feedback to each
    feedback: list[int] = []
    while stack:
        node, depth, fid = stack.pop()
        del guesses[depth:], feedback[depth:]
        if node.guess in guesses:
            steps = feedback[1:] + [fid]
            place = "root" + "".join(f".next[{game.format_feedback(f)!r}]" for f in steps)
            return (f"{place}: guesses {game.format_code(node.guess)} again, as a node above it "
                    "did: a repeated guess tells nothing, so a game on this path would make no "
                    "progress (a defective tree file)")
        guesses.append(node.guess)
        feedback.append(fid)
        stack.extend([(child, depth + 1, f) for f, child in node.next.items()])
    return None


def _stats_defects(tree: Tree, result: Replay) -> list[str]:
    stated = tree.stats
    if stated is None:  # a tree built in memory: its stats are the replay's
        return []
    defects = [f"stats: unknown key {printable(repr(key))[:40]}" for key in stated
               if key not in ("secrets", "height", "total", "histogram")]
    for key in ("secrets", "height", "total"):
        if key not in stated:
            defects.append(f"stats.{key}: missing")
        elif not _is_int(stated[key]) or stated[key] != getattr(result, key):
            defects.append(f"stats.{key} says {printable(repr(stated[key]))[:40]}, a replay "
                           f"gives {getattr(result, key)}")
    histogram = stated.get("histogram")
    if histogram is None:
        defects.append("stats.histogram: missing")
    elif not (isinstance(histogram, dict) and all(map(_is_int, histogram.values()))
              and histogram == result.as_json()["histogram"]):
        defects.append("stats.histogram differs from what a replay gives")
    return defects


def _claim_defects(tree: Tree, result: Replay) -> list[str]:
    """Claims that the tree itself refutes. The objective's first component is what
    ``lower_bound`` bounds: no tree can beat a true lower bound, this one included. Only an
    exact objective has an optimum to claim: a greedy strategy's tree proves nothing."""
    defects = []
    objective = exact_objective(tree.objective)
    lower = tree.lower_bound
    if objective is None and tree.optimal:
        defects.append(f"\"optimal\": true, but {printable(repr(tree.objective))[:60]} is not an "
                       "exact objective (height, total, their pairs, total@K, height,deepest, "
                       "deepest@K): a greedy strategy is not a search and proves no optimum")
    if lower is not None:
        if tree.optimal:
            defects.append("lower_bound: stated together with \"optimal\": true (a lower bound "
                           "is stated only where optimality is not proven)")
        if lower < 0:
            defects.append(f"lower_bound: {lower} is negative")
        if objective is not None:
            own = objective.figure(objective.first, result)
            if lower > own:
                defects.append(f"lower_bound: {lower} claims that no tree has a {objective.first} "
                               f"below it, but this tree's {objective.first} is {own}")
    if objective is not None and objective.depth is not None and result.height > objective.depth:
        defects.append(f"objective: {objective.name} allows height {objective.depth}, but the "
                       f"tree's height is {result.height}")
    return defects + _meta_bound_defects(tree, result) + _provenance_defects(tree)


# Bounds the searches write into ``meta`` (objectives.Search; shown by objective.bound_note): a
# lower bound, or the proven value, of the objective's second component among the trees whose
# first component is the proven one.
META_BOUNDS = {"total_lower_bound": ("total", ">="), "deepest_proven": ("deepest", "="),
               "deepest_lower_bound": ("deepest", ">=")}


def _meta_bound_defects(tree: Tree, result: Replay) -> list[str]:
    """A bound in ``meta`` above this tree's own figure, where the tree is one of the trees the
    bound speaks of: ``total_lower_bound`` of a height,total tree bounds the trees of the least
    height (``lower_bound``, or the tree's own height when it is claimed optimal); the deepest
    count (at depth K of deepest@K, else the least height) the trees within that depth."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    defects = [f"meta.{key}: {printable(repr(meta[key]))[:40]} is not a whole number >= 0"
               for key in META_BOUNDS if key in meta
               and not (_is_int(meta[key]) and meta[key] >= 0)]
    objective = exact_objective(tree.objective)
    if objective is None or defects:
        return defects
    least = tree.lower_bound if tree.lower_bound is not None else (
        result.height if tree.optimal else None)  # the proven least height, when first
    for key, (name, op) in META_BOUNDS.items():
        applies = objective.tie == "total" if name == "total" else name in objective.components
        if key not in meta or not applies:
            continue
        if name == "total":  # height,total: the least total among trees of the least height
            scope, own = least, result.total
        else:  # the fewest secrets solved with exactly K guesses among trees within K
            scope = objective.depth or least
            own = result.histogram.get(scope, 0) if scope is not None else 0
        if scope is None or result.height > scope or meta[key] <= own:
            continue
        defects.append(f"meta.{key}: {meta[key]} claims that no tree of height {scope} or less "
                       f"has a {name} below it (\"{name} {op} {meta[key]}\"), but this tree "
                       f"(height {result.height}) has {own}")
    return defects


# --- provenance: what an optimality claim rests on ---------------------------------------------
PROVEN = "proven"
NOT_PROVEN = "not proven"


def checkpoint_facts(tree: Tree) -> int:
    """How many facts the tree's claims (``optimal``, ``lower_bound``, the bounds in ``meta``)
    took unchecked from a checkpoint file: ``meta.checkpoint_facts``, written by every exact
    build given a checkpoint. Trees written before that record existed count the first-guess
    classes their searches took (``classes_from_checkpoint`` of ``meta.*_search``, or of
    ``meta`` itself for ``moo prove -o``); the larger of the two counts is taken."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    record = meta.get("checkpoint_facts")
    record = record if _is_int(record) and record >= 0 else 0
    return max(record, _searches_took(meta))


def _searches_took(meta: dict) -> int:
    """First-guess classes the searches recorded in ``meta`` say they took from a checkpoint."""
    counts = [meta.get("classes_from_checkpoint")] + [
        value.get("classes_from_checkpoint") for value in meta.values() if isinstance(value, dict)]
    return sum(count for count in counts if _is_int(count) and count > 0)


def _provenance_defects(tree: Tree) -> list[str]:
    """A provenance record that is malformed, or counts fewer facts than the searches recorded
    beside it say they took."""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    if "checkpoint_facts" not in meta:
        return []
    record = meta["checkpoint_facts"]
    if not (_is_int(record) and record >= 0):
        return [f"meta.checkpoint_facts: {printable(repr(record))[:40]} is not a whole number "
                ">= 0"]
    took = _searches_took(meta)
    if record < took:
        return [f"meta.checkpoint_facts: {record}, but the searches recorded in meta took {took} "
                "first-guess classes from a checkpoint"]
    return []


def proof(tree: Tree, result: Replay | None = None) -> str:
    """What the tree's optimality claim is: ``"proven"``, ``"proven, resting on N checkpoint
    facts"`` (facts of an earlier run taken unchecked: the proof holds if they do), or ``"not
    proven"`` (no claim, or a claim ``verify`` finds defective). ``result``: the tree's
    ``replay`` or ``verify`` (a replay is made when not given)."""
    if not tree.optimal:
        return NOT_PROVEN
    result = result if result is not None else replay(tree)
    if (result.defects or repeated_guess(tree) is not None or _stats_defects(tree, result)
            or _claim_defects(tree, result)):
        return NOT_PROVEN
    return resting(PROVEN, checkpoint_facts(tree))


def resting(claim: str, facts: int) -> str:
    """``claim`` with what it rests on: ``proven, resting on 3 checkpoint facts``."""
    if not facts:
        return claim
    return f"{claim}, resting on {facts} checkpoint fact{'s' if facts != 1 else ''}"


def provenance_note(tree: Tree, name_only: bool = False) -> str:
    """Where the facts of ``checkpoint_facts`` come from and how to check them, for people
    (empty when there are none): the file as ``meta.checkpoint`` records it (``name_only``: its
    name without the folders, for a page read elsewhere)."""
    if not checkpoint_facts(tree):
        return ""
    meta = tree.meta if isinstance(tree.meta, dict) else {}
    where = meta.get("checkpoint")
    if name_only and isinstance(where, str):
        where = where.replace("\\", "/").rsplit("/", 1)[-1]
    source = f"taken from {printable(where)[:200]}" if isinstance(where, str) and where else (
        "taken from a checkpoint file")
    return f"{source}, not re-checked: `moo checkpoint verify` re-proves them"


def tree_filename(spec: str, objective: str, guesses: str) -> str:
    """Name of a committed tree in trees/, e.g. ``bulls-cows-4x10.height.any.json``."""
    slug = spec.replace(":", "-").replace(",", "_")
    return f"{slug}.{objective.replace(',', '+').replace('@', 'at')}.{guesses}.json"
