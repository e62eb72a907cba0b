"""Decision trees in memory: the model (``Node``, ``Tree``) and its replay over every secret.
What a tree's claims rest on, held against that replay, is in ``optimizer.provenance``; the file
format is in ``optimizer.formats.tree_file``. Nothing here needs numba, so the player starts
instantly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .games import Game


class TreeError(ValueError):
    """A tree file that cannot be read or does not describe a valid strategy."""


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


def is_int(value) -> bool:
    return type(value) is int  # JSON true, false and 1.0 are not whole numbers here


# --- replay ----------------------------------------------------------------------------------
def node_height(root: Node) -> int:
    """The guesses on the tree's longest path (a leaf's, that solves, counted)."""
    height, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        height = max(height, depth)
        stack.extend((child, depth + 1) for child in node.next.values())
    return height


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


def replay(tree: Tree, max_defects: int = 20, secrets: list[int] | None = None,
           hints: tuple = ()) -> Replay:
    """Send every secret through the tree, node by node; list every way it fails. ``secrets``
    and ``hints``: a subtree's, the secrets that reach it and the (guess, feedback) pairs above
    it (a checkpoint's part facts), its depths counted from its own root."""
    game = tree.game
    defects: list[str] = []
    histogram: dict[int, int] = {}
    if tree.guesses == "hard" and not game.has_hard_mode:
        defects.append(f"guesses: 'hard', but {game.spec} has no hard mode (word games do)")
    everyone = list(range(game.n_secrets)) if secrets is None else list(secrets)
    hard = tree.guesses == "hard"
    # (node, secrets that reach it, depth, place, the (guess, feedback) pairs above it); a place
    # is None or (its parent's, feedback), written out for a defect only (checkpoint loads)
    stack = [(tree.root, everyone, 1, None, tuple(hints) if hard else ())]
    while stack and len(defects) < max_defects:
        node, secrets, depth, place, hints = stack.pop()
        if depth > game.n_secrets:
            defects.append(f"{_place_text(game, place)}: deeper than the number of codes (a "
                           "loop of useless guesses)")
            continue
        if tree.guesses == "consistent" and node.guess not in secrets:
            why = ("is not a possible secret" if node.guess >= game.n_secrets else
                   "is not consistent with the feedback so far" if place is not None else
                   "is not among the secrets")
            defects.append(f"{_place_text(game, place)}: guess {game.format_code(node.guess)} "
                           f"{why}, but the tree says guesses are 'consistent'")
        dropped = next(((g, f) for g, f in hints if not game.keeps_hints(g, f, node.guess)),
                       None) if hard and game.has_hard_mode else None
        if dropped is not None:
            g, f = dropped
            defects.append(f"{_place_text(game, place)}: guess {game.format_code(node.guess)} "
                           f"drops a hint ({game.format_code(g)} got {game.format_feedback(f)}, "
                           f"so {game.dropped_hint(g, f, node.guess)}), but the tree says "
                           "guesses are 'hard'")
        parts: dict[int, list[int]] = {}
        for s in secrets:
            if s == node.guess:
                histogram[depth] = histogram.get(depth, 0) + 1
            else:
                parts.setdefault(game.feedback(node.guess, s), []).append(s)
        for fid, part in parts.items():
            child = node.next.get(fid)
            if child is None:
                defects.append(
                    f"{_place_text(game, (place, fid))}: missing; {len(part)} secret(s) such "
                    f"as {game.format_code(part[0])} give this feedback"
                )
                continue
            stack.append((child, part, depth + 1, (place, fid),
                          hints + ((node.guess, fid),) if hard else ()))
        for fid in node.next:
            if fid not in parts:
                defects.append(
                    f"{_place_text(game, (place, fid))}: no remaining secret gives this feedback"
                )
    solved = sum(histogram.values())
    if solved != len(everyone) and not defects:
        defects.append(f"only {solved} of {len(everyone)} secrets are solved")
    height, total = height_and_total(histogram)
    return Replay(
        secrets=solved,
        height=height,
        total=total,
        histogram=histogram,
        defects=defects,
    )


def _place_text(game: Game, place: tuple | None) -> str:
    """A replay's place (None, or (the parent's place, feedback)) as ``_path_text`` writes it."""
    steps = []
    while place is not None:
        place, fid = place
        steps.insert(0, fid)
    return _path_text(game, steps)


def _path_text(game: Game, steps: list[int]) -> str:
    """``root.next['..'].next['..']``: the node the feedback ``steps`` lead to from the root."""
    return "root" + "".join(f".next[{game.format_feedback(f)!r}]" for f in steps)


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
            place = _path_text(game, feedback[1:] + [fid])
            return (f"{place}: guesses {game.format_code(node.guess)} again, as a node above it "
                    "did: a repeated guess tells nothing, so a game on this path would make no "
                    "progress (a defective tree file)")
        guesses.append(node.guess)
        feedback.append(fid)
        stack.extend([(child, depth + 1, f) for f, child in node.next.items()])
    return None


def checked(tree: Tree, claim=None, value: int | None = None) -> Tree:
    """``tree`` replayed once over every secret, the replay kept as ``tree.replayed`` (the file is
    written from it); RuntimeError for a defect or, when ``claim`` (Replay -> int) is given, a
    replayed value other than ``value``: a search bug is never written as a result."""
    replayed = replay(tree)
    if replayed.defects:
        raise RuntimeError("the search built a defective tree: " + "; ".join(replayed.defects))
    if claim is not None and claim(replayed) != value:
        raise RuntimeError(f"the search claimed {value} but its tree replays to "
                           f"{claim(replayed)}")
    tree.replayed = replayed
    return tree
