"""The data block of a page (``moo page``) that its script (``web/page.js``) reads: the tree in a
compact encoding, and JSON that is safe inside a ``<script>`` element."""

from __future__ import annotations

import orjson

from ..tree import Node, Tree

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def encode_tree(tree: Tree) -> dict:
    """The tree in preorder: per node its guess (code index) and number of children, then per
    child its feedback id and the child's own encoding; each number in a fixed count of
    base-64 digits. About 5 characters a node, a sixth of the JSON file."""
    nodes = list(_preorder(tree.root))
    widths = {
        "guess_width": _width(tree.game.n_codes - 1),
        "feedback_width": _width(max((f for n in nodes for f in n.next), default=0)),
        "children_width": _width(max(len(n.next) for n in nodes)),
    }
    out = []
    stack: list[tuple[int | None, Node]] = [(None, tree.root)]
    while stack:
        fid, node = stack.pop()
        if fid is not None:
            out.append(_digits(fid, widths["feedback_width"]))
        out.append(_digits(node.guess, widths["guess_width"]))
        out.append(_digits(len(node.next), widths["children_width"]))
        stack.extend(reversed(list(node.next.items())))
    return {**widths, "nodes": "".join(out)}


def encode_words(words: list[str]) -> str:
    """Sorted words of one length, each as the number of its first letters shared with the
    word before it (one digit) and the rest of its letters: ``abase`` after ``aback`` is
    ``3se``. The original Wordle's 12972 words take 40 KB instead of 65 KB."""
    out, before = [], ""
    for word in words:
        shared = 0
        while shared < len(word) - 1 and word[shared] == before[shared:shared + 1]:
            shared += 1
        out.append(f"{shared}{word[shared:]}")
        before = word
    return "".join(out)


def _preorder(root: Node):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.next.values())


def _width(largest: int) -> int:
    width = 1
    while largest >= 64**width:
        width += 1
    return width


def _digits(value: int, width: int) -> str:
    chars = []
    for _ in range(width):
        value, digit = divmod(value, 64)
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


def script_json(data: dict) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no
    ``</script>``), no line separators."""
    text = orjson.dumps(data).decode()
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text
