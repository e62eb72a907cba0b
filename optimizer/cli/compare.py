"""``moo compare GAME``: every greedy strategy and every stored tree of a game in one table.

Each strategy is built now and timed; each tree in ``trees/`` for the same game is read and
replayed, so every row's figures come from the same replay of every secret. The numba kernels
are compiled (or loaded from numba's cache) before any build is timed, and that time is shown
on its own, as is the time to compute the feedback matrix.
"""

from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..formats.files import link_target, write_atomic
from ..formats.strict_json import loads
from ..formats.tree_file import tree_from_json
from ..games import Game, GameError, WordGame, parse_game, word_game
from ..objective import bound_note, proven_bounds
from ..provenance import checkpoint_facts, opening_note, resting, verify
from ..reading import read_file
from ..tree import Tree, TreeError, printable
from .options import GAME_HELP, seed
from .status import Exit

MODES = {"any": ("any",), "consistent": ("consistent",), "both": ("any", "consistent")}


@dataclass
class Row:
    """One line of the comparison: a strategy built now, or a stored tree."""

    name: str
    guesses: str
    secrets: int
    total: int
    height: int
    histogram: dict[int, int]
    first_guess: str
    seconds: float | None  # build time; None when a stored tree does not say
    source: str = "built"  # "built", or the stored tree's file name
    note: str = ""  # "optimal", the proven bounds ("total >= 19951"), defects
    defects: list[str] = field(default_factory=list)
    bounds: list[tuple[str, str, int]] = field(default_factory=list)  # objective.proven_bounds
    claim: str | None = None  # the objective a stored tree claims to be optimal for (any opening)

    @property
    def average(self) -> float:
        return self.total / self.secrets if self.secrets else 0.0


@dataclass
class Comparison:
    game: Game
    rows: list[Row]
    matrix_seconds: float | None  # None: no strategy built (stored trees only)
    compile_seconds: float | None
    problems: list[str]  # stored files that could not be read, made printable
    broken: list[str] = field(default_factory=list)  # those of them that are this game's


# --- rows ----------------------------------------------------------------------------------
def row_of(tree: Tree, name: str, seconds: float | None, source: str = "built") -> Row:
    """Figures of one tree from a replay of every secret, and its claims held against it as
    ``moo verify`` holds them (a stored file may claim what its tree refutes)."""
    result = tree.replayed or verify(tree)  # a tree just built was checked by its replay
    bounds = [] if tree.optimal else proven_bounds(tree)
    facts = checkpoint_facts(tree)  # an optimum resting on unchecked facts says so
    note = resting("optimal", facts) if tree.optimal else resting(bound_note(tree), facts)
    opening = opening_note(tree)
    if opening is not None and opening[0]:
        note = f"optimal {opening[1]}"
    if result.defects:
        note = f"DEFECTS: {result.defects[0]}"
    return Row(
        name=name,
        guesses=tree.guesses,
        secrets=result.secrets,
        total=result.total,
        height=result.height,
        histogram=dict(sorted(result.histogram.items())),
        first_guess=tree.game.format_code(tree.root.guess),
        seconds=seconds,
        source=source,
        note=note,
        defects=result.defects,
        bounds=bounds,
        claim=tree.objective if tree.optimal and opening is None else None,
    )


def plan(guesses: str = "both") -> list[tuple[str, str]]:
    """(strategy, guesses mode) pairs to build: the consistent-only strategies once, each
    heuristic in every requested mode."""
    from ..search.strategies import CONSISTENT_ONLY, HEURISTICS

    pairs = [(name, "consistent") for name in CONSISTENT_ONLY]
    pairs += [(name, mode) for name in HEURISTICS for mode in MODES[guesses]]
    return pairs


def built_rows(game: Game, guesses: str = "both", seed: int = 0, progress: bool = True) -> list:
    """Build and time every strategy of ``plan``; tqdm shows progress on a terminal."""
    from tqdm import tqdm

    from ..search.build import build
    from ..search.request import Request

    rows = []
    pairs = plan(guesses)
    bar = tqdm(pairs, desc=game.spec, unit="tree", disable=None if progress else True,
               leave=False, file=sys.stderr)
    for name, mode in bar:
        bar.set_postfix_str(f"{name} {mode}")
        start = time.perf_counter()
        tree = build(Request(game, strategy=name, guesses=mode, seed=seed))
        seconds = time.perf_counter() - start
        label = f"{name} (seed {seed})" if name == "random-consistent" else name
        rows.append(row_of(tree, label, seconds))
    return rows


