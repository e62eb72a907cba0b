"""The lookahead bounds of a least-cost root search's classes (``moo build --lookahead K``),
raised before the search where each is lowest: the least of them is the bound proven on the
whole game (total.py's TotalSearch runs it)."""

from __future__ import annotations

import heapq

from ..formats.facts import claimed
from ..kernels.bundles import INF
from .jobs import class_bound


def raise_bounds(search, classes: list, depth: int, best: int) -> list:
    """The root classes with their bounds raised by the lookahead bound (kernels.lookahead),
    up to ``search.lookahead`` levels, lowest class first: the least of them is the proven
    bound on the whole game, and each job lifts it where it is lowest. A class whose bound
    reaches ``best`` (the tree in hand), or with --gap its goal, is left. A job asks only
    whether its class reaches the next class's bound plus a step; one that does is asked again
    later with a higher cut-off (twice the margin each time), at the same level (the table
    keeps what it learnt, and the parts' raised bounds are handed to the next job).
    Every raised bound is recorded in the checkpoint; the list is modified in place and
    returned (in any order) when the time limit is reached, TimeoutError."""
    n = search.solver.game.n_secrets
    log = search.checkpoint
    # What a job asks beyond the next class's bound: a tenth of a guess a secret, and one
    # more secret at the last level for the costs that count it (the deepest count's bounds
    # are a few secrets: a step of hundreds would have each job compute its whole level).
    bounds, _ = search.solver.cost(search.cost)
    step = bounds.guess_cost * max(1, n // 10) + bounds.last_cost
    level = {}
    for i, (bound, guess, parts) in enumerate(classes):
        if log is not None:
            known = log.total_lower_bound(search.cost, guess, depth)
            level[guess] = log.lookahead_levels(search.cost, guess, depth)
            if known > bound:
                classes[i] = (known, guess, parts)
                search.took(guess, depth)
        else:
            level[guess] = 0
    goal = search.goal(best)  # with --gap, what a class need reach; the bar shows both
    heap = [(b, g) for b, g, _ in classes if b < goal and level[g] < search.lookahead]
    heapq.heapify(heap)
    where = {g: i for i, (_, g, _) in enumerate(classes)}
    bar = search.observer.bar(desc=f"{search.cost}: lookahead bounds", unit="job")
    running: dict = {}  # job -> (guess, level asked, beta, its parts' feedback ids)
    margin: dict = {}  # guess -> what its next job asks beyond the floor (step, doubled)
    proven: dict = {}  # (guess, feedback id) -> a part's bound a job proved, above counting

    def part_bound(guess: int, fid: int) -> int:
        """What is proven of a part: a job's bound, or the checkpoint's fact."""
        if (guess, fid) not in proven and log is not None:
            fact = log.part_fact(search.cost, depth, (guess, fid))
            proven[guess, fid] = 0 if fact is None else claimed(fact)
            if fact is not None and not log.proved_here(search.cost, depth, (guess, fid)):
                search.parts_taken.add((guess, fid))  # what the bounds built on it rest on
        return proven.get((guess, fid), 0)

    def raised_part(guess: int, fid: int, lb: int) -> None:
        """A part's bound a job raised above what was proven of it and above its counting
        bound: kept for the class's next job (on any worker) and in the checkpoint, where
        the class's exact search starts from it too."""
        counted = search.solver.counting(len(classes[where[guess]][2][fid]), depth - 1,
                                       search.cost)
        if lb <= max(part_bound(guess, fid), counted):
            return
        proven[guess, fid] = lb
        if log is not None:
            log.record_part(search.cost, depth, (guess, fid), lb, None)

    def show() -> None:
        bound = min(c[0] for c in classes)
        gap = (best - bound) / bound if bound and best < INF else float("inf")
        bar.set_postfix_str(f"bound {search.shown(bound)}, best {search.shown(best)}, "
                            f"gap {100 * gap:.2f}%"
                            + (f", goal {search.shown(goal)}" if goal != best else ""))

    def feed() -> None:
        while heap and len(running) < search.engine.workers:
            bound, guess = heapq.heappop(heap)
            nxt = heap[0][0] if heap else bound
            beta = min(goal, max(bound, nxt) + margin.get(guess, step))
            parts = sorted(classes[where[guess]][2].items(), key=lambda kv: -len(kv[1]))
            fids = [fid for fid, _ in parts]
            job = search.submit(class_bound, guess, [p for _, p in parts], depth,
                              level[guess] + 1, beta, search.cost,
                              [part_bound(guess, fid) for fid in fids])
            running[job] = (guess, level[guess] + 1, beta, fids)

    show()
    feed()
    pending = list(running)
    try:
        while pending:
            for job in search.finished(pending):
                guess, asked, beta, fids = running.pop(job)
                value, lbs, _, _ = search.result(job)
                bar.update(1)
                i = where[guess]
                for fid, lb in zip(fids, lbs, strict=True):
                    raised_part(guess, fid, lb)
                old = classes[i][0]
                if value < beta:  # the whole level: this class is done with it
                    level[guess] = asked
                    margin.pop(guess, None)
                else:  # asked again, for twice as much: a class whose bound is unbounded
                    # (no tree within the depth) reaches it in a few dozen jobs, not
                    # creeping up a step at a time
                    margin[guess] = 2 * margin.get(guess, step)
                if value > old:
                    classes[i] = (value, guess, classes[i][2])
                if log is not None and value >= old:  # a bound of this level, not settling
                    log.record_total(search.cost, guess, depth, value, False, asked,
                                     cut=value >= beta)
                if classes[i][0] < goal and level[guess] < search.lookahead:
                    heapq.heappush(heap, (classes[i][0], guess))
                show()
                feed()
                pending.extend(j for j in running if j not in pending)
                break
    finally:
        search.cancel(list(running))
        bar.close()
        if log is not None:
            log.flush()
    return classes

