"""``moo page FILE -o PAGE.html``: one self-contained HTML file that plays a stored tree.

The page carries the game's rules, the tree in a compact encoding (``page_data``) and the
figures of a replay of every secret; its script (``web/page.js``) plays both ways: the computer
guesses the person's secret, and the person guesses the computer's. It works from disk and
loads nothing: its Content Security Policy allows no source at all but its own inline script and
style, named by their hashes. Everything taken from the tree file is escaped (as HTML text, and
as JSON inside the data block), so a hostile file cannot inject markup or script.

``write_pages`` writes a page for each of many trees and an index page linking them
(``make trees``, ``scripts/make_trees.py --pages-only``). Nothing here imports numba.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..formats.files import write_atomic
from ..formats.tree_file import TreeFileError, read_tree
from ..objective import bound_note
from ..provenance import (
    NOT_PROVEN,
    PROVEN,
    checkpoint_facts,
    opening_note,
    proof,
    provenance_note,
    resting,
    verify,
)
from ..tree import Replay, Tree, TreeError, printable
from .page_data import encode_tree, script_json
from .page_games import (
    PageError,
    answer_label,
    feedback_header,
    feedback_help,
    game_rules,
    game_title,
    guess_rule,
)
from .play_text import secret_rule
from .status import Exit

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")

OBJECTIVES = {
    "height": "fewest guesses in the worst case",
    "total": "fewest guesses on average",
    "height,total": "fewest guesses in the worst case, then on average",
    "total,height": "fewest guesses on average, then in the worst case",
    "height,deepest": "fewest guesses in the worst case, then the fewest secrets that need "
                      "them all, then fewest on average",
    "first-consistent": "greedy: the lowest code that fits every answer (seed 000)",
    "random-consistent": "greedy: a random code that fits every answer (seed 001)",
    "minimax": "greedy: each guess leaves the smallest largest part (Knuth)",
    "expected-size": "greedy: each guess leaves the fewest candidates on average",
    "entropy": "greedy: each guess tells the most (entropy)",
    "most-parts": "greedy: each guess splits the candidates into the most parts",
}


@dataclass
class Entry:
    """A tree checked by a replay of every secret, ready to be shown."""

    tree: Tree
    result: Replay
    source: str  # the tree file's name, as shown on the page


# --- command line ------------------------------------------------------------------------------
def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``moo page``."""
    parser.add_argument("file", metavar="FILE", help="a stored tree file")
    parser.add_argument("-o", "--output", required=True, metavar="PAGE.html",
                        help="the HTML file to write (replaced atomically)")


def run(args: argparse.Namespace) -> Exit:
    """Exit status 0 written, 1 the tree is defective, 2 unreadable file or unwritable page."""
    try:
        entry = load_entry(Path(args.file))
    except TreeFileError as exc:
        print(f"moo: error: {printable(exc)}", file=sys.stderr)
        return Exit.ERROR
    except (TreeError, PageError) as exc:
        print(f"moo: error: {printable(exc)}", file=sys.stderr)
        return Exit.FAILED
    output = Path(args.output)
    try:
        size = write_page(entry, output)
    except OSError as exc:
        print(f"moo: error: {printable(output)}: cannot write: {exc.strerror or exc}",
              file=sys.stderr)
        return Exit.ERROR
    tree, result = entry.tree, entry.result
    print(f"{printable(output)}: {size / 1024:.0f} KB, {tree.game.spec} "
          f"{printable(tree.objective)} ({tree.guesses} guesses): average "
          f"{result.average:.4f}, worst case {result.height}")
    return Exit.FINISHED


# --- pages -------------------------------------------------------------------------------------
def load_entry(path: Path) -> Entry:
    """Read a tree and replay every secret; a defective tree is refused (``moo verify`` lists
    its defects), so the page never shows figures that a replay does not give."""
    tree = read_tree(path)
    result = verify(tree)
    if result.defects:
        raise PageError(f"{path}: the tree is defective: {result.defects[0]} "
                        f"(moo verify {path} lists every defect)")
    return Entry(tree, result, path.name)