def stored_rows(game: Game, trees_dir: str | Path,
                broken: list[str] | None = None) -> tuple[list[Row], list[str]]:
    """Every readable tree file of ``game`` in ``trees_dir``; unreadable ones are reported, and
    the names of those that are ``game``'s and malformed (a defect, as ``verify`` counts it)
    also go into ``broken``."""
    # Imported here, not at the top: the player imports this module and must stay light.
    from ..formats.checkpoint_fields import FORMAT, OLD_FORMAT

    rows, problems = [], []
    for path in sorted(Path(trees_dir).glob("*.json")):
        try:
            data = loads(read_file(path))  # a regular file of bounded size only
            carried = isinstance(data, dict) and data.get("game") == "words"  # lists inline
            if carried and not _same_lists(data, game):
                continue
            if not carried and (not isinstance(data, dict)
                                or _spec_of(data.get("game"), path) != game.spec):
                continue
            if data.get("format") in (FORMAT, OLD_FORMAT):
                continue  # a long search's checkpoint, not a tree
            try:
                tree = tree_from_json(data, printable(path), beside=_folder(path))
            except TreeError:
                if broken is not None:
                    broken.append(path.name)
                raise
        except (OSError, TreeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            problems.append(printable(f"{path.name}: {why}"))
            continue
        seconds = tree.meta.get("build_seconds")
        seconds = float(seconds) if isinstance(seconds, (int, float)) else None
        rows.append(row_of(tree, tree.objective, seconds, source=path.name))
    return rows, problems


def _spec_of(text, path: Path) -> str | None:
    try:
        return parse_game(str(text), beside=_folder(path)).spec
    except GameError:
        return None


def _folder(path: Path) -> Path:
    """Where the word lists a tree file names are looked for, as ``read_tree`` looks: beside
    the file a link points to."""
    return link_target(path).parent


def _same_lists(data: dict, game: Game) -> bool:
    """Whether a version 2 file carries ``game``'s word lists (its game is "words", whatever
    the lists): read as the file's own check would, so that another list's file is no problem
    of this table."""
    words = data.get("words")
    if not isinstance(game, WordGame) or not isinstance(words, dict):
        return False
    try:
        return word_game(words.get("answers", []), words.get("guesses", [])).digest == game.digest
    except (GameError, TypeError, AttributeError):
        return False


def warm_up(game: Game) -> float:
    """Seconds to compile the greedy kernel, or load it from numba's cache (first call).
    Its codes are the game's own: three make every rule score, a smaller game has no more (the
    kernels do not check bounds, and a code past the matrix's end corrupts memory)."""
    start = time.perf_counter()
    from ..kernels.heuristics import RULES, choose_guess

    _, transposed, _, n_answers = game.answer_matrices()
    secrets = np.arange(min(3, game.n_secrets), dtype=np.int32)  # a guess-only word has no
    for rule in RULES.values():  # column: never a candidate
        choose_guess(transposed, secrets, secrets, rule, n_answers)
    return time.perf_counter() - start


def compare(game: Game, trees_dir: str | Path | None = "trees", guesses: str = "both",
            seed: int = 0, progress: bool = True, build: bool = True) -> Comparison:
    """All rows for ``game``, best total first (then height, then name). ``build=False``: the
    stored trees alone, replayed in plain Python (no matrix, no kernel loaded)."""
    matrix_seconds = compile_seconds = None
    rows = []
    if build:
        start = time.perf_counter()
        game.answer_matrices()
        matrix_seconds = time.perf_counter() - start
        compile_seconds = warm_up(game)
        rows = built_rows(game, guesses, seed, progress)
    problems: list[str] = []
    broken: list[str] = []
    if trees_dir is not None and Path(trees_dir).is_dir():
        stored, problems = stored_rows(game, trees_dir, broken)
        rows += stored
    _hold_claims(rows)
    rows.sort(key=lambda r: (bool(r.defects), r.total, r.height, r.source != "built", r.name,
                             r.guesses))
    return Comparison(game, rows, matrix_seconds, compile_seconds, problems, broken)


# trees of the first mode are trees of the second too: a consistent guess keeps every hint
WITHIN = {("consistent", "any"), ("hard", "any"), ("consistent", "hard")}


def _hold_claims(rows: list[Row]) -> None:
    """A stored tree's ``optimal`` claim against every other sound row of the table: a tree of
    its game, in its guess mode or a narrower one, that does better under its objective refutes
    it (a defect, as ``moo verify --recheck`` would find, here from the table alone)."""
    from ..objective import exact_objective

    for row in rows:
        objective = exact_objective(row.claim) if row.claim and not row.defects else None
        if objective is None:
            continue
        own = objective.value(row)
        for other in rows:
            fits = other.guesses == row.guesses or (other.guesses, row.guesses) in WITHIN
            if other is row or other.defects or not fits or (
                    objective.depth is not None and other.height > objective.depth):
                continue
            if objective.value(other) < own:
                name = other.name if other.source == "built" else f"{other.name} `{other.source}`"
                names = ",".join(objective.components)
                row.defects = [f"optimal: true, but {name} ({other.guesses} guesses) has {names} "
                               f"{', '.join(map(str, objective.value(other)))} against this "
                               f"tree's {', '.join(map(str, own))}"]
                row.note = f"DEFECTS: {row.defects[0]}"
                break


# --- table ---------------------------------------------------------------------------------
HEADER = ("strategy / tree", "guesses", "total", "average", "height",
          "histogram (guesses:secrets)", "first guess", "build s")


def histogram_text(histogram: dict[int, int]) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(histogram.items()))


