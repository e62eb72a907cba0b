"""A file of first guesses already refuted by the least-height search, so that a refutation too
long for one run (Battleship's height 5: about 1240 root classes) is done over several runs.

Each entry is a fact about the game, whatever the search options: "no strategy opening with this
guess solves every secret within this many guesses". A later run skips a root class whose
representative is listed at that height or more, and the file is rewritten atomically after every
class, so an interrupted run loses at most the class it was working on.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ..games import Game
from ..tree import write_atomic

FORMAT = "moo-height-checkpoint"


class CheckpointError(ValueError):
    """A checkpoint file that is malformed or belongs to another game or guess mode."""


class Checkpoint:
    def __init__(self, path: str | Path, game: Game, guesses: str):
        self.path = Path(path)
        self.game, self.guesses = game, guesses
        self.refuted: dict[int, dict] = {}  # root guess -> {"height", "nodes", "seconds"}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            data = orjson.loads(self.path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise CheckpointError(f"{self.path}: not a JSON checkpoint ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CheckpointError(f"{self.path}: not a {FORMAT} file")
        if data.get("game") != self.game.spec or data.get("guesses") != self.guesses:
            raise CheckpointError(
                f"{self.path}: written for {data.get('game')} ({data.get('guesses')} guesses), "
                f"not {self.game.spec} ({self.guesses} guesses)")
        entries = data.get("refuted")
        if not isinstance(entries, dict):
            raise CheckpointError(f"{self.path}: 'refuted' must be an object")
        for text, entry in entries.items():
            try:
                guess = self.game.parse_code(text)
            except ValueError as exc:
                raise CheckpointError(f"{self.path}: {exc}") from None
            height = entry.get("height") if isinstance(entry, dict) else None
            if not isinstance(height, int) or height < 1:
                raise CheckpointError(f"{self.path}: entry {text!r} needs a positive 'height'")
            self.refuted[guess] = entry

    def refuted_within(self, guess: int) -> int:
        """The largest height at which this opening is known to fail (0: not known)."""
        entry = self.refuted.get(guess)
        return entry["height"] if entry else 0

    def record(self, guess: int, height: int, nodes: int, seconds: float) -> None:
        if self.refuted_within(guess) >= height:
            return
        self.refuted[guess] = {"height": height, "nodes": int(nodes),
                               "seconds": round(seconds, 2)}
        self.save()

    def count(self, height: int) -> int:
        return sum(1 for entry in self.refuted.values() if entry["height"] >= height)

    def save(self) -> None:
        data = {
            "format": FORMAT,
            "version": 1,
            "game": self.game.spec,
            "guesses": self.guesses,
            "meaning": "no strategy opening with this guess solves every secret within "
                       "'height' guesses (exhaustive search, one root symmetry class each)",
            "refuted": {self.game.format_code(g): e for g, e in sorted(self.refuted.items())},
        }
        write_atomic(self.path, orjson.dumps(data, option=orjson.OPT_INDENT_2))
