"""Pool workers that die with the process that started them.

A `brain index` killed with SIGKILL runs no cleanup, and its parse workers, blocked reading
their next task, lived on, each holding its memory. Each worker therefore asks
the kernel to kill it when its parent dies (Linux `PR_SET_PDEATHSIG`) and, wherever that is not
to be had, watches its parent from a thread and exits when it is gone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """A pool initializer: end this worker when process `parent` ends (see the module doc)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request above took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="brain-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)
