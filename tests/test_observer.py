"""What a run shows: progress bars redrawn in place on a terminal, and in a log (standard error
a file or a pipe, as a run under nohup) whole lines, few of them, ending with the bar's last
state."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

from tqdm import tqdm

from optimizer.search.observer import LOG_SECONDS, LoggedBar, Observer

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_in_a_log_writes_a_line_at_most_every_log_seconds(monkeypatch):
    """A note on every step (as a split part's guesses give) and a step every second: a line at
    the start, one every LOG_SECONDS, and the last state as it closes, with no carriage return."""
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    bar = Observer().bar(total=200, desc="total: root parts", unit="part")
    assert isinstance(bar, LoggedBar)
    clock = [time.time()]
    bar._time = lambda: clock[0]
    for step in range(200):
        clock[0] += 1.0
        bar.set_postfix_str(f"note {step}")
        bar.update(1)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert 200 // LOG_SECONDS + 1 <= len(lines) <= 200 // LOG_SECONDS + 3, lines
    assert "200/200" in lines[-1] and "note 199" in lines[-1]
    assert all(line.startswith("total: root parts:") for line in lines)


def test_two_bars_in_a_log_write_no_cursor_moves(monkeypatch):
    """tqdm places a second open bar on the next row by an escape sequence: not in a log."""
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    outer = Observer().bar(total=2, desc="outer")
    inner = Observer().bar(total=3, desc="inner")
    inner.update(3)
    inner.close()
    outer.update(2)
    outer.close()
    text = log.getvalue()
    assert "\x1b" not in text and "\r" not in text
    assert text.splitlines()[-1].startswith("outer: 100%")


def test_a_bar_in_a_log_that_counts_nothing_writes_nothing(monkeypatch):
    """A total not yet known (height's classes), or none at all (a game of one code): no
    "0class" line; once it is known the bar's lines follow."""
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    empty = Observer().bar(desc="height", unit="class", total=0)
    empty.close()
    assert log.getvalue() == ""
    bar = Observer().bar(desc="height", unit="class")
    bar.total = 3
    bar.update(3)
    bar.close()
    assert log.getvalue().splitlines() == [line for line in log.getvalue().splitlines()
                                           if "3/3" in line] != []

    log.truncate(0)
    noted = Observer().bar(desc="total: lookahead", unit="job")  # no total: a note says it
    noted.set_postfix_str("bound 22631, best 22856")
    noted.close()
    assert "bound 22631, best 22856" in log.getvalue()


def test_a_bar_on_a_terminal_is_tqdm_s_own_and_a_quiet_one_writes_nothing(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    bar = Observer().bar(total=3)
    assert type(bar) is tqdm
    bar.close()
    assert "\r" in screen.getvalue()
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    bar = Observer(quiet=True).bar(total=3)
    bar.update(3)
    bar.close()
    assert quiet.getvalue() == ""


def test_a_build_logged_to_a_file_writes_whole_lines(tmp_path):
    """The command as a user runs it in the background, standard error to a file."""
    err = tmp_path / "err.log"
    with err.open("w") as stream:
        subprocess.run([sys.executable, "-m", "optimizer", "build", "mastermind:3x4",
                        "--objective", "total", "--workers", "1", "-o", str(tmp_path / "t.json")],
                       cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stream, check=True,
                       timeout=120)
    text = err.read_bytes().decode()  # read_text would turn carriage returns into newlines
    assert "\r" not in text
    assert any("18/18" in line for line in text.splitlines()), text
