"""What a least-cost root search shows and projects as it goes: the board beside its progress
bar (best cost in hand, the bound proven, the gap) and the honest estimate of the work left."""

from __future__ import annotations

import bisect

from ..kernels.bundles import INF


class Pace:
    """An honest estimate of what a least-cost root search has left: the classes whose bound is
    still below the best cost in hand and that are not settled, times the mean CPU time of the
    jobs of a class settled so far by this run (core-hours of search: a machine shared with
    other work, which stretches wall time, leaves it nearly as it is; 80 to 193 wall seconds a
    Battleship class on 2 cores were measured that way). A class that took part facts from a
    checkpoint was partly searched by an earlier run: its time counts only while no class was
    searched whole. Updated as each class is settled; None until one is."""

    def __init__(self, bounds: list[int], cpu: float = 0.0):
        self.bounds = bounds
        self.cpu = cpu  # the search's CPU seconds at the last update (at the start: the
        # lookahead bounds' jobs, which are no class's)
        self.seconds = {True: 0.0, False: 0.0}  # by whether the class was searched whole
        self.count = {True: 0, False: 0}
        self.left: dict | None = None

    def update(self, best: int, waiting: int, running: int, cpu: float,
               whole: bool = True) -> str:
        """A class was settled; ``waiting``: the index of the first class not yet taken up (in
        the order of ``bounds``), ``running``: the classes taken up and not settled, ``cpu``:
        the CPU seconds of the search's finished jobs so far (RootSearch.cpu)."""
        self.seconds[whole] += cpu - self.cpu
        self.count[whole] += 1
        self.cpu = cpu
        kind = bool(self.count[True])  # the classes searched whole, once there are any
        classes = max(0, bisect.bisect_left(self.bounds, best) - waiting) + running
        each = self.seconds[kind] / self.count[kind]
        hours = classes * each / 3600
        self.left = {"classes": classes, "core_hours": round(hours, 2),
                     "seconds_per_class": round(each, 3)}
        return f"left {classes} classes, ~{hours:.1f} core-h"


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
