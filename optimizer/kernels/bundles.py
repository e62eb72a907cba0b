"""The named tuples of arrays that every search kernel takes, instead of dozens of positional
arguments. numba compiles a named tuple into a plain struct, so a bundle costs nothing at run time;
the fields are read-only for the kernels except where a comment says otherwise. N is the number
of codes, nf the number of feedback ids, B the most non-winning answers.

- ``Problem``: the game as the search sees it (feedback matrix, guess mode).
- ``Orbits``: the symmetry group, to keep one guess per orbit (see ``symmetry.py``).
- ``Bounds``: the counting bound tables (see ``bounds.py``).
- ``Table``: one transposition table with its set hashes and the stop flag (see ``table.py``).
- ``Run``: which pruning rules are on, counters, and the guess a call answers with.
"""

from collections import namedtuple

import numpy as np

INF = np.int64(1) << np.int64(40)  # "no tree": larger than any total
DCAP = 40  # depth limits above this behave as unlimited in the bound tables

# Pruning rules, each switchable so that tests can compare a search with the plain one and show
# that the rule fires. Where each lives and why it is sound: the docstring of that module.
OPT_SYMMETRY = 1  # one guess per orbit of the symmetries fixing the guesses so far (guesses)
OPT_DEDUPE = 2  # guesses splitting the candidates into the same blocks are one (partition)
OPT_TT = 4  # transposition table (table)
OPT_DEAD = 8  # dead symbols, squares saying alike: interchangeable in other guesses (guesses)
OPT_PROBE = 16  # null-window probes of each part before exact values (total)
OPT_SEPARATE = 32  # three guesses left: only separating guesses can finish a part (height)
OPT_BRANCHING = 64  # bounds from the node's own most answers, handed down (height, total)
OPT_CANDIDATES_FIRST = 128  # other guesses scored only when their bound can win (total)
OPT_SMALL = 256  # parts of one or two candidates are exact: 1 and 3 (height, total)
OPT_SHARES = 512  # a refuted guess's parts raise their bounds by shares of the cut-off (total)
OPT_FEW_ANSWERS = 1024  # other guesses whose squares say few values: bounded unscored (total)
OPT_ALL = 2047
# Every rule by its name, as tests and scripts/check_rules.py switch them off one at a time.
SWITCHES = {
    "symmetry": OPT_SYMMETRY, "dedupe": OPT_DEDUPE, "table": OPT_TT, "dead": OPT_DEAD,
    "probe": OPT_PROBE, "separate": OPT_SEPARATE, "branching": OPT_BRANCHING,
    "candidates-first": OPT_CANDIDATES_FIRST, "small": OPT_SMALL, "shares": OPT_SHARES,
    "few-answers": OPT_FEW_ANSWERS,
}
# The counting bounds themselves (bounds.py) are switched off by building trivial tables.

# What each least-cost search minimises (see Bounds): defined where the commands that only read
# trees find it without loading numba.
from ..objective import COSTS, LAST_FIRST  # noqa: E402, F401

# Run.stats slots
ST_NODES = 0  # calls of feasible / min_total
ST_TT_HITS = 1  # answers taken from the table
ST_SCORED = 2  # guesses scored against a node's candidates

Problem = namedtuple("Problem", [
    # N codes (the allowed guesses), S <= N secrets: the first S codes (word games: S < N)
    "F",  # (N, S) uint8: F[guess, secret], the feedback id
    "FT",  # (S, N) uint8: F transposed and contiguous: scoring reads one candidate's row at a time
    "all_codes",  # (N,) int32 0..N-1: every code may be guessed (guess mode "any")
    "win",  # int: feedback id of a solved game
    "nf",  # int: number of feedback ids (array sizes)
    "consistent",  # bool: only candidates may be guessed
    "hard",  # bool: only codes keeping the hints of the path may be guessed (word games)
    "marks",  # (nf, L) int8: the marks (0, 1, 2 a letter) of each feedback id, for "hard"
    # Scoring by squares (scoring.py; empty arrays for a game without it, Game.square_answers):
    "square_values",  # (S, Q) uint8: what each of the Q squares says of each secret (0-3)
    "guess_squares",  # (N, 3) int16: the squares of each guess
    "square_answer",  # (64,) int64: the feedback id of each way three squares can speak
    "squares_from",  # int: nodes of this many candidates or more are scored by squares
    "square_reach",  # (4096,) int64: how many non-winning answers at most a guess outside the
    # candidates gets whose squares say values within masks m1, m2, m3 (bit v: says v), at
    # (m1 * 16 + m2) * 16 + m3
])