def write_page(entry: Entry, path: Path) -> int:
    """Write the page atomically; return its size in bytes."""
    payload = render_page(entry).encode()
    write_atomic(path, payload)
    return len(payload)


def render_page(entry: Entry) -> str:
    tree, result = entry.tree, entry.result
    game = tree.game
    title = f"{game_title(game)}: {objective_text(tree.objective)}"
    script, style = _asset("words.js") + _asset("page.js"), _asset("page.css")
    if "</" in script or "</" in style:
        raise PageError("web/*.js and web/page.css must not contain '</' (it ends the element)")
    data = {"rules": game_rules(game), "tree": encode_tree(tree)}
    return _fill(_asset("page.html"), {
        "csp": _policy(script, style),
        "title": _text(title),
        "lead": _text(f"A stored strategy for {game_title(game)}, played both ways: it "
                      "guesses your secret, or you guess its secret."),
        "secret_rule": _text(secret_rule(game)),
        "guess_rule": _text(guess_rule(game)),
        "feedback_help": _text(feedback_help(game)),
        "answer_label": _text(answer_label(game)),
        "feedback_header": _text(feedback_header(game)),
        "facts": facts_html(entry),
        "secrets": str(result.secrets),
        "chart": chart_html(result.histogram),
        "source": _text(entry.source),
        "style": style,
        "script": script,
        "data": script_json(data),
    })


def write_pages(trees: list[Path], folder: Path, progress: bool = True) -> list[str]:
    """A page for each tree (``NAME.html`` for ``NAME.json``) and ``index.html`` linking them;
    returns the problems (unreadable or defective trees), which get no page."""
    from tqdm import tqdm

    folder.mkdir(parents=True, exist_ok=True)  # the batch run's own folder of pages
    entries, problems = [], []
    for path in tqdm(trees, desc="pages", unit="page", disable=None if progress else True,
                     file=sys.stderr):
        try:
            entry = load_entry(path)
        except (TreeError, PageError) as exc:
            problems.append(str(exc))
            continue
        write_page(entry, folder / page_name(entry.source))
        entries.append(entry)
    write_atomic(folder / "index.html", render_index(entries).encode())
    return problems


def page_name(source: str) -> str:
    return (source[:-5] if source.endswith(".json") else source) + ".html"


def render_index(entries: list[Entry]) -> str:
    """The pages by game, in the order given: strategy, guesses, proven, average, worst case."""
    style = _asset("page.css")
    games: dict[str, list[Entry]] = {}
    for e in entries:
        games.setdefault(game_title(e.tree.game), []).append(e)
    sections = []
    for title, group in games.items():
        rows = []
        for e in group:
            tree, result = e.tree, e.result
            link = (f'<a href="{_text(page_name(e.source))}">'
                    f"{_text(objective_text(tree.objective))}</a>")
            cells = [link, _text(tree.guesses), _text(proof_cell(tree, result)),
                     f"{result.average:.4f}", str(result.height)]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        sections.append(_fill(_asset("index-game.html"),
                              {"title": _text(title), "rows": "\n".join(rows)}))
    return _fill(_asset("index.html"), {
        "csp": _policy(None, style), "style": style, "sections": "\n".join(sections),
        "count": str(len(entries)),
    })


# --- what the page shows -----------------------------------------------------------------
def objective_text(objective: str) -> str:
    """What the tree was built to minimise, in words (the file's own term when unknown)."""
    match = re.fullmatch(r"total@(\d+)", objective)
    if match:
        return f"fewest guesses on average within {match.group(1)} guesses"
    match = re.fullmatch(r"deepest@(\d+)", objective)
    if match:
        return (f"within {match.group(1)} guesses, the fewest secrets that need all "
                f"{match.group(1)}, then fewest on average")
    return OBJECTIVES.get(objective, objective)


