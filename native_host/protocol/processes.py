"""Is a process alive? One answer for every side that reads a descriptor (design.md §3, §7).

A zombie counts as dead: it has exited, and only its parent has not collected its status yet. On
a machine whose init does not reap promptly (a container whose PID 1 is not an init), a killed
native host stays a zombie indefinitely; treating it as alive would keep its stale descriptor
forever. The provider's stale-descriptor cleanup, `webctx doctor`, the reference host and the
conformance kit all ask `process_alive`.
"""

from __future__ import annotations

import psutil


def process_alive(pid: int, *, started_before: float | None = None) -> bool:
    """True when process `pid` runs and is not a zombie.

    `started_before` (seconds since the epoch, e.g. a descriptor's mtime): a process that started
    more than 1 s after it is a reused pid, so not the one meant, and counts as gone. A process
    that exists but cannot be inspected (another user's, access denied) counts as alive: the
    caller must not delete what it cannot judge. Never raises.
    """
    if pid <= 0:
        return False
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        if started_before is not None and process.create_time() > started_before + 1.0:
            return False
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True
    return True
