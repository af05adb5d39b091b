"""Soak: `current` every 50 ms with a navigation every second, for minutes; is the native host flat?

What it measures
----------------
A headless Chromium with the real extension and native host (started as
`bench/current_latency.py` starts it, bench/browser.py: fresh profile, host manifest, 3 tabs of
tests/pages, the first one holding a selection). For `--minutes` (default 10) the reference
desktop host calls `current` every `--interval-ms` (default 50) over one 2026-07-28 session, and
every second the active tab navigates (DevTools `Page.navigate` over the browser's loopback DevTools socket,
alternating tests/pages/index.html and other.html). Every `--sample-s` seconds (default 10) the
native host's RSS (MiB) and open file descriptors are sampled.

Reported: calls made, failures, latency p50/p99 (ms), and RSS and fd count at the first sample
after the warm-up (`--warmup-s`, default 30) against the last one. Targets (issue "One provider per
browser", Load): RSS growth < 10 %, no fd growth. This is a benchmark, not a CI test.

    .venv/bin/python bench/soak.py [--minutes 10] [--interval-ms 50] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import psutil
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.against import run_main
from bench.browser import LaunchedBrowser, devtools, launched_browser, page_server
from bench.environment import isolate, progress
from bench.stats import Summary

TABS: Final = 3


async def navigate_forever(port: int, base: str, stop: asyncio.Event) -> int:
    """Navigate the active tab every second until `stop`; return the number of navigations."""
    targets = devtools(port, "GET", "/json/list")
    page = next(t for t in targets if t.get("type") == "page" and "?select" in str(t.get("url")))
    count = 0
    async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None) as socket:
        for n, name in enumerate(itertools.cycle(("other.html", "index.html?select"))):
            if stop.is_set():
                break
            navigate = {"id": n + 1, "method": "Page.navigate", "params": {"url": f"{base}/{name}"}}
            await socket.send(json.dumps(navigate))
            while json.loads(await socket.recv()).get("id") != n + 1:
                pass
            count += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
    return count


async def soak(args: argparse.Namespace, running: LaunchedBrowser, base: str) -> dict[str, Any]:
    """Call `current` every `--interval-ms` for `--minutes` while the active tab navigates every
    second; sample the native host's RSS and fds every `--sample-s`; return the JSON report."""
    from native_host.host import open_session

    assert running.descriptor.listener_pid is not None
    host = psutil.Process(running.descriptor.listener_pid)
    samples: list[tuple[float, float, int]] = []
    latencies: list[float] = []
    failures = 0
    stop = asyncio.Event()
    navigator = asyncio.create_task(navigate_forever(running.devtools_port, base, stop))
    started = time.monotonic()
    end = started + args.minutes * 60
    next_sample = started
    async with open_session(running.descriptor, timeout_s=10) as session:
        while time.monotonic() < end:
            t0 = time.perf_counter()
            try:
                await session.current()
                latencies.append((time.perf_counter() - t0) * 1e3)
            except Exception as exc:
                failures += 1
                progress(f"call failed: {type(exc).__name__}: {exc}")
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - started, host.memory_info().rss / (1 << 20), host.num_fds()))
                next_sample = now + args.sample_s
                if not args.json:
                    progress(f"t={samples[-1][0]:.0f} s rss {samples[-1][1]:.1f} MiB fds {samples[-1][2]}")
            await asyncio.sleep(max(0.0, args.interval_ms / 1e3 - (time.perf_counter() - t0)))
    stop.set()
    navigations = await navigator
    after_warmup = [s for s in samples if s[0] >= args.warmup_s] or samples
    first, last = after_warmup[0], samples[-1]
    timed = Summary.of_ms(latencies)
    return {
        "minutes": args.minutes,
        "calls": len(latencies),
        "failures": failures,
        "navigations": navigations,
        "p50_ms": timed.median,
        "p99_ms": timed.p99,
        "rss_first_mib": first[1],
        "rss_last_mib": last[1],
        "rss_max_mib": max(s[1] for s in after_warmup),
        "rss_growth_percent": (last[1] - first[1]) / first[1] * 100,
        "fds_first": first[2],
        "fds_last": last[2],
        "samples": samples,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--interval-ms", type=float, default=50.0)
    parser.add_argument("--sample-s", type=float, default=10.0)
    parser.add_argument("--warmup-s", type=float, default=30.0)
    parser.add_argument("--browser", default=None, help="browser executable (default: as `webctx demo`)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webctx-soak-") as temp:
        root = Path(temp)
        isolate(root)
        from native_host.demo.browsers import find_browser

        browser = args.browser or find_browser()
        with page_server() as base, launched_browser(browser, TABS, root) as running:
            result = asyncio.run(soak(args, running, base))
    if not args.json:
        print(
            f"{result['calls']} calls in {result['minutes']:g} min, {result['failures']} failed, "
            f"{result['navigations']} navigations; "
            f"p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms\n"
            f"RSS {result['rss_first_mib']:.1f} → {result['rss_last_mib']:.1f} MiB "
            f"({result['rss_growth_percent']:+.1f} %, target < 10 %); "
            f"fds {result['fds_first']} → {result['fds_last']}"
        )
    print(json.dumps(result))
    flat = result["rss_growth_percent"] < 10 and result["fds_last"] <= result["fds_first"]
    ok = result["failures"] == 0 and flat
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(run_main(main, __file__))
