"""Scoring a node's guesses: for each guess of a pool, the four figures the searches rank it by
(its largest non-winning part, its non-winning parts, their counting bounds summed, its
answers), from how it splits the node's candidates. Every search step starts here, and the long
searches spend nearly all their time here (docs/performance.md). Two ways, the same figures:

- By the matrix (``score_by_matrix``): every guess's parts counted one candidate's row of the
  transposed matrix at a time (partition.count_parts), then each guess's figures. Reading each
  guess's row at scattered secrets instead misses the cache on almost every lookup (ten times
  slower on Bulls and Cows).
- By squares (``score_by_squares``), for a game whose guesses are three squares and whose
  feedback adds up what each square says of the secret (Battleship: on a ship, one away, two
  away, farther; ``Game.square_answers``). The candidates answering a guess in a given way are
  those whose three squares say given things: an AND of three sets of candidates, each a few
  64-bit words, counted by popcount. The ways of the first two squares are formed once for the
  guesses sharing them, and ways no candidate has are skipped. Nodes of ``Problem.squares_from``
  candidates or more go this way: 2.4-4.7 times faster from 64 candidates on, and first-guess
  classes of the default board settled in 0.75-0.95 of the time (docs/performance.md).

The counters and results are the run's scratch, reused from node to node (fresh arrays per node
cost allocations, zero-filling and page faults every time); the matrix's counters are bytes when
every count fits. Scoring by squares makes its three small arrays per node (the first two
squares' ways and one row of counts, 10 KB at most): its nodes take a millisecond or more.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .bounds import split_floor
from .partition import count_parts

VALUES = 4  # what a square can say of a secret: 0 on a ship, 1 one away, 2 two away, 3 farther
SQUARES_FROM = 64  # nodes of fewer candidates are scored by the matrix (Problem.squares_from)


@njit(cache=True, nogil=True, inline="always")
def by_squares(problem):
    """Whether the game's feedback adds up what three squares say (Problem's square fields)."""
    return problem.square_answer.shape[0] > 0


@njit(cache=True, nogil=True)
def score_pool(problem, run, pool, cands, LB, dc):
    """Every guess of pool ((G,) int32) over cands ((n,) int32): (largest non-winning part,
    number of non-winning parts, sum of LB over the non-winning parts, number of different
    answers), each a (G,) int64 view of ``run.scores``, valid until the next call (copy what must
    outlive it). LB ((N + 1, DCAP + 1) int64) is the bound table of one branching factor, dc the
    depth column."""
    if by_squares(problem) and cands.shape[0] >= problem.squares_from:
        score_by_squares(problem, run.square_sets, pool, cands, LB, dc, run.scores)
    elif cands.shape[0] < 256:
        score_by_matrix(problem, run.small_counts, pool, cands, LB, dc, run.scores)
    else:
        score_by_matrix(problem, run.counts, pool, cands, LB, dc, run.scores)
    G = pool.shape[0]
    out = run.scores
    return out[0, :G], out[1, :G], out[2, :G], out[3, :G]


@njit(cache=True, nogil=True, inline="always")
def part_figures(counts, i, win, nf, LB, dc):
    """(largest non-winning part, non-winning parts, LB summed over them at column dc, answers)
    of the guess whose counts are counts[i] ((>= i + 1, nf): candidates per feedback id; the row
    is read in place, and the function inlined: a view and a call per guess cost 5% of Bulls
    and Cows' scoring). Empty parts are skipped with a branch: most guesses of a node leave the
    same ids empty, which the processor foresees (the same sums without branches took a quarter
    longer on Battleship's nodes)."""
    largest = np.int64(0)
    parts = np.int64(0)
    answers = np.int64(0)
    lb1 = np.int64(0)
    for f in range(nf):
        cnt = np.int64(counts[i, f])
        if cnt == 0:
            continue
        answers += 1
        if f == win:
            continue
        parts += 1
        lb1 += LB[cnt, dc]
        if cnt > largest:
            largest = cnt
    return largest, parts, lb1, answers


@njit(cache=True, nogil=True)
def score_by_matrix(problem, counts, pool, cands, LB, dc, out):
    """score_pool's figures into out[:, :G] ((4, N) int64), counted from the transposed matrix
    (counts: (>= G, nf) uint8 or uint16 scratch, written)."""
    count_parts(problem.FT, pool, cands, counts)
    win, nf = problem.win, problem.nf
    for i in range(pool.shape[0]):
        out[0, i], out[1, i], out[2, i], out[3, i] = part_figures(counts, i, win, nf, LB, dc)


@intrinsic
def popcount(typingctx, word):
    """The number of bits set in a uint64 (one processor instruction where it has one)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True)
def square_sets(values, cands, sets):
    """sets[q, v, :nw] ((Q, VALUES, >= nw) uint64, written): the candidates (cands[j]: bit j % 64
    of word j // 64) whose square q says v (values: (S, Q) uint8, Problem.square_values).
    Returns nw, the words per set."""
    n = cands.shape[0]
    nw = (n + 63) >> 6
    sets[:, :, :nw] = 0
    for j in range(n):
        says = values[cands[j]]
        bit = np.uint64(1) << np.uint64(j & 63)
        w = j >> 6
        for q in range(says.shape[0]):
            sets[q, says[q], w] |= bit
    return nw


@njit(cache=True, nogil=True)
def score_by_squares(problem, sets, pool, cands, LB, dc, out):
    """score_pool's figures into out[:, :G] ((4, N) int64), by squares (problem.guess_squares,
    (N, 3); sets: Run.square_sets, written)."""
    nw = square_sets(problem.square_values, cands, sets)
    answer = problem.square_answer  # (VALUES ** 3,) the dense feedback id of each way
    squares, win, nf = problem.guess_squares, problem.win, problem.nf
    counts = np.zeros((1, nf), dtype=np.int64)
    pairs = np.empty((VALUES * VALUES, nw), dtype=np.uint64)  # the first two squares' ways
    ways = np.empty(VALUES * VALUES, dtype=np.int64)  # which, of those some candidate has
    n_ways = 0
    first, second = -1, -1
    for i in range(pool.shape[0]):
        g = pool[i]
        s1, s2, s3 = squares[g, 0], squares[g, 1], squares[g, 2]
        if s1 != first or s2 != second:  # guesses in code order share their first two squares
            first, second = s1, s2
            n_ways = 0
            for v1 in range(VALUES):
                for v2 in range(VALUES):
                    some = np.uint64(0)
                    for w in range(nw):
                        both = sets[s1, v1, w] & sets[s2, v2, w]
                        pairs[n_ways, w] = both
                        some |= both
                    if some != 0:
                        ways[n_ways] = (v1 * VALUES + v2) * VALUES
                        n_ways += 1
        counts[0, :] = 0
        for a in range(n_ways):
            way = ways[a]
            for v3 in range(VALUES):
                count = np.uint64(0)
                for w in range(nw):
                    count += popcount(pairs[a, w] & sets[s3, v3, w])
                counts[0, answer[way + v3]] += np.int64(count)
        out[0, i], out[1, i], out[2, i], out[3, i] = part_figures(counts, 0, win, nf, LB, dc)


@njit(cache=True, nogil=True)
def said_values(values, cands):
    """(Q,) int64: bit v of entry q set when square q says v of some candidate ((n,) int32;
    values: Problem.square_values)."""
    said = np.zeros(values.shape[1], dtype=np.int64)
    for c in cands:
        for q in range(values.shape[1]):
            said[q] |= np.int64(1) << np.int64(values[c, q])
    return said


@njit(cache=True, nogil=True)
def few_answers(problem, cands, pool, LB, dc, need, most):
    """The guesses of pool ((G,) int32, none a candidate of cands), less those that cannot
    leave non-winning parts whose bounds LB (as score_pool's) sum below ``need``, found before
    any is scored. A guess gets at most as many answers as the ways its squares can speak,
    counting only values they say of some candidate (Problem.square_reach), and its parts then
    cost at least the most even split of the candidates into that many (bounds.split_floor).
    Only guesses of at most ``most`` answers are left out, so that a node's branching holds
    without them."""
    said = said_values(problem.square_values, cands)
    floors = np.full(problem.nf + 1, -1, dtype=np.int64)  # per number of answers
    squares, reach = problem.guess_squares, problem.square_reach
    out = np.empty_like(pool)
    k = 0
    for g in pool:
        answers = reach[(said[squares[g, 0]] * 16 + said[squares[g, 1]]) * 16
                        + said[squares[g, 2]]]
        if 0 < answers <= most:
            if floors[answers] < 0:
                floors[answers] = split_floor(LB, dc, cands.shape[0], answers)
            if floors[answers] >= need:
                continue
        out[k] = g
        k += 1
    return out[:k]
