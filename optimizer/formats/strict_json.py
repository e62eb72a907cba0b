"""The strict JSON reader of tree and checkpoint files: what a plain JSON parser would silently
accept or change (a key given twice, NaN, numbers too long to convert, text that is not UTF-8) is
refused, and a duplicate key is named by its place."""

from __future__ import annotations

import json
import math
import re

from ..tree import TreeError, printable


class JsonError(TreeError):
    """Bytes that are not one JSON document this reader takes (the message names no file)."""


class _Duplicated(dict):
    """A JSON object that names some key more than once (the value kept is the last)."""

    duplicates: list[str]


def loads(raw: bytes, kind: str = "tree file") -> object:
    """Parse JSON text, refusing what a plain JSON parser would silently accept or change: a key
    given twice in one object (found here and named by its place), NaN or Infinity, numbers too
    long to convert, text that is not UTF-8 (``kind``: what the file should be, for the
    messages). MemoryError propagates, to be named as such."""
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

    def whole(digits: str) -> int:
        if len(digits) > 30:  # far past any count in a file; int() of thousands of digits fails
            raise JsonError(f"not a {kind}: a number of {len(digits)} digits")
        value = int(digits)
        if not -(2 ** 63) <= value < 2 ** 63:  # what the files are written with (orjson) holds
            raise JsonError(f"not a {kind}: {digits} is past the 64-bit range")
        return value

    def finite(digits: str) -> float:
        value = float(digits)
        if not math.isfinite(value):  # 1e999: a plain reader makes it Infinity
            raise JsonError(f"not a {kind}: the number {digits} is past the largest a double "
                            "holds")
        return value

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=whole,
                          parse_float=finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON (malformed or truncated file): {exc}") from None
    except RecursionError:
        raise JsonError(f"not a {kind}: JSON nested too deeply") from None
    if found:
        place, key = _first_duplicate(data)
        raise JsonError(f"{place}: the key {printable(repr(key))} appears twice (JSON "
                         "readers keep one of them: the file is ambiguous)")
    return data


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
