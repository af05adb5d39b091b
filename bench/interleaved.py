"""`current` timed on several providers side by side, in alternating blocks, with CPU per call.

The floors' and the browser's calls alternate in blocks of BLOCK_CALLS, so that a change in the
machine's speed (other work on a small VM) hits every provider alike and the ratios stay fair.
Each call is timed on the client (`time.perf_counter` around `ProviderSession.current()`); CPU
time is read per block for the client (this process), the provider's server process (native
host or floor server) and the browser's other processes. bench/current_latency.py prints the
rows; bench/profile_current.py runs the same loop with profilers on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, cast

import psutil

from bench.browser import CALL_TIMEOUT_S
from bench.stats import Summary, ratio

if TYPE_CHECKING:
    import cProfile

    from native_host.host import ConnectMode
    from native_host.protocol.descriptor import Descriptor

WARMUP_CALLS: Final = 20
BLOCK_CALLS: Final = 10
"""Timed calls go floor, browser, floor, browser… in blocks of this many."""
MODES: Final = ("auto", "legacy")
"""The MCP eras: `auto` negotiates 2026-07-28, `legacy` the 2025-11-25 handshake."""
SAME_SIZE: Final = "floor (same size)"
"""The scenario name of the floor that answers the browser's own tree."""


class CpuMeter:
    """CPU time (user + system) over the timed calls, summed across blocks, for three process
    groups: this client, the provider's server process (`server_pid`: the native host or the
    floor server) and the browser's other processes (`browser_pid` and its descendants)."""

    def __init__(self, server_pid: int | None, browser_pid: int | None = None) -> None:
        self._server_pid = server_pid
        self._browser_pid = browser_pid
        self._start = (0.0, 0.0, 0.0)
        self.used = (0.0, 0.0, 0.0)
        """Seconds of CPU: (client, server, browser)."""

    def _read_others(self) -> tuple[float, float]:
        def cpu(proc: psutil.Process) -> float:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                return times.user + times.system
            return 0.0

        server = cpu(psutil.Process(self._server_pid)) if self._server_pid else 0.0
        browser = 0.0
        if self._browser_pid:
            with contextlib.suppress(psutil.Error):
                main = psutil.Process(self._browser_pid)
                procs = [main, *main.children(recursive=True)]
                browser = sum(cpu(p) for p in procs if p.pid != self._server_pid)
        return server, browser

    def start(self) -> None:
        """Start a block (this process's clock is read last, so the reading is not counted)."""
        server, browser = self._read_others()
        self._start = (time.process_time(), server, browser)

    def stop(self) -> None:
        """End a block: add its CPU time to `used` (this process's clock is read first)."""
        client = time.process_time()
        end = (client, *self._read_others())
        self.used = (
            self.used[0] + end[0] - self._start[0],
            self.used[1] + end[1] - self._start[1],
            self.used[2] + end[2] - self._start[2],
        )


@dataclass
class Target:
    """One provider to measure: its descriptor, the browser's pid (None for the floor), and what
    the timed calls gave (`seconds`: one duration per call; `tree_bytes`: the answer's JSON size)."""

    descriptor: Descriptor
    browser_pid: int | None = None
    era: str = ""
    seconds: list[float] = field(default_factory=list)
    tree_bytes: int = 0
    meter: CpuMeter | None = None


async def _measure_interleaved(
    targets: list[Target],
    mode: ConnectMode,
    calls: int,
    warmup: int,
    profilers: Sequence[cProfile.Profile | None] = (),
    after_warmup: Callable[[], None] | None = None,
) -> None:
    from native_host.host import open_session

    profiles = list(profilers) or [None] * len(targets)

    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for target in targets:
            session = await stack.enter_async_context(
                open_session(target.descriptor, mode=mode, timeout_s=CALL_TIMEOUT_S)
            )
            target.era = session.protocol_version
            target.meter = CpuMeter(target.descriptor.listener_pid, target.browser_pid)
            sessions.append(session)
        for session in sessions:
            for _ in range(warmup):
                await session.current()
        if after_warmup is not None:
            after_warmup()
        clock = time.perf_counter
        done = 0
        while done < calls:
            count = min(BLOCK_CALLS, calls - done)
            for target, session, profile in zip(targets, sessions, profiles, strict=True):
                assert target.meter is not None
                target.meter.start()
                if profile is not None:
                    profile.enable()
                for _ in range(count):
                    started = clock()
                    result = await session.current()
                    target.seconds.append(clock() - started)
                if profile is not None:
                    profile.disable()
                target.meter.stop()
                target.tree_bytes = len(
                    json.dumps(result.raw, ensure_ascii=False, separators=(",", ":")).encode()
                )
            done += count


