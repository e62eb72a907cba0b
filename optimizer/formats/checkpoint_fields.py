"""The checks of a checkpoint file's values (docs/checkpoint-format.md), each naming the place
of a defect: reading its JSON, its header (format, version, game), and the fields that are not
facts (what runs spent, the estimate).
The facts themselves are read in ``checkpoint_io``."""

from __future__ import annotations

import re
from pathlib import Path

from ..games import Game, GameError, parse_game
from ..games.base import GUESS_MODES
from ..reading import read_file
from .files import collector_paused, link_target
from .strict_json import JsonError, loads

FORMAT = "moo-checkpoint"
VERSION = 2
OLD_FORMAT = "moo-height-checkpoint"  # version 1
# A word game's lists, by digest (WordGame.digest): its spec names files (or nothing, for lists
# given in Python), whose words may change while the file's facts stay.
LISTS = "word_lists_sha256"
COSTS = ("total", "deepest", "deep")
RUN_ID = re.compile(r"[0-9A-Za-z]{1,32}")  # a run's key in "spent" (Checkpoint.run_id)
MOST_SECONDS = 1e12  # CPU seconds a run can have spent (30,000 core-years)


class CheckpointError(ValueError):
    """A checkpoint file that is malformed, contradicts itself or another, or belongs to another
    game or guess mode."""


class CheckpointFileError(CheckpointError):
    """A checkpoint file that cannot be read at all (missing, a folder, too large): bad input,
    where a file read and found malformed is a defect (``moo checkpoint verify``: status 1)."""


def estimate(raw, where: str) -> dict:
    raw = json_object(raw, where)
    keys = {"classes", "core_hours", "seconds_per_class"}
    if set(raw) not in (keys, keys | {"classes_settled", "runs"}, keys | {"drawn"}):
        raise CheckpointError(f"{where}: keys are {', '.join(sorted(keys))} (and "
                              "classes_settled, runs, or drawn: what the pace rests on)")
    for key in ("classes", "classes_settled", "runs", "drawn"):
        if key in raw:
            count(raw[key], f"{where}.{key}", 0)
    for key in ("core_hours", "seconds_per_class"):
        number(raw[key], f"{where}.{key}")
    return raw


def spent(run: str, raw, where: str) -> dict:
    """One run's spending: CPU seconds of search and classes settled (a --gap run's: lifted to
    its goal; ``drawn``: classes drawn at random, scripts/bench_class.py --sample)."""
    if not RUN_ID.fullmatch(run):
        raise CheckpointError(f"{where}: {run[:40]!r} is not a run id (1 to 32 letters and "
                              "digits)")
    raw = json_object(raw, f"{where}[{run!r}]")
    if set(raw) - {"goal", "drawn"} != {"cpu_seconds", "classes"} or (
            "goal" in raw and "drawn" in raw):
        raise CheckpointError(f"{where}[{run!r}]: keys are classes, cpu_seconds and, for a run "
                              "with --gap, goal, or for classes drawn at random, drawn")
    if "drawn" in raw and raw["drawn"] is not True:
        raise CheckpointError(f"{where}[{run!r}].drawn: true or absent")
    count(raw["classes"], f"{where}[{run!r}].classes", 0)
    if "goal" in raw:
        count(raw["goal"], f"{where}[{run!r}].goal", 1)
    number(raw["cpu_seconds"], f"{where}[{run!r}].cpu_seconds")
    if raw["cpu_seconds"] > MOST_SECONDS:  # sums of such could overflow to inf, unwritable
        raise CheckpointError(f"{where}[{run!r}].cpu_seconds: at most {MOST_SECONDS:g}")
    return raw


def read_json(path: Path) -> dict:
    """The JSON object a checkpoint file holds."""
    try:
        raw = read_file(path)
    except OSError as exc:
        raise CheckpointFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:  # strict: a key given twice would make a fact ambiguous (plain readers keep one)
        with collector_paused():
            data = loads(raw, "checkpoint")
    except JsonError as exc:
        raise CheckpointError(f"{path}: {exc}") from None
    return json_object(data, str(path))


def json_object(value, where: str) -> dict:
    """``value`` when it is a JSON object (a dict)."""
    if not isinstance(value, dict):
        raise CheckpointError(f"{where}: must be a JSON object")
    return value


def number(value, where: str) -> None:
    """A number >= 0, whole or not (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise CheckpointError(f"{where}: a number >= 0")


def count(value, where: str, least: int) -> int:
    """A whole number >= least (not a boolean, which JSON readers take for 0 and 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise CheckpointError(f"{where}: a whole number >= {least}, found {value!r}")
    return value


def spelling_of(spec, canonical: str) -> bool:
    """Whether ``spec`` is another way to write the game ``canonical`` (a file edited by hand:
    "battleship" for "battleship:4x8x3")."""
    try:
        return isinstance(spec, str) and spec != canonical and parse_game(spec).spec == canonical
    except GameError:
        return False


def allowed_keys(data: dict, where: str) -> set[str]:
    """The keys a checkpoint of ``data``'s format and version may hold (checked before its
    fields, so that ``{}`` is said to be no checkpoint at all)."""
    version = data.get("version")
    fmt = data.get("format")
    number = version if type(version) is int else None  # 2.0 and true equal 2 and 1
    if (fmt, number) == (OLD_FORMAT, 1):
        return {"format", "version", "game", "guesses", "meaning", "refuted"}
    if (fmt, number) == (FORMAT, VERSION):
        return {"format", "version", "game", "guesses", "meaning", "height", LISTS, *COSTS}
    raise CheckpointError(f"{where}: not a checkpoint this program reads (format {fmt!r} "
                          f"version {version!r}; expected {FORMAT!r} version {VERSION} or "
                          f"{OLD_FORMAT!r} version 1)")


def read_header(path: str | Path, data: dict) -> tuple[Game, str]:
    """The game and guess mode a checkpoint file names (``Checkpoint.read``)."""
    allowed_keys(data, str(path))
    if not isinstance(data.get("game"), str):
        raise CheckpointError(f"{path}: 'game': the game's name is missing (a string such "
                              "as \"battleship:4x8x3\")")
    try:
        game = parse_game(data["game"], beside=link_target(path).parent)
    except GameError as exc:
        raise CheckpointError(f"{path}: 'game': {exc}") from None
    guesses = data.get("guesses")
    if guesses not in GUESS_MODES:
        raise CheckpointError(f"{path}: 'guesses' must be one of {', '.join(GUESS_MODES)}")
    return game, guesses