Orbits = namedtuple("Orbits", [
    "codes",  # (N, width) int16: symbols (digit games) or squares (Battleship) of every code
    "kind",  # int: KIND_DIGITS or KIND_PERMS (symmetry.py)
    "position_perms",  # (m, width) int8: position permutations keeping the game (digit games)
    "symbol_class",  # (S,) int8: symbols may be exchanged only within a class (moo ranges)
    "n_symbols",  # int: S
    "code_perms",  # (m, N) int32: explicit code permutations (Battleship's mirror images)
    "dead_ok",  # bool: dead symbols may stand in for each other (equal ranges everywhere)
])

Bounds = namedtuple("Bounds", [
    "M",  # (B + 1, DCAP + 1) int64: M[B, d], most secrets d guesses tell apart with B answers
    "LB",  # (B + 1, N + 1, DCAP + 1) int64: LB[B, n, d], least conceivable cost of n secrets
    "LBN",  # (B + 1, N + 1, DCAP + 1) int64: the same when the first guess is no candidate
    # What the least-cost search minimises: guess_cost x (guesses summed over the secrets) +
    # last_cost x (secrets solved at the last level allowed). (1, 0): the total; (1, 2^22): the
    # fewest secrets at the last level, then the total; (0, 1): the fewest at the last level.
    "guess_cost",
    "last_cost",
])

Table = namedtuple("Table", [
    "keys",  # (2^bits, 2) uint64: the two hashes of a candidate set, the first XOR a checksum
    "vals",  # (2^bits, 4) int64: meta (size, depth; 0: empty), lower bound, upper bound, guess
    "z1",  # (N,) uint64: a random odd word per code: set hash 1 (also partition signatures)
    "z2",  # (N,) uint64: an independent word per code: set hash 2
    "stop",  # (1,) int8, written by another thread: nonzero ends the search, nothing is stored
    # (keys, vals, z1 and z2 may be shared by the tables of several threads: table.shared_table)
])

Run = namedtuple("Run", [
    "opts",  # int: OPT_* bits
    "stats",  # (3,) int64 counters, ST_* slots (written)
    "out",  # (1,) int64: the guess achieving a call's answer, or -1 (written)
    "counts",  # (N, nf) uint16: scoring's counters, reused by every node (written)
    "small_counts",  # (N, nf) uint8: scoring's for nodes of fewer than 256 candidates (written)
    "scores",  # (4, N) int64: what scoring.score_pool returns, valid until its next call (written)
    "square_sets",  # (Q, 4, S / 64) uint64: scoring by squares' sets of candidates (written)
    # What each path length's guesses allow (guesses.py), remembered per path length (written):
    "memo_paths",  # (MASK_DEPTH, MASK_DEPTH + 3) int32: MEMO_* bits, stabilizer size, reps, path
    "masks",  # (MASK_DEPTH, N) bool: orbit masks (guesses.orbit_reps)
    "reps",  # (MASK_DEPTH, N) int32: the codes of each mask, in order
    "stab_perms",  # (MASK_DEPTH, position perms, width) int8: the stabilizer (digit games)
    "stab_maps",  # (MASK_DEPTH, position perms, symbols) int16: its symbol maps
    "used_symbols",  # (MASK_DEPTH, symbols) bool: the symbols the path uses
])
MASK_DEPTH = 24  # a path longer than this computes its symmetries every time
MEMO_STABILIZER = 1  # memo_paths bits: the row holds the stabilizer of its path
MEMO_MASK = 2  # ... and the orbit mask over every code, with its list of codes
