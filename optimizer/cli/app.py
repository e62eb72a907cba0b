"""Command line: ``moo info|build|verify|play|prove|compare|checkpoint|page``.

Every command is a module of this package with ``configure(parser)`` and ``run(args) -> Exit``;
only the module of the command given is imported, and heavy modules (numba kernels, searches)
only inside the commands that need them, so that ``moo play`` and ``moo verify`` start instantly.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time

# Before numpy is first imported: no linear algebra is done here, and OpenBLAS starting one
# thread per core cost 0.05 s of every command (a third of `moo info`). A value set by the
# user is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ..formats.files import check_output  # noqa: E402
from ..games import GameError, spec_files  # noqa: E402
from ..tree import TreeError, printable  # noqa: E402
from .signals import note_held  # noqa: E402
from .status import Exit  # noqa: E402

# Options that name a file a command writes: each is checked (check_output) before any work.
OUTPUT_OPTIONS = {"output": "-o", "checkpoint": "--checkpoint", "plot": "--plot"}
# Options that name files a command reads (a folder: its *.json files, as `compare --trees`
# reads them). No output may be one of them, nor another output of the same command; only
# --checkpoint is by design read and extended by one run, and is its own input.
INPUT_OPTIONS = {"file": "the input", "files": "the input", "trees": "--trees",
                 "checkpoint": "--checkpoint", "game": "the word list"}


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(next((a for a in argv if not a.startswith("-")), None))
    args = parser.parse_args(argv)
    args.started = started
    if not getattr(args, "command", None):
        parser.print_help()
        return Exit.ERROR
    try:
        check_files(args)
        return int(args.run(args) or 0)
    except (GameError, TreeError, ValueError) as exc:
        return _error(exc)
    except OSError as exc:  # at write time, after the checks: a full disk, a lost mount
        return _error(f"{exc.filename}: {exc.strerror}" if exc.filename else exc)
    except MemoryError:
        return _error("out of memory: the memory available to this process is too small")
    except KeyboardInterrupt:
        print("moo: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED


def check_files(args: argparse.Namespace) -> None:
    """Before any work: each output a place ``write_atomic`` can write (check_output), and no
    output the same file as an input or another output of the command (compared as files:
    links, hard links and other spellings of one path count as the same), so that writing it
    never destroys what the command reads or writes."""
    outputs = [(flag, getattr(args, dest)) for dest, flag in OUTPUT_OPTIONS.items()
               if getattr(args, dest, None) is not None]
    for _, path in outputs:
        check_output(path)
    named = list(outputs)
    for dest, label in INPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if value is None or (dest in OUTPUT_OPTIONS and (label, value) in outputs):
            continue  # absent, or an output already named (--checkpoint: its own input)
        if dest == "game":  # a game spec: the word lists it names
            named += [(label, p) for p in spec_files(value)]
            continue
        for path in value if isinstance(value, list) else [value]:
            named += [(label, p) for p in _read_files(path)]
    for i, (flag, path) in enumerate(outputs):
        for label, other in named[:i] + named[i + 1:]:
            if _same_file(path, other):
                role = ("which this run reads and extends" if label == "--checkpoint" else
                        "which this command also writes" if (label, other) in outputs else
                        "which this command reads")
                raise ValueError(
                    f"{flag} {printable(path)}: the same file as {label} {printable(other)}, "
                    f"{role}: writing one would destroy the other (name another file)")


def _read_files(path: str) -> list[str]:
    """The files an input option names: the file, or a folder's *.json files."""
    from pathlib import Path

    if os.path.isdir(path):
        return sorted(str(p) for p in Path(path).glob("*.json"))
    return [path]


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same file on disk (hard links, symbolic links),
    or, for files not there yet, the same place once links are followed."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _error(what) -> Exit:
    """One line on standard error, exit status 2."""
    print(f"moo: error: {printable(what)}", file=sys.stderr)
    return Exit.ERROR