def measure_interleaved(
    targets: list[Target],
    mode: str,
    calls: int,
    warmup: int,
    profilers: Sequence[cProfile.Profile | None] = (),
    after_warmup: Callable[[], None] | None = None,
) -> None:
    """Open one session per target in `mode` (all at once), warm each up with `warmup` calls, then
    time `calls` sequential `current` calls per target in alternating blocks of BLOCK_CALLS, so
    a drift in the machine's speed hits every target alike. Results go into the targets.
    `profilers` (bench/profile_current.py): one per target, or None, enabled around that target's
    timed blocks only; `after_warmup` is called once, between the warm-up and the timed calls."""
    mode_ = cast("ConnectMode", mode)
    asyncio.run(_measure_interleaved(targets, mode_, calls, warmup, profilers, after_warmup))


@dataclass(frozen=True)
class Row:
    """One scenario and era: client-side latencies of `current`, in milliseconds."""

    scenario: str
    tabs: int
    mode: str
    era: str
    calls: int
    median_ms: float
    p99_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float
    ratio: float | None
    port_rtt_median_ms: float | None
    port_rtt_p99_ms: float | None
    tree_bytes: int
    client_cpu_ms: float
    """CPU time per call of this process (the reference client), in ms."""
    server_cpu_ms: float
    """CPU time per call of the provider's server process (native host, or the floor server)."""
    browser_cpu_ms: float | None
    """CPU time per call of every browser process, the native host excluded."""
    ratio_same_size: float | None = None
    """Browser rows: median over the median of the same-size floor measured beside it."""
    over_floor_ms: float | None = None
    """median minus the 142-byte floor's median, in ms (same-size floor: the answer size's cost)."""
    over_same_size_ms: float | None = None
    """Browser rows: median minus the same-size floor's median, in ms: what webctx adds."""


def make_row(
    scenario: str,
    tabs: int,
    mode: str,
    target: Target,
    floor: Target | None,
    rtts: list[float],
    same_size: Target | None = None,
) -> Row:
    """Summarize one target's timed calls (`floor`: the 142-byte floor measured beside it, for
    `ratio`; `same_size`: the same-size floor measured beside it, for `ratio_same_size`; `rtts`:
    the native host's port round trips in ms, bench/host_log.py)."""
    timed = Summary.of_seconds(target.seconds)
    floor_median = Summary.of_seconds(floor.seconds).median if floor is not None else None
    same_median = Summary.of_seconds(same_size.seconds).median if same_size is not None else None
    rtt = Summary.of_ms(rtts) if rtts else None
    used = target.meter.used if target.meter is not None else (0.0, 0.0, 0.0)
    return Row(
        scenario=scenario,
        tabs=tabs,
        mode=mode,
        era=target.era,
        calls=timed.n,
        median_ms=round(timed.median, 3),
        p99_ms=round(timed.p99, 3),
        mean_ms=round(timed.mean, 3),
        min_ms=round(timed.min, 3),
        max_ms=round(timed.max, 3),
        ratio=ratio(timed.median, floor_median),
        port_rtt_median_ms=round(rtt.median, 3) if rtt else None,
        port_rtt_p99_ms=round(rtt.p99, 3) if rtt else None,
        tree_bytes=target.tree_bytes,
        client_cpu_ms=round(used[0] * 1e3 / timed.n, 3),
        server_cpu_ms=round(used[1] * 1e3 / timed.n, 3),
        browser_cpu_ms=round(used[2] * 1e3 / timed.n, 3) if target.browser_pid else None,
        ratio_same_size=ratio(timed.median, same_median),
        over_floor_ms=round(timed.median - floor_median, 3) if floor_median else None,
        over_same_size_ms=round(timed.median - same_median, 3) if same_median else None,
    )
