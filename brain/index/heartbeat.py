"""The watcher's heartbeat: proof, for other processes, that it is alive *and* current.

Holding `watch.lock` only says a watcher process exists. A watcher suspended with Ctrl-Z holds
it for as long as it stays stopped, and one busy embedding 600 new notes holds it while saves
wait behind the batch; readers that trusted the lock answered "no note named" for a note saved
in an editor, for minutes. So the watcher writes `watch.beat` every BEAT_SECONDS from a thread
of its own: when it wrote, and whether every event it had seen by then was applied (idle). A
reader trusts the catalog only while the last beat is recent (a suspended watcher stops beating)
and says idle (a busy one does not); otherwise it checks freshness itself, as without a watcher.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from brain.vault.atomic import replace_file

BEAT_FILE = "watch.beat"
BEAT_SECONDS = 0.25
STALE_SECONDS = 2.0  # a beat older than this is from a watcher that is not running (suspended, hung)


@dataclass(frozen=True)
class Beat:
    pid: int
    time: float  # wall clock, when written
    idle: bool  # no event waiting, no batch running: every change seen so far is in the catalog
    applied: float  # wall clock of the last batch applied (0: none yet)


def write_beat(index_dir: Path, beat: Beat) -> None:
    """Replace the beat file atomically (a reader sees the old beat or the new one)."""
    path = index_dir / BEAT_FILE
    replace_file(path, json.dumps(beat.__dict__))


def read_beat(index_dir: Path) -> Beat | None:
    try:
        data = json.loads((index_dir / BEAT_FILE).read_text(encoding="utf-8"))
        return Beat(int(data["pid"]), float(data["time"]), bool(data["idle"]), float(data["applied"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def current(index_dir: Path, now: float | None = None) -> bool:
    """Whether a watcher's last beat is recent and says it has applied everything it saw."""
    beat = read_beat(index_dir)
    if beat is None:
        return False
    age = (time.time() if now is None else now) - beat.time
    return beat.idle and -STALE_SECONDS < age <= STALE_SECONDS


def clear_beat(index_dir: Path) -> None:
    (index_dir / BEAT_FILE).unlink(missing_ok=True)