def entry() -> None:
    """Console entry point: `moo ... | head` ends quietly instead of with a traceback."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # A long run in the background (nohup, a batch system) gets no Ctrl-C, and shells start
    # background jobs with SIGINT ignored: `kill PID` (SIGTERM) is its interruption, and a closed
    # terminal (SIGHUP) another; each ends a search as Ctrl-C does: the best tree found so far
    # (or the proof's summary) is still written.
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupted)
    import atexit

    atexit.register(_leave)  # registered first: runs last, after every other exit handler
    # The cycle collector's youngest generation collected every 10000 new objects, not 700:
    # importing numba and loading its kernels create some 10^6 objects, and collecting every
    # 700 cost 0.14 s of a small game's build, against 0.05 s so.
    gc.set_threshold(10_000, 10, 10)
    try:
        status = main()
    finally:
        _ENDED.append(True)
    _STATUS.append(status)
    raise SystemExit(status)


_STATUS: list[int] = []  # main's exit status, once it has returned
_ENDED: list[bool] = []  # main has ended (returned or raised): the exit handlers run next


def _leave() -> None:
    """The process's last step once ``main`` has returned: after Python has joined its threads
    and run every other exit handler, end without the interpreter's teardown, which frees every
    object one at a time: 0.1-0.2 s once numba and LLVM are loaded, a sixth of a small game's
    build. The output streams are flushed first; should that fail (or ``main`` not have
    returned), the exit is left to Python, which reports it as usual. Exit handlers registered
    after this one (Dask's, multiprocessing's, weakref.finalize's, launcher._remove_launcher)
    have run: none is registered before ``entry`` starts."""
    if not _STATUS:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: started with that stream closed
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(_STATUS[0])


def _interrupted(signum, frame) -> None:
    """Ctrl-C, kill or hang-up: KeyboardInterrupt in the main thread (noted instead while
    ``signals.hold_signals`` holds). Python swallows an exception raised inside a gc callback
    (Dask's scheduler installs one in this process), a finalizer (``__del__``: llvmlite frees
    compiled modules so) or a weakref callback (``weakref.finalize``, run by the collector),
    so one swallowed there is caught by ``_redeliver`` and the signal sent again a moment later
    instead of being lost."""
    import signal

    name = signal.Signals(signum).name
    if note_held(name):
        return
    if sys.unraisablehook is not _redeliver:
        _redeliver.before = sys.unraisablehook  # type: ignore[attr-defined]
        sys.unraisablehook = _redeliver
    interruption = KeyboardInterrupt(name)  # named in `moo play --json`'s last line
    interruption.signum = signum  # type: ignore[attr-defined]
    raise interruption


def _redeliver(unraisable) -> None:
    """``sys.unraisablehook`` while ``_interrupted`` is the handler: an interruption Python
    swallowed is sent again in 0.05 s (the swallowing code has then returned, or it is caught
    here again); anything else goes to the hook before it, as does an interruption once
    ``main`` has ended (an exit handler swallowed it: sent again, it would cut short each
    handler after it, one by one)."""
    signum = getattr(unraisable.exc_value, "signum", None)
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and signum is not None \
            and not _ENDED:
        timer = threading.Timer(0.05, _send_again, (signum,))
        timer.daemon = True  # never what Python's exit waits for
        timer.start()
        return
    _redeliver.before(unraisable)  # type: ignore[attr-defined]


def _send_again(signum: int) -> None:
    """The signal again, unless ``main`` ended meanwhile (exit handlers run by then)."""
    if not _ENDED:
        os.kill(os.getpid(), signum)


_redeliver.before = sys.unraisablehook  # type: ignore[attr-defined]


class _Parser(argparse.ArgumentParser):
    """argparse's refusals as every other bad input: one line ``moo: error: ...``, exit status 2
    (argparse prints the whole usage first, eight lines for ``moo build``), naming the help of
    the command given. The subcommands' parsers are of this class too."""

    def error(self, message: str, prog: str | None = None):
        self.exit(Exit.ERROR, f"moo: error: {printable(message)} (see `{prog or self.prog} "
                              "--help`)\n")

    def parse_known_args(self, args=None, namespace=None):
        """As argparse's, noting the innermost command's parser (``_prog``): the options it
        does not know are left over to the top parser, which would name its own help."""
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, "_prog"):
            namespace._prog = self.prog
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}", namespace._prog)
        return namespace


def _parser(command: str | None = "") -> argparse.ArgumentParser:
    """The parser; of the commands that live in their own modules, only ``command``'s is
    imported and configured (the others are listed, for the help), unless it is "" (all)."""
    parser = _Parser(
        prog="moo", description="Optimal decision trees for code-breaking games."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Every command lives in its own module, with configure(subparser) and run(args) -> Exit.
    for name, module, text in (
        ("info", "info", "codes, feedback classes and symmetry of a game"),
        ("build", "build", "build a decision tree and write it as JSON"),
        ("verify", "verify", "replay every secret through a stored tree"),
        ("play", "player", "play a stored tree against a person, or be the code maker"),
        ("prove", "prove", "prove that K guesses are the optimal worst case of a game"),
        ("compare", "compare", "every strategy and stored tree of a game side by side"),
        ("checkpoint", "checkpoints", "show, merge or verify checkpoint files of long searches"),
        ("page", "page", "write one HTML file that plays a stored tree in a browser"),
    ):
        _plug(sub, name, module, text, command in ("", name))
    return parser


def _plug(sub, name: str, module: str, text: str, load: bool = True) -> None:
    """Add the command of ``module`` (configure and run); ``load`` False: listed only, its
    module not imported (a command imports the modules of others for nothing: 0.03 s)."""
    import importlib
    import importlib.util

    if not load:
        if importlib.util.find_spec(f"{__package__}.{module}") is not None:
            sub.add_parser(name, help=text, description=text)
        return
    try:
        mod = importlib.import_module(f".{module}", __package__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.{module}":
            raise
        return  # not part of this installation
    command = sub.add_parser(name, help=text, description=text)
    mod.configure(command)
    command.set_defaults(run=mod.run)