def table(rows: list[Row]) -> str:
    """A Markdown table: readable in a terminal, and pasted as is into the report."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:  # a stored tree's objective and file name are text from outside: printable
        name = r.name if r.source == "built" else printable(f"{r.name} `{r.source}`")
        if r.note:
            name += f" ({r.note})"
        seconds = "-" if r.seconds is None else f"{r.seconds:.2f}"
        cells = (name, r.guesses, str(r.total), f"{r.average:.4f}", str(r.height),
                 histogram_text(r.histogram), r.first_guess, seconds)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def gaps(rows: list[Row]) -> list[str]:
    """For each stored tree not proven optimal: its figure against each proven lower bound, and
    the gap (best - bound) / bound, the distance to the unknown optimum at most."""
    lines = []
    for r in rows:
        for name, op, bound in r.bounds:
            if op != ">=" or name not in ("height", "total", "deepest"):
                continue
            best = {"height": r.height, "total": r.total,
                    "deepest": r.histogram.get(r.height, 0)}[name]
            gap = f"gap {100 * (best - bound) / bound:.1f}%" if bound > 0 else "gap unknown"
            lines.append(printable(f"`{r.source}`: best {name} {best}, proven {name} >= "
                                   f"{bound}, {gap}"))
    return lines


def summary(result: Comparison) -> str:
    """The lines above the table: size of the game and the one-off costs."""
    game = result.game
    if result.matrix_seconds is None:
        return f"{game.spec}: {game.n_secrets} secrets; stored trees only"
    return (
        f"{game.spec}: {game.n_secrets} secrets; feedback matrix {result.matrix_seconds:.2f} s; "
        f"greedy kernel compiled or loaded from cache in {result.compile_seconds:.2f} s "
        "(not in the build times)"
    )


# --- plot ----------------------------------------------------------------------------------
def plot_png(rows: list[Row], title: str) -> bytes:
    """Small multiples, one panel per row, sharing both axes: the guess-count distributions
    side by side. matplotlib is an optional extra (``pip install .[plot]``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError(
            "--plot needs matplotlib, an optional extra: pip install '.[plot]'"
        ) from None
    columns = min(4, len(rows)) or 1
    lines = -(-len(rows) // columns) or 1
    fig, axes = plt.subplots(lines, columns, figsize=(3.2 * columns, 2.4 * lines),
                             sharex=True, sharey=True, squeeze=False)
    top = max((max(r.histogram) for r in rows if r.histogram), default=1)
    for ax, r in zip(axes.flat, rows, strict=False):
        ks = range(1, top + 1)
        ax.bar(ks, [r.histogram.get(k, 0) for k in ks], color=_colour(r))
        ax.axvline(r.average, color="black", linewidth=1, linestyle="--")
        label = r.name if r.source == "built" else f"{r.name} (stored)"
        ax.set_title(f"{label}, {r.guesses}\navg {r.average:.3f}, max {r.height}", fontsize=8)
        ax.tick_params(labelsize=7, labelbottom=True)
        ax.set_xticks(range(1, top + 1))
    for ax in list(axes.flat)[len(rows):]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("guesses", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("secrets", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def _colour(row: Row) -> str:
    """Optimal stored trees green, other any-guess rows blue, consistent-guess rows orange."""
    if row.note.startswith("optimal"):
        return "tab:green"
    return "tab:blue" if row.guesses == "any" else "tab:orange"


# --- command line --------------------------------------------------------------------------
def configure(parser) -> None:
    parser.add_argument("game", help=GAME_HELP)
    parser.add_argument("--trees", default=None,
                        help="folder of stored trees (default: trees, in the current folder)")
    parser.add_argument("--guesses", choices=tuple(MODES), default="both",
                        help="guess mode(s) of the heuristics (default both)")
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of random-consistent (0 to 2**64 - 1)")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the distributions (matplotlib)")
    parser.add_argument("--stored", action="store_true",
                        help="the stored trees only: no strategy is built (instant)")


def run(args) -> Exit:
    game = parse_game(args.game)
    if args.plot:  # fail before the builds, not after
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError(
                "--plot needs matplotlib, an optional extra: pip install '.[plot]'"
            ) from None
    trees = args.trees if args.trees is not None else "trees"
    if not Path(trees).is_dir():  # else an empty table, as if no tree were stored
        if args.trees is not None or args.stored:
            raise ValueError(f"--trees {printable(trees)}: no such folder (stored trees are "
                             "read from ./trees, or the folder --trees names)")
        trees = None  # the strategies alone
    result = compare(game, trees, args.guesses, args.seed, build=not args.stored)
    print(summary(result))
    print()
    print(table(result.rows))
    for problem in result.problems:
        print(f"skipped {problem}", file=sys.stderr)  # printable: stored_rows made it so
    if args.plot:
        write_atomic(Path(args.plot), plot_png(result.rows, f"{game.spec}: guesses per secret"))
        print(f"plot -> {args.plot}")
    # a file that cannot be read at all may be any game's: said, but this game's table stands
    defective = result.broken or any(row.defects for row in result.rows)
    return Exit.FAILED if defective else Exit.FINISHED
