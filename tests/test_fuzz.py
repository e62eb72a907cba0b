"""Property-based fuzzing (hypothesis) of everything that reads outside text: the tree reader and
the feedback and code readers. No input may give a traceback (an exception other than the
readers' own TreeError / GameError) or a wrong acceptance: what is accepted must mean exactly
what it says (a tree with no defects re-serialises to the file's own content, a reply is read
as the counts it names). CI runs the same examples every time (derandomized); a developer's
run draws new ones."""

from __future__ import annotations

import os
import string
from pathlib import Path

import orjson
import pytest
from conftest import build_minimax
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from optimizer.formats.strict_json import loads
from optimizer.formats.tree_file import tree_from_json, tree_to_json
from optimizer.games import GameError, parse_game
from optimizer.games.reply import TAGS, WIN_WORDS, read_reply
from optimizer.provenance import verify
from optimizer.tree import Tree, TreeError

FUZZ = settings(max_examples=300, deadline=None, database=None,
                derandomize=os.environ.get("CI") == "true",
                suppress_health_check=[HealthCheck.too_slow])

GAMES = {spec: parse_game(spec) for spec in ("bulls-cows", "mastermind:4x6", "moo:10,11,12",
                                             "battleship", "mastermind:2x3")}
# Feedback that occurs in each game (three guesses against every secret).
FEEDBACK = {spec: sorted({game.feedback(g, s) for g in (0, game.n_codes // 2, game.n_codes - 1)
                          for s in range(game.n_codes)}) for spec, game in GAMES.items()}
BASE_GAME = GAMES["mastermind:2x3"]
BASE = tree_to_json(Tree(BASE_GAME, build_minimax(BASE_GAME), objective="total", guesses="any",
                         lower_bound=21))
BASE_RAW = orjson.dumps(BASE)
KNOWN = ("format", "version", "game", "objective", "guesses", "optimal", "lower_bound", "stats",
         "meta", "root")

# --- the tree reader ----------------------------------------------------------------------------

TEXT = st.text(alphabet="0123 12bwBW,.-:\x1b\u00b9\uff11Aa", max_size=8)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def _places(data, path=()):
    """Every (path, value) of a JSON document."""
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _places(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _places(value, (*path, i))


def _parent(data, path):
    for step in path[:-1]:
        data = data[step]
    return data


@st.composite
def mutated_trees(draw) -> bytes:
    """The base tree with a few edits: a value replaced, a key renamed, dropped or added, or the
    bytes themselves cut, doubled or changed."""
    data = orjson.loads(BASE_RAW)
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p, _ in _places(data) if p]
        path = draw(st.sampled_from(places))
        parent, last = _parent(data, path), path[-1]
        action = draw(st.sampled_from(["replace", "rename", "drop", "add", "swap"]))
        if action == "replace":
            parent[last] = draw(JSON)
        elif action == "rename" and isinstance(parent, dict):
            parent[draw(TEXT)] = parent.pop(last)
        elif action == "drop":
            parent.pop(last)
        elif action == "add" and isinstance(parent, dict):
            parent[draw(TEXT)] = draw(JSON)
        elif action == "swap" and isinstance(parent, dict) and isinstance(parent[last], str):
            parent[last] = draw(st.sampled_from(
                [BASE_GAME.format_code(i) for i in range(BASE_GAME.n_codes)]
                + ["0 0", "1 0", "0 1", "2 0", "1 1", "0 2", "mastermind:2x3", "MASTERMIND:2x3",
                   "bullets-maggots", "total", "height,total", "total@3", "minimax"]))
    raw = orjson.dumps(data)
    if draw(st.booleans()):
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"", b",", b"}", b'"', b"\\", b"\xff", b"0",
                                                b'"next":{}', raw[at:at + 20]])) + raw[at + 1:]
    return raw


def _read(raw: bytes) -> Tree | None:
    try:
        return tree_from_json(loads(raw), "fuzz", beside=Path("."))
    except TreeError as exc:
        assert str(exc).strip(), "a refusal says why"
        return None


@FUZZ
@given(mutated_trees())
def test_no_tree_file_gives_a_traceback_or_a_wrong_acceptance(raw):
    tree = _read(raw)
    if tree is None:
        return
    result = verify(tree)
    assert all(isinstance(d, str) and d for d in result.defects)
    if result.defects:
        return
    # Accepted with no defect: the file says exactly what the canonical writer writes.
    data = orjson.loads(raw) if raw.isascii() else loads(raw)
    expected = {k: data[k] for k in KNOWN if k in data and data[k] not in ({}, None)}
    expected["game"] = tree.game.spec  # aliases and case are spellings of the same spec
    written = orjson.loads(orjson.dumps(tree_to_json(tree)))
    assert written == expected