def facts_html(entry: Entry) -> str:
    tree, result = entry.tree, entry.result
    game = tree.game
    guesses = ("any code, even one the answers have ruled out" if tree.guesses == "any"
               else "only codes that fit every answer so far (hard mode)")
    facts = [
        ("Game", f"{game_title(game)}, {game.n_secrets} secrets: {secret_rule(game)}"),
        ("Strategy", f"{objective_text(tree.objective)} (objective {tree.objective})"),
        ("Guesses", guesses),
        ("Proven optimal", proof_text(tree, result)),
        ("Average", f"{result.average:.4f} guesses (total {result.total} over "
                    f"{result.secrets} secrets)"),
        ("Worst case", f"{result.height} guesses"),
        ("First guess", game.format_code(tree.root.guess)),
    ]
    return "\n".join(f"<dt>{_text(k)}</dt><dd>{_text(v)}</dd>" for k, v in facts)


# What a page says of every claim it shows: it comes from the tree file, not from the page.
FILE_CLAIM = "the tree file's claim, from the search that wrote it"


def proof_text(tree: Tree, result: Replay) -> str:
    """The optimality claim and what it rests on. ``result`` is the tree's ``verify`` (a page is
    made only of a tree without defects): facts a search took unchecked from an earlier run's
    checkpoint are named, since no replay of the tree can check them."""
    facts = checkpoint_facts(tree)
    unchecked = f" ({provenance_note(tree, name_only=True)})" if facts else ""
    opening = opening_note(tree)  # built with --first: a claim among one opening's trees only
    if opening is not None and opening[0]:
        return f"no (no claim over every opening); optimal {opening[1]} ({FILE_CLAIM})"
    if tree.optimal:
        claim = proof(tree, result)
        if claim == NOT_PROVEN:  # a defective claim (load_entry refuses such trees)
            return "no"
        if claim == PROVEN:
            return f"yes: no strategy does better for this objective ({FILE_CLAIM})"
        return (f"yes, {claim.removeprefix(PROVEN + ', ')}{unchecked}: no strategy does better "
                f"for this objective if those facts hold ({FILE_CLAIM})")
    if tree.lower_bound is None:
        return "no"
    first = tree.objective.split(",")[0].split("@")[0]
    proven = resting("proven", facts)
    text = f"no: the best tree found; {proven}: {bound_note(tree) or tree.lower_bound}"
    if first == "total" and result.secrets:
        text += f" (an average of at least {tree.lower_bound / result.secrets:.4f})"
    return f"{text}{unchecked} ({FILE_CLAIM})"


def proof_cell(tree: Tree, result: Replay) -> str:
    """The index's "proven optimal" column: yes, yes resting on N checkpoint facts, or no."""
    claim = proof(tree, result)
    opening = opening_note(tree)
    if opening is not None and opening[0]:
        return f"no; optimal {opening[1]}"
    return "no" if claim == NOT_PROVEN else "yes" + claim[len(PROVEN):]


def chart_html(histogram: dict[int, int]) -> str:
    """One row per number of guesses: the count, its share and a bar (an SVG rectangle, so
    that no inline style is needed under the page's policy)."""
    if not histogram:
        return ""
    total, most = sum(histogram.values()), max(histogram.values())
    rows = []
    for k in range(min(histogram), max(histogram) + 1):
        count = histogram.get(k, 0)
        width = round(1000 * count / most)
        share = 100 * count / total
        share_text = "&lt;0.1%" if 0 < share < 0.05 else f"{share:.1f}%"
        rows.append(
            f'<tr><th scope="row">{k}</th><td>{count} <span class="small">'
            f"({share_text})</span></td><td class=\"bar\">"
            '<svg viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true" '
            f'focusable="false"><rect width="{width}" height="10"/></svg></td></tr>'
        )
    return "\n".join(rows)


# --- helpers -----------------------------------------------------------------------------------
def _text(value: str) -> str:
    return html.escape(value, quote=True)


def _asset(name: str) -> str:
    return (resources.files(__package__) / "web" / name).read_text(encoding="utf-8")


def _policy(script: str | None, style: str) -> str:
    """Nothing may load; only this page's own script and style run (by their hashes)."""
    scripts = f"'{_hash(script)}'" if script is not None else "'none'"
    return (f"default-src 'none'; script-src {scripts}; style-src '{_hash(style)}'; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace each ``{{name}}`` in one pass, so that no value is itself searched for names."""
    missing = set(PLACEHOLDER.findall(template)) - set(values)
    if missing:
        raise KeyError(f"template values missing: {sorted(missing)}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
