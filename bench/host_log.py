"""What the native host's own log says about a bench's calls: port round trips and bench pings.

The native host logs (DEBUG) each request it sent the worker and got an answer for,

    … <pid> DEBUG native_host.provider.port.bridge: request h-12 current answered in 1.2 ms

timed from the request frame written to the reply routed: the browser's share of a call. With
`WEBCTX_BENCH_PINGS=N` it also times N pings per SIGUSR1 (native_host/provider/port/bench_ping.py).
A bench reads the log from an offset it noted before its calls, and keeps only the lines of the
host it measures (`pid`): one log file serves every native host of the temp HOME.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Collection
from pathlib import Path
from typing import Final

PORT_RTT_LINE: Final = re.compile(
    r" (\d+) DEBUG native_host\.provider\.bridge: request h-\d+ ([\w.]+) answered in ([\d.]+) ms"
)
"""The native host's log line for one request over the native port: pid, request type, ms."""

PING_LINE: Final = re.compile(
    r" (\d+) INFO native_host\.provider\.bench_ping: bench ping: \d+ round trips \(ms\): ([\d. ]+)\n"
)
"""One round of pings host ↔ worker (provider/port/bench_ping.py): pid, times in ms."""
PAGE_PING_LINE: Final = re.compile(
    r" (\d+) INFO native_host\.provider\.bench_ping: bench page ping: \d+ worker-page round trips"
    r" \(ms\): ([-\d. ]+)\n"
)
"""The same for worker → content script → worker round trips, timed in the worker (-1: no page)."""

PING_TIMEOUT_S: Final = 10.0


def end_offset(log: Path) -> int:
    """The log's size in bytes now (0 while it does not exist): the offset to read from later."""
    try:
        return log.stat().st_size
    except OSError:
        return 0


def read_from(log: Path, offset: int) -> tuple[str, int]:
    """The log's text after byte `offset`, and its size now (the next offset). After a rotation
    (the file is shorter than `offset`) the text is "": what was logged is in the old file."""
    try:
        with log.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            if end < offset:
                return "", end
            fh.seek(offset)
            data = fh.read(end - offset)
    except OSError:
        return "", offset
    return data.decode("utf-8", "replace"), end


def read_port_rtts(
    log: Path, offset: int, host_pid: int | None, types: Collection[str] = ("current",)
) -> tuple[list[float], int]:
    """The round trips (ms) of the `types` requests the native host `host_pid` (None: any) logged
    after `offset`, in order; and the next offset (see read_from)."""
    text, end = read_from(log, offset)
    rtts = [
        float(m.group(3))
        for m in PORT_RTT_LINE.finditer(text)
        if m.group(2) in types and (host_pid is None or int(m.group(1)) == host_pid)
    ]
    return rtts, end


async def ping_block(host_pid: int, log: Path) -> tuple[list[float], list[float]]:
    """Make the native host `host_pid` (started with WEBCTX_BENCH_PINGS) time its pings host ↔
    worker, then worker ↔ page (SIGUSR1, native_host/provider/port/bench_ping.py), and read them back
    from `log`; returns both lists in seconds, like other timed calls (page hops without a page
    left out). Raises TimeoutError after PING_TIMEOUT_S."""
    offset = end_offset(log)
    os.kill(host_pid, signal.SIGUSR1)
    async with asyncio.timeout(PING_TIMEOUT_S):
        while True:
            text, _ = read_from(log, offset)
            pings = [m for m in PING_LINE.finditer(text) if int(m.group(1)) == host_pid]
            pages = [m for m in PAGE_PING_LINE.finditer(text) if int(m.group(1)) == host_pid]
            if pings and pages:
                native = [float(v) / 1e3 for v in pings[0].group(2).split()]
                page = [float(v) / 1e3 for v in pages[0].group(2).split() if float(v) >= 0]
                return native, page
            await asyncio.sleep(0.01)