def test_the_base_tree_is_accepted_as_is():
    tree = _read(BASE_RAW)
    assert tree is not None and not verify(tree).defects


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_random_bytes_are_refused_with_a_reason(raw):
    assert _read(raw) is None  # _read lets nothing but a TreeError with a message through


# --- feedback and codes -------------------------------------------------------------------------

REPLY_TEXT = st.lists(st.sampled_from(list("0123456789 ,;:()[]-+.eEbBcCwWoOtTxX!?")
                                     + ["bull", "cows", "white", "one-away", "\uff11", "\u0661",
                                        "\t", "\x1b", "\u00b2", "0" * 50]),
                      max_size=12).map("".join)


@pytest.mark.parametrize("spec", GAMES)
def test_every_feedback_round_trips(spec):
    game = GAMES[spec]
    for fid in FEEDBACK[spec]:
        assert game.parse_feedback(game.format_feedback(fid)) == fid
        assert read_reply(game, game.format_feedback(fid)) == fid


@FUZZ
@given(st.sampled_from(sorted(GAMES)), REPLY_TEXT)
def test_a_reply_is_refused_with_a_reason_or_read_as_valid_counts(spec, text):
    game = GAMES[spec]
    try:
        fid = read_reply(game, text)
    except GameError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    counts = game.feedback_counts(fid)
    assert fid == game.win or sum(counts) <= game.base - 1
    assert all(0 <= c < game.base for c in counts)
    assert text.isascii()
    if any(ch.isdigit() for ch in text) and text.strip().lower() not in WIN_WORDS:
        # every count typed is a digit of the text, none is invented
        assert all(str(c) in text for c in counts if c)


@FUZZ
@given(st.sampled_from(sorted(GAMES)), st.data())
def test_tagged_counts_are_read_by_their_names_in_any_order(spec, data):
    game = GAMES[spec]
    fid = data.draw(st.sampled_from(FEEDBACK[spec]))
    before = data.draw(st.booleans())  # every tag before its number (b1), or every one after
    parts = []
    for count, name in zip(game.feedback_counts(fid), game.feedback_names, strict=True):
        if count or data.draw(st.booleans()):  # a count of 0 may be left out
            tag = "".join(data.draw(st.sampled_from([c, c.upper()]))
                          for c in data.draw(st.sampled_from(TAGS[name])))
            gap = data.draw(st.sampled_from(["", " "] + ([": ", "="] if before else [])))
            parts.append(f"{tag}{gap}{count}" if before else f"{count}{gap}{tag}")
    assume(parts)
    order = data.draw(st.permutations(parts))
    text = data.draw(st.sampled_from([" ", ", ", "; ", ""])).join(order)
    assert read_reply(game, text) == fid, text


@FUZZ
@given(st.sampled_from(sorted(GAMES)), st.data())
def test_a_stray_sign_or_symbol_is_never_ignored(spec, data):
    game = GAMES[spec]
    fid = data.draw(st.sampled_from(FEEDBACK[spec]))
    text = game.format_feedback(fid)
    at = data.draw(st.integers(0, len(text)))
    bad = data.draw(st.sampled_from(list("-+.'\"/\\*#%&_") + ["\uff11", "\u00e9", "\x1b"]))
    with pytest.raises(GameError):
        read_reply(game, text[:at] + bad + text[at:])


@FUZZ
@given(st.sampled_from(sorted(GAMES)), REPLY_TEXT | st.text(max_size=12))
def test_tree_notation_accepts_exactly_the_canonical_text(spec, text):
    game = GAMES[spec]
    try:
        fid = game.parse_feedback(text)
    except GameError:
        fid = None
    assert fid is None or game.format_feedback(fid) == text
    try:
        code = game.parse_code(text, strict=True)
    except GameError:
        code = None
    assert code is None or game.format_code(code) == text


@FUZZ
@given(st.sampled_from(sorted(GAMES)), st.data())
def test_codes_typed_loosely_mean_the_same_code(spec, data):
    game = GAMES[spec]
    index = data.draw(st.integers(0, game.n_codes - 1))
    parts = game.format_code(index).split(" ")
    if len(parts) == 1:
        parts = list(parts[0])
    if spec == "battleship":
        parts = [data.draw(st.sampled_from([p, p.lower()]))
                 for p in data.draw(st.permutations(parts))]
    text = data.draw(st.sampled_from([" ", ", ", ",", "  "])).join(parts)
    assert game.parse_code(text) == index


@FUZZ
@given(st.sampled_from(sorted(GAMES)), st.text(alphabet=string.printable + "\uff11\u0661\u00b2",
                                                max_size=30))
def test_a_code_is_refused_with_a_reason_or_read_as_a_code(spec, text):
    game = GAMES[spec]
    try:
        index = game.parse_code(text)
    except GameError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert 0 <= index < game.n_codes and text.isascii()
