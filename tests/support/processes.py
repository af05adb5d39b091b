"""Child processes whose pids a test can name: a live one that is not this process, a gone one."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REAP_TIMEOUT_S = 30.0
"""How long to wait for a child to exit (a busy machine can take seconds to start Python)."""


@contextlib.contextmanager
def sleeper(seconds: float = 60.0, *, program: Path | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A live child process that sleeps `seconds` (s); killed and reaped when the block ends.
    It runs this Python (`time.sleep`), or `program` given `seconds` as its one argument (a copy of
    `sleep` under another name poses as that program)."""
    if program is None:
        command = [sys.executable, "-c", f"import time; time.sleep({seconds!r})"]
    else:
        command = [str(program), f"{seconds:g}"]
    process = subprocess.Popen(command)
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=REAP_TIMEOUT_S)


def reaped_pid() -> int:
    """The pid of a child process that has exited and been reaped: no process has it (until the
    OS reuses it, which on Linux takes a wrap of the pid space). Waits up to REAP_TIMEOUT_S;
    raises subprocess.TimeoutExpired after that."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=REAP_TIMEOUT_S)
    return child.pid
