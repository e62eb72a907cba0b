"""What a least-cost root search shows and projects as it goes: the board beside its progress
bar (best cost in hand, the bound proven, the gap) and the honest estimate of the work left."""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable

from ..kernels.bundles import INF


class Pace:
    """An honest estimate of what a least-cost root search has left: the classes whose bound is
    still below the best cost in hand and that are not settled, times the CPU seconds of search
    spent a class settled, over this run and every earlier one of its kind on record (the
    runs that settle classes against the best, or the --gap runs of its goal; ``before``: the
    checkpoint's sums, ``Checkpoint.spent_so_far``). CPU time, not wall time: a machine shared
    with other work, which stretches wall time (80 to 193 wall seconds a Battleship class on 2
    cores were measured that way), leaves it nearly as it is. Summing over runs counts a class
    that an earlier run half searched (part facts) at its whole cost, and a run stopped in a
    long class still counts what it spent there: one run's own mean said 3.8 core-hours for
    Battleship after settling one half-searched class in 7 minutes, where 35- and 18-minute
    runs had said 84 and 57. ``on_file(index)``: what the checkpoint now says class ``index``
    costs at least (0: nothing), so that classes another process sharing the file settled
    meanwhile are not counted as left (one run wrote 715 left where 655 were). ``drawn``: the
    CPU seconds and count of the classes on record that were drawn at random among those open
    (``Checkpoint.drawn_so_far``); from ``drawn_least`` of them their mean is the pace instead,
    as the runs' is biased by their order (Battleship: the runs said 230 CPU seconds a class,
    60 classes drawn at random 62.5). ``left`` is None while no class is settled or drawn on
    record. Once the run has settled ``own_after`` classes, the bar shows its own pace's hours
    beside: the classes left are not like those before (Battleship's --gap 1 runs took 32, 64,
    69, 61, then 94 CPU seconds a class, while the mean of the first four said 51)."""

    own_after = 10
    drawn_least = 10
    record_every = 300.0  # seconds between records of what the run spent (``due``)

    def __init__(self, bounds: list[int], best: int, cpu: float = 0.0,
                 before: tuple[float, int, int] = (0.0, 0, 1),
                 on_file: Callable[[int], int] | None = None,
                 drawn: tuple[float, int] = (0.0, 0)):
        self.bounds, self.best, self.before, self.on_file = bounds, best, before, on_file
        self.drawn = drawn
        self.start = self.cpu = self.told = cpu  # the search's CPU seconds at the start (the
        # lookahead bounds' jobs ran before: no class's), now, and when last taken (``spent``)
        self.classes = self.told_classes = 0  # settled by this run
        self.waiting = self.running = 0
        self.left: dict | None = None
        self.told_at = time.monotonic()

    def update(self, best: int, waiting: int, running: int, cpu: float,
               settled: int = 1) -> str:
        """``settled`` classes were settled (0: the search stops); ``waiting``: the index of the
        first class not yet taken up (in the order of ``bounds``), ``running``: the classes taken
        up and not settled, ``cpu``: the CPU seconds of the search's finished jobs so far
        (RootSearch.spent). What the bar shows."""
        self.best, self.waiting, self.running, self.cpu = best, waiting, running, cpu
        self.classes += settled
        cpu_all, settled_all, runs = self.before
        cpu_all += cpu - self.start
        settled_all += self.classes
        drawn_cpu, drawn = self.drawn
        sampled = drawn >= self.drawn_least
        if not settled_all and not sampled:
            return ""
        below = range(waiting, bisect.bisect_left(self.bounds, best))
        classes = running + (len(below) if self.on_file is None else
                             sum(1 for index in below if self.on_file(index) < best))
        each = drawn_cpu / drawn if sampled else cpu_all / settled_all
        hours = classes * each / 3600
        self.left = {"classes": classes, "core_hours": round(hours, 2),
                     "seconds_per_class": round(each, 3)}
        self.left.update({"drawn": drawn} if sampled else {"classes_settled": settled_all,
                                                           "runs": runs})
        text = f"left {classes} class{'es' if classes != 1 else ''}, ~{hours:.1f} core-h"
        if self.classes >= self.own_after:
            mine = classes * (self.cpu - self.start) / self.classes / 3600
            if f"{mine:.1f}" != f"{hours:.1f}":
                text += f" (~{mine:.1f} core-h at this run's pace)"
        return text

    def own(self) -> dict | None:
        """This run's own pace, beside the estimate's mean over every run: the classes left
        are not like those settled before (the lowest bounds are taken first), and how the
        pace moves from run to run tells how far to trust the estimate. None before a class."""
        if not self.classes:
            return None
        return {"classes": self.classes,
                "seconds_per_class": round((self.cpu - self.start) / self.classes, 3)}

    def finish(self, cpu: float) -> None:
        """The search ends (stopped or done): what it spent since the last class counts too."""
        self.update(self.best, self.waiting, self.running, cpu, settled=0)

    def spent(self) -> tuple[float, int]:
        """(CPU seconds, classes settled) since the last call: for the checkpoint's record."""
        out = (self.cpu - self.told, self.classes - self.told_classes)
        self.told, self.told_classes, self.told_at = self.cpu, self.classes, time.monotonic()
        return out

    def due(self) -> bool:
        """Whether ``record_every`` seconds passed since the last record: a run killed outright
        (SIGKILL, power) writes nothing at its end, and a long class's CPU would be lost. Asked
        as each job ends, so that a class by parts keeps its finished jobs' CPU; a class
        searched whole in one job still loses its own (it counts only once ended)."""
        return time.monotonic() - self.told_at >= self.record_every


class Board:
    """What a least-cost root search shows beside its bar: the best cost in hand (``value``,
    None: no tree yet), the bound proven on the whole game (the least of the classes' bounds,
    ``proven``, from the one searched on, ``index``, and the cut-off ``best``) and the gap."""

    def __init__(self, bar, shown, proven: list[int], best: int = int(INF),
                 value: int | None = None):
        self.bar, self.shown, self.proven = bar, shown, proven
        self.best, self.value, self.index = best, value, 0
        self.estimate = ""  # what is left (Pace), once known
        self.detail = ""  # what the class searched now is doing, when it takes long
        self.text = ""

    def settle(self, lower: int, index: int | None = None) -> None:
        """Class ``index`` (the one searched now when None) is shown to cost at least
        ``lower``."""
        i = self.index if index is None else index
        self.proven[i] = max(self.proven[i], lower)
        bound = min(min(self.proven), self.best)
        if self.value is None:
            text = f"bound {self.shown(bound)}"
        else:
            gap = (self.value - bound) / bound if bound else 0.0
            text = f"best {self.shown(self.value)}, bound {self.shown(bound)}, gap {100 * gap:.2f}%"
        self.text = text
        self.note(self.detail)

    def note(self, detail: str) -> None:
        """Say what the class searched now is doing ("" when nothing worth saying)."""
        self.detail = detail
        extra = [x for x in (self.estimate, detail) if x]
        self.bar.set_postfix_str(", ".join([self.text] + extra))
