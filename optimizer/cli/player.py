"""``moo play``: the computer breaks a person's secret with a stored tree, or a person breaks one.

Modes (the first argument is a tree FILE when such a file exists, else a game spec):

- ``moo play FILE``: the computer guesses, walking the tree; the person types the feedback.
- ``moo play GAME``: the same without a tree: a random code that fits every answer (seed 001).
- ``moo play FILE|GAME --secret CODE``: the computer plays against CODE and shows the game.
- ``moo play FILE|GAME --breaker [--guesses consistent|hard]``: the person guesses a secret the
  computer drew (held to a guess mode's rule when one is given).
- ``moo play FILE|GAME --json``: another program gives the feedback, one JSON object a line
  answers (``protocol.py``).

The games themselves are played by ``session.py`` (the Python API); this module is the
terminal around it (``--breaker``: ``breaker.py``; the lines said and asked: ``console.py``).

Everything here scores with ``game.feedback`` in plain Python and never imports numba, so a
stored tree plays at once. Exit status: 0 solved, 1 not solved (gave up, end of input, wrong
answers, defective tree, output closed), 2 bad arguments or unreadable file, 130 interrupted
(a person's Ctrl-C at the terminal). ``--json`` follows every command's rule: 0 when the input
ends, 3 stopped by a signal (its last line is a JSON object saying so), 2 a closed stream.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from ..formats.tree_file import read_tree
from ..games import Game, GameError, WordGame, parse_game
from ..games.base import GUESS_MODES, check_guess_mode
from ..games.reply import read_reply, reply_forms
from ..provenance import NOT_PROVEN, checkpoint_facts, opening_note, proof, resting
from ..session import (
    NO_MOVE,
    FeedbackError,
    RandomConsistent,
    Session,
    Solver,
)
from ..tree import Tree, TreeError, printable, replay
from .breaker import play_breaker
from .console import QUIT_WORDS, EndOfInput, Stopped, ask, say, silence_stdout
from .options import seed
from .play_text import guesses_text, how_to_answer, named, prompt, think_of_a_secret
from .status import Exit

HELP_WORDS = frozenset({"h", "help", "?"})


# --- command line ------------------------------------------------------------------------------
def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``moo play`` (the CLI plugs this module in with ``_plug``)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  moo play trees/bulls-cows-4x10.height.any.json      the computer guesses your code\n"
        "  moo play trees/bulls-cows-4x10.height.any.json --secret 3290\n"
        "  moo play bullets-maggots --breaker --seed 7         you guess the computer's code\n"
        "feedback may be typed as 1 2, 1,2, (1, 2), 12, tagged in any order (1b2c, 2c1b,\n"
        "2 white 1 black) or as bbc (bulls and cows); w (or 4 0) when solved.\n"
        "word games (wordle, words:ANSWERS[,GUESSES]): one mark a letter, gybbb (g green,\n"
        "y yellow, b grey), 21000, 2 1 0 0 0 or Wordle's squares; w when solved."
    )
    parser.add_argument(
        "target", metavar="FILE|GAME",
        help="a stored tree file, or a game spec such as bulls-cows or battleship:4x8x3",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--secret", metavar="CODE",
        help="let the computer play against CODE and show each step (quote codes with spaces)",
    )
    mode.add_argument(
        "--breaker", action="store_true", help="you are the code breaker: guess the secret"
    )
    mode.add_argument(
        "--json", action="store_true",
        help="for programs: read one feedback a line, write one JSON object a line "
             "(see the README's play protocol)",
    )
    parser.add_argument(
        "--guesses", choices=GUESS_MODES, default=None,
        help="with --breaker, the guesses you may make: any code (any, the default), only "
             "codes that fit every answer so far (consistent), or words that keep every hint "
             "(hard: word games' hard mode)",
    )
    parser.add_argument(
        "--seed", type=seed, default=None,
        help="random seed of the secret (--breaker) or of the guesses when there is no tree "
             "(0 to 2**64 - 1)",
    )


def run(args: argparse.Namespace) -> Exit:
    """Play one game; never lets an exception escape as a traceback."""
    try:
        return _run(args)
    except KeyboardInterrupt:
        say("\nInterrupted: game over.")
        return Exit.INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return Exit.FAILED


def _run(args: argparse.Namespace) -> Exit:
    try:
        game, tree = load_target(args.target)
        solver = None if tree is None else Solver(tree, args.target)  # checked once
        secret = None if args.secret is None else game.format_code(game.parse_secret(args.secret))
        if args.guesses is not None:
            if not args.breaker:
                raise GameError("--guesses is the breaker's rule: give it with --breaker (the "
                                "computer guesses as its tree says, or codes that fit every "
                                "answer when there is no tree)")
            check_guess_mode(game, args.guesses)
        if args.seed is not None and tree is not None and not args.breaker:
            raise GameError("--seed draws the secret (--breaker) or the guesses of a game "
                            "without a tree; a tree's guesses are fixed")
    except (GameError, TreeError) as exc:
        print(f"moo: error: {printable(exc)}", file=sys.stderr)
        return Exit.ERROR
    rng = random.Random(args.seed)
    if args.json:
        return _serve_json(lambda: new_session(game, solver, rng))
    if args.breaker:
        return play_breaker(game, rng, args.guesses or "any")
    session = new_session(game, solver, rng)
    if secret is not None:
        return play_self(session, secret)
    return play_maker(session, _describe_guesser(tree))


def _serve_json(new_session) -> Exit:
    """The line protocol on standard input and output. A stream that is closed (``<&-``,
    ``>&-``) is bad input, said in one line (status 2); a reader that goes away mid-session
    (a broken pipe) ends it quietly with status 1, whatever the disposition of SIGPIPE (the
    terminal player, as every other command, ends by SIGPIPE: 141); a signal ends it with a
    last JSON object and status 3."""
    from .protocol import serve

    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        if stream is None or not hasattr(stream, "buffer"):
            print(f"moo: error: standard {name} is closed: --json reads one line per "
                  "answer from standard input and writes one JSON object a line to standard "
                  "output", file=sys.stderr)
            return Exit.ERROR
    import signal

    pipe = getattr(signal, "SIGPIPE", None)
    try:  # a broken pipe is then an exception with a defined status, not a death by signal
        before = signal.signal(pipe, signal.SIG_IGN) if pipe is not None else None
    except ValueError:  # not the main thread: the disposition stays as it is
        before = None
    try:
        return serve(new_session, sys.stdin.buffer, sys.stdout)
    finally:
        if before is not None:
            signal.signal(pipe, before)


def new_session(game: Game, solver: Solver | None, rng: random.Random) -> Session:
    """A game played with ``solver``'s tree, or with random guesses that fit every answer when
    there is none (seed 001)."""
    if solver is not None:
        return solver.new_game()
    return Session(game, RandomConsistent(rng))


def load_target(target: str) -> tuple[Game, Tree | None]:
    """The game and, when ``target`` names an existing file, the tree stored in it."""
    path = Path(target)
    if path.is_dir():
        raise TreeError(f"{target}: is a directory, not a tree file")
    if path.exists():  # read_tree refuses a device, FIFO or socket (and never blocks on one)
        tree = read_tree(path)
        return tree.game, tree
    try:
        return parse_game(target), None
    except GameError as exc:
        if target.endswith(".json") or os.sep in target:
            raise TreeError(f"{target}: no such tree file") from None
        raise GameError(f"{exc} (or give the path of a tree file)") from None


def _describe_guesser(tree: Tree | None) -> str:
    """What the guesser promises: a worst case only from a replay of the tree, never from the
    file's unchecked stats (a defective tree promises nothing)."""
    if tree is None:
        return "I pick each guess at random among the codes that fit all your answers."
    result = replay(tree, max_defects=1)
    most = "" if result.defects else f", at most {guesses_text(result.height)}"
    facts = checkpoint_facts(tree)  # what an optimality claim that verify accepts rests on
    opening = opening_note(tree)  # the file's claims, not re-proved here
    if opening is not None and opening[0] and not result.defects:
        proven = f"; optimal {opening[1]}, as its file claims"
    elif proof(tree, result) == NOT_PROVEN:
        proven = ""
    else:
        proven = (f"; {resting('proven optimal', facts)}" + (" (not re-checked)" if facts else "")
                  + ", as its file claims")
    how = f"I follow a stored strategy ({printable(tree.objective)}{most}{proven})."
    if result.defects:  # said before the game, not only when it reaches the defect
        how += (f"\nWarning: the tree file is defective ({printable(result.defects[0])}): a game "
                "may reach an answer it has no move for; `moo verify` lists every defect.")
    return how


