"""The transposition table (OPT_TT): a node's value depends only on its candidate set and the
depth still allowed (design notes: "value depends only on the candidate set"), whatever path led
there and in either guess mode, so results found once are reused wherever the set comes back.

A set is keyed by two independent 64-bit sums of random words (order-free, so a part's hash costs
one pass) plus its size and depth in ``meta``: a proof never rests on one hash. Entries hold a
proven interval [lower, upper] of the value and the guess achieving ``upper``. Two-way buckets in
open-addressed numpy arrays (far faster in numba than a typed dict); on a full bucket the entry
of the smaller set is replaced. An empty slot is all zeros: a stored set has at least two codes,
so its meta (size << 20 | depth) is never 0 and an empty slot is always the first replaced. A
stopped search (``stop`` set) stores nothing: its unfinished answers are not facts.

The worker threads of one process share one table (``shared_table``), without locks: an entry is
six words written one by one, so two threads writing one slot at once, or one reading it while
another writes, may meet a slot mixing two entries. The first hash word is therefore stored
XORed with a checksum of the entry's four values (``_check``): a mixed slot fails the check
and reads as empty (a miss, never a wrong answer), and is replaced in time. Each word is
written whole (aligned 64-bit stores), so no word itself is ever half of two.
"""

import numpy as np
from numba import njit

from .bundles import Table

MAX_BITS = 22  # 2^22 slots: 192 MB per table


def table_bits(n_codes: int) -> int:
    """Slots for a game's tables: about 2^9 per code, 2^16 to 2^22. The least-total searches of
    the small games store about as many sets as they have nodes (moo 10,11,12: 1.5 million
    nodes, 1% more of them in 2^20 slots than in 2^22, the same time), while first touching the
    pages of a table larger than the search was 0.2 s of Mastermind 4x6's 0.5 s."""
    return min(MAX_BITS, max(16, (n_codes - 1).bit_length() + 9))


def new_table(bits: int, n_codes: int, seed: int, stop: np.ndarray | None = None) -> Table:
    """An empty table of 2^bits entries for sets of codes below ``n_codes``; ``seed`` draws the
    hash words, ``stop`` may be shared with other tables of the same search."""
    rng = np.random.default_rng(seed)
    n = n_codes
    # All zeros: the system hands such memory over untouched, page by page as entries land, where
    # filling 2^22 slots took a quarter of a second (most of a small game's search).
    return Table(
        keys=np.zeros((1 << bits, 2), dtype=np.uint64),
        vals=np.zeros((1 << bits, 4), dtype=np.int64),
        z1=_odd_words(rng, n),
        z2=_odd_words(rng, n),
        stop=np.zeros(1, dtype=np.int8) if stop is None else stop,
    )


def shared_table(table: Table, stop: np.ndarray) -> Table:
    """``table``'s entries and hash words with a stop flag of its own: another thread's view of
    it, so that the threads of one process share what each of them proves (a job asked again
    lands on whichever thread is free, and finds what the last one stored). Safe without locks
    (the module's docstring)."""
    return Table(keys=table.keys, vals=table.vals, z1=table.z1, z2=table.z2, stop=stop)


def _odd_words(rng, n: int) -> np.ndarray:
    return rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def clear(table: Table) -> None:
    """Forget every entry (the hash words stay)."""
    table.keys[:] = 0
    table.vals[:] = 0


@njit(cache=True, nogil=True)
def mix(x):
    """A 64-bit finaliser (splitmix64): spreads sums of words over every bit."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def set_hash(table, cands):
    """The two order-free uint64 hashes of cands ((n,) int32): sums of table.z1 and table.z2."""
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for c in cands:
        h1 += table.z1[c]
        h2 += table.z2[c]
    return h1, h2


@njit(cache=True, nogil=True)
def _check(meta, lo, hi, guess):
    """(uint64) A checksum of an entry's values, XORed into its first hash word (``store``)."""
    x = mix(np.uint64(guess) + np.uint64(0x9E3779B97F4A7C15))
    x = mix(x ^ np.uint64(hi))
    x = mix(x ^ np.uint64(lo))
    return mix(x ^ np.uint64(meta))


@njit(cache=True, nogil=True)
def _bucket(table, h1):
    """The first of the two slots of the bucket of a set whose first hash is h1 (even)."""
    return np.int64(h1 & np.uint64(table.keys.shape[0] - 1)) & ~np.int64(1)


@njit(cache=True, nogil=True)
def _entry(table, h1, h2, meta):
    """(slot, lower, upper, guess) of the entry of this set (hashes h1, h2) at this meta (size
    << 20 | depth) in table.keys/.vals ((2^bits, 2) uint64, (2^bits, 4) int64); slot -1 (and
    the rest meaningless) when there is none, or when the slot was being written (its checksum
    fails): each word is read once, and the values returned are the ones checked."""
    i = _bucket(table, h1)
    for s in range(i, i + 2):
        m = table.vals[s, 0]
        if m != meta:
            continue
        k1, k2 = table.keys[s, 0], table.keys[s, 1]
        lo, hi, guess = table.vals[s, 1], table.vals[s, 2], table.vals[s, 3]
        if k2 == h2 and k1 == h1 ^ _check(m, lo, hi, guess):
            return s, lo, hi, guess
    return np.int64(-1), np.int64(0), np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True)
def probe(table, h1, h2, meta):
    """(found, lower, upper, guess): what the table holds of this set at this meta."""
    s, lo, hi, guess = _entry(table, h1, h2, meta)
    return s >= 0, lo, hi, guess


@njit(cache=True, nogil=True)
def store(table, h1, h2, meta, lo, hi, guess):
    """Record lower <= value <= upper (narrowing an existing entry)."""
    if table.stop[0] != 0:
        return
    keys, vals = table.keys, table.vals
    s, old_lo, old_hi, old_guess = _entry(table, h1, h2, meta)
    if s >= 0:
        if old_lo > lo:
            lo = old_lo
        if old_hi <= hi:
            hi, guess = old_hi, old_guess
    else:
        i = _bucket(table, h1)
        s = i if vals[i, 0] < vals[i + 1, 0] else i + 1
    vals[s, 0] = meta
    vals[s, 1] = lo
    vals[s, 2] = hi
    vals[s, 3] = guess
    keys[s, 0] = h1 ^ _check(meta, lo, hi, guess)
    keys[s, 1] = h2
