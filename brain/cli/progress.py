"""Progress bars for long work on a terminal: a bar, the count, the rate and the time left.

    embedding [#########---------------]  1,234/3,200 chunks  41.2/s  0:48 left

One line per stage, redrawn in place on standard error at most every `REDRAW` seconds (and at the
last step), ended with a newline when the stage is done or the command stops. `progress_line` is
the pure part: the line for a count and the seconds since the stage began.
"""

from __future__ import annotations

import time
from typing import TextIO

WIDTH = 24
REDRAW = 0.2
RATED = 1.0  # seconds into a stage before its rate and time left are shown


def clock(seconds: float) -> str:
    """1:05, 12:00, 1:02:03."""
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_line(label: str, done: int, total: int, seconds: float, unit: str = "") -> str:
    """The bar's line: how far, how fast (per second since the stage began) and how long is left
    (at that rate), from a second into the stage; when done, how long it took."""
    total = max(total, 0)
    share = min(done / total, 1.0) if total else 1.0
    filled = int(share * WIDTH)
    count = f"{done:,}/{total:,}" + (f" {unit}" if unit else "")
    line = f"{label:9} [{'#' * filled}{'-' * (WIDTH - filled)}] {count}"
    if done >= total and seconds < RATED:
        return line + f"  in {clock(seconds)}"
    if seconds < RATED or done <= 0:  # too soon to tell a rate
        return line
    rate = done / seconds
    line += f"  {rate:,.1f}/s"
    if done >= total:
        return line + f"  in {clock(seconds)}"
    return line + f"  {clock((total - done) / rate)} left"


class Bar:
    """One stage's line on `stream`, redrawn as the count moves."""

    def __init__(self, stream: TextIO, label: str, unit: str = "") -> None:
        self.stream, self.label, self.unit = stream, label, unit
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.last = ""
        self.closed = False

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.drawn_at < REDRAW:
            return
        self.drawn_at = now
        line = progress_line(self.label, done, total, now - self.started, self.unit)
        self.stream.write("\r" + line + " " * max(len(self.last) - len(line), 0))
        self.stream.flush()
        self.last = line
        if done >= total:
            self.close()

    def close(self) -> None:
        if not self.closed and self.last:
            self.stream.write("\n")
            self.stream.flush()
        self.closed = True
