"""The options the commands share: the parsers of numbers (time limits, whole numbers, seeds,
workers) and the options of a search run (--time-limit, --workers, --scheduler, --table-bits)."""

from __future__ import annotations

import argparse
import math
import re

from ..games import GAME_FORMS


def seconds(text: str) -> float:
    """A time limit: a finite, positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def percent(text: str) -> float:
    """A relative gap: a finite number of percent, more than 0 and at most 100."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 100):
        raise argparse.ArgumentTypeError(f"{text[:40]} is not a percentage above 0 and at most "
                                         "100")
    return value


# What a GAME argument and --guesses take, as every command's help says it.
GAME_HELP = f"{GAME_FORMS} (word-list files)"
GUESSES_HELP = ("any (default): every code may be guessed; consistent: only codes that fit "
                "every answer so far; hard: Wordle's hard mode (word games)")


def whole_number(text: str, least: int = 0, unit: str = "", most: int | None = None,
                 most_text: str = "") -> int:
    """A whole number in ASCII digits, at least ``least`` (and at most ``most``): the one parser
    of the options that count (--workers, --lookahead, --seed, --sample, prove's --height and
    --deepest). str.isdigit and int() also take other scripts' digits ('٣', '３'), and int()
    '1_0', ' 3' and '+3'. Leading zeros are taken (016 is 16)."""
    of = f" of {unit}" if unit else ""
    span = f"at least {least}" if most is None else f"{least} to {most_text or most}"
    if re.fullmatch(r"[0-9]+", text) is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a whole number{of} ({span}, in digits 0-9)")
    digits = text.lstrip("0") or "0"
    longest = len(str(most)) if most is not None else 18  # int() of thousands of digits fails
    if most is not None and (len(digits) > longest or int(digits) > most):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is out of range{of} ({span})")
    if len(digits) > longest:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: too large a number{of} (at most "
                                         f"{longest} digits)")
    if int(digits) < least:
        raise argparse.ArgumentTypeError(f"{text!r}: the number{of} must be {span}")
    return int(digits)


def levels(text: str) -> int:
    """A number of levels: a whole number, 0 or more."""
    return whole_number(text, 0, "levels")


SEED_MAX = 2**64 - 1  # a tree's meta stores the seed; JSON writers take 64-bit numbers


def seed(text: str) -> int:
    """A random seed, 0 to 2**64 - 1 (Python's random takes a negative seed as its absolute
    value, so -7 and 7 would be one seed)."""
    return whole_number(text, 0, "a seed", SEED_MAX, "2**64 - 1")


def workers(text: str) -> int:
    """A number of worker processes: 1 or more (the engine bounds it by the machine)."""
    return whole_number(text, 1, "workers")


def table_bits(text: str) -> int:
    """The size of the transposition tables: 2^N slots, N within search.request.TABLE_BITS."""
    from ..search.request import TABLE_BITS

    least, most = TABLE_BITS
    return whole_number(text, least, "table bits", most)


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """--time-limit, --workers, --scheduler and --table-bits: how long, where and with how much
    memory a search runs."""
    parser.add_argument("--time-limit", type=seconds, default=None, metavar="SECONDS",
                        help="stop after this long, counted from the command's start, with "
                             "what is known (exit status 3); a step that cannot stop midway "
                             "(a large game's feedback matrix, a greedy tree: 8.4 s on "
                             "mastermind:5x7) may "
                             "overrun it")
    parser.add_argument("--workers", type=workers, default=None, metavar="N",
                        help="worker processes on this machine, a local Dask cluster "
                             "(default: threads of this process, one per core when the "
                             "first guess leaves parts of 800 codes or more, else one)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                        help="run on this Dask cluster instead (default: $MOO_SCHEDULER)")
    parser.add_argument("--table-bits", type=table_bits, default=None, metavar="N",
                        help="exact searches: transposition tables of 2^N slots (48 bytes "
                             "each, per worker process; default about 2^9 per code, 2^16 to "
                             "2^22). A long proof gains from more: Battleship's least total, "
                             "24 against 22, took 0.91 of the CPU on 8 first-guess classes; "
                             "a search of seconds loses (Bulls and Cows' total: 1.08)")
