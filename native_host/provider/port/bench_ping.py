"""Bench-only: time native-messaging round trips that do no work in the worker
(docs/internals/protocol.md `ping`).

Off unless the environment sets `WEBCTX_BENCH_PINGS` to a positive count N (bench/pointing_bench.py
sets it for the browser it launches, which passes it on to the native host). Then each SIGUSR1
makes the host send N sequential `ping` requests over the native port, then N `ping {page: true}`,
and log two INFO lines:

    bench ping: N round trips (ms): 0.412 0.398 …
    bench page ping: N worker-page round trips (ms): 0.300 0.200 …

A `bench ping` figure is the wall time from handing `{"type":"ping","id":…}` to the frame writer
to the worker's `result {}` being routed back (`Bridge.request`), in ms with µs resolution. A
`bench page ping` figure is the worker's own `performance.now()` time for one page-channel round
trip to the active tab's top document (`result {pageMs}`; `-1` when no tab shows a web page).
Nothing else is logged: no page content, no token. POSIX only (no SIGUSR1 on Windows: the hook stays off).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time

from native_host.protocol.native import PingRequest
from native_host.provider.port.bridge import Bridge

log = logging.getLogger(__name__)

BENCH_PINGS_ENV = "WEBCTX_BENCH_PINGS"
"""The environment variable that turns the hook on: how many pings per SIGUSR1."""


def pings_per_round() -> int:
    """N from `WEBCTX_BENCH_PINGS`, or 0 (hook off) when unset, not an integer, or < 1."""
    try:
        return max(0, int(os.environ.get(BENCH_PINGS_ENV, "")))
    except ValueError:
        return 0


async def ping_round(bridge: Bridge, count: int) -> list[float]:
    """Send `count` sequential pings; return their round trips in ms. Raises what
    `Bridge.request` raises (DeadlineExceeded, ExtensionError, ProviderUnavailable)."""
    times: list[float] = []
    for _ in range(count):
        start = time.perf_counter()
        await bridge.request(PingRequest())
        times.append((time.perf_counter() - start) * 1e3)
    return times


async def page_ping_round(bridge: Bridge, count: int) -> list[float]:
    """Send `count` sequential `ping {page: true}`; return the worker's page-channel round trips in
    ms (-1 where it had no page to ask). Raises what `Bridge.request` raises."""
    times: list[float] = []
    for _ in range(count):
        result = await bridge.request(PingRequest(page=True))
        page_ms = result.get("pageMs") if isinstance(result, dict) else None
        times.append(float(page_ms) if isinstance(page_ms, int | float) else -1.0)
    return times


def install(bridge: Bridge, tasks: set[asyncio.Task[None]]) -> bool:
    """Install the SIGUSR1 handler on the running loop if the hook is on; return whether it was.
    Round tasks are kept in `tasks` until they finish (so they are not garbage-collected)."""
    count = pings_per_round()
    usr1 = getattr(signal, "SIGUSR1", None)
    if count == 0 or usr1 is None:
        return False

    async def one_round() -> None:
        try:
            times = await ping_round(bridge, count)
            log.info("bench ping: %d round trips (ms): %s", len(times), " ".join(f"{t:.3f}" for t in times))
            page = await page_ping_round(bridge, count)
            figures = " ".join(f"{t:.3f}" for t in page)
            log.info("bench page ping: %d worker-page round trips (ms): %s", len(page), figures)
        except Exception as exc:  # a bench hook: report and keep serving
            log.warning("bench ping round failed: %s", type(exc).__name__)

    def start_round() -> None:
        task = asyncio.get_running_loop().create_task(one_round(), name="bench-ping")
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    asyncio.get_running_loop().add_signal_handler(usr1, start_round)
    log.info("bench ping hook on: %d pings per SIGUSR1", count)
    return True