# --- feedback as people type it ------------------------------------------------------------
def parse_reply(game: Game, text: str) -> int:
    """Feedback id of what a person typed (``games.reply`` reads every form)."""
    return read_reply(game, text)


def choices_left(session: Session) -> str:
    """Seed 001's wording."""
    if session.candidates_left == 1:
        return f"one choice left; it must be {session.candidates[0]}"
    return f"{session.candidates_left} choices left"


# --- the computer breaks the person's code ------------------------------------------------
def play_maker(session: Session, how: str) -> Exit:
    """The person holds the secret and answers each guess; wrong answers are caught as soon as
    no secret fits them all, and then named."""
    game = session.game
    say(think_of_a_secret(game))
    say(how)
    say(how_to_answer(game))
    say(f"{session.candidates_left} possible secrets.")
    try:
        while True:
            say(f"Guess {session.guesses + 1}: {session.guess}")
            _read_reply(session)
            if session.contradiction:
                return _expose(session)
            if session.solved:
                say(f"Solved: your secret is {session.secret}, "
                     f"found in {guesses_text(session.guesses)}.")
                return Exit.FINISHED
            say(choices_left(session))
            if session.status == NO_MOVE:
                return _tree_defect(session)
    except Stopped:
        say("Stopped: game over.")
        return Exit.FAILED
    except EndOfInput:
        say("\nNo more answers: game over.")
        return Exit.FAILED


def _read_reply(session: Session) -> None:
    """Ask until the person types a feedback that some code could give to the guess, and give
    it to the session."""
    game = session.game
    while True:
        text = ask(prompt(game))
        word = text.lower()
        if word in QUIT_WORDS:
            raise Stopped
        if word in HELP_WORDS or not word:
            say(_maker_help(game))
            continue
        try:
            reply = parse_reply(game, text)
        except GameError as exc:
            say(f"  I do not understand that: {exc}. Type ? for help.")
            continue
        try:
            session.answer(game.feedback_counts(reply))
        except FeedbackError as exc:
            say(f"  {exc}. Please check it and type it again.")
            continue
        return


def _maker_help(game: Game) -> str:
    noun = "word" if isinstance(game, WordGame) else "code"
    return (f"  Type the feedback for my guess as {reply_forms(game)}."
            f"\n  Type w or {game.format_feedback(game.win)} when I have guessed your "
            f"{noun}, q to stop.")


def _expose(session: Session) -> Exit:
    """Seed 002: ask for the secret and name every answer that was not its feedback."""
    game = session.game
    say("That cannot be: no secret agrees with all your answers, so one of them is wrong.")
    secret = _ask_secret(game)
    say(f"You say your secret is {secret}.")
    for wrong in session.wrong_answers(secret):
        say(f"When I guessed {wrong.guess} you replied {named(game, wrong.given)} "
             f"but in fact it is {named(game, wrong.truth)}.")
    return Exit.FAILED


def _ask_secret(game: Game) -> str:
    while True:
        text = ask("What was your secret? ")
        try:  # first: a word game may have an answer spelled stop or help
            return game.format_code(game.parse_secret(text))
        except GameError as exc:
            if text.lower() in QUIT_WORDS:
                raise Stopped from None
            if not text or text.lower() in HELP_WORDS:
                say(f"  Type the {game.secret_noun} you thought of, e.g. "
                    f"{game.format_code(0)}, and I name the answers that were wrong; q to stop.")
            else:
                say(f"  That is not a valid code: {exc}.")


def _tree_defect(session: Session) -> Exit:
    defect = session.tree_defect or ""
    say(defect[:1].upper() + defect[1:] + ".")
    return Exit.FAILED


# --- the computer plays against a given secret ------------------------------------------------
def play_self(session: Session, secret: str) -> Exit:
    """Show the whole game against ``secret``: guess, feedback, choices left."""
    game = session.game
    say(f"{game.spec}, secret {secret}")
    while True:
        shown = f"Guess {session.guesses + 1}: {session.guess}"
        reply = session.answer_for(secret)
        shown += f" -> {named(game, reply)}"
        if session.solved:
            say(f"{shown}, solved")
            say(f"Solved {secret} in {guesses_text(session.guesses)}.")
            return Exit.FINISHED
        say(f"{shown}, {choices_left(session)}")
        if session.status == NO_MOVE:
            return _tree_defect(session)
