"""Latency of the MCP tool `current`, end to end, next to the floor of the MCP stack itself.

What it measures
----------------
The reference desktop host (`native_host.host.open_session`: real HTTP on 127.0.0.1, the
real bearer token, each answer checked against the descriptor) calls `current` `--calls` times
(default 300), one call at a time, over one open session per provider and MCP era, after 20
warm-up calls; each call is timed on the client (`time.perf_counter` around
`ProviderSession.current()`). Three providers are measured side by side:

- **floor**: a bare provider, `native_host.provider.http.endpoint.McpEndpoint` (the same SDK, uvicorn and
  transport settings, `LoopbackGuard` and middleware) in a subprocess (bench/floor.py), whose
  requester answers `current` at once with a constant one-element tree. It is what any `current`
  costs before a browser is asked anything: HTTP + MCP + JSON + pydantic on both ends.
- **floor (same size)**: the same floor server, answering a constant `root` captured from the
  browser's own answer in that scenario just before the timed calls (same bytes, same shape: the
  instance string has the same length). It is what the MCP stack costs to carry *this* answer;
  the browser's row minus it is what webctx adds (native port, worker, native host).
- **N tab(s)**: Debian's Chromium (`--headless=new`, a throwaway `--user-data-dir` with developer
  mode seeded and the host manifest written by `native_host.install`, started as `webctx demo`
  starts it) with the real extension and the real native host, and N tabs of
  `tests/pages/index.html` served from 127.0.0.1; the first tab is the active one and an inline
  script selects a passage in it on load. On top of the floor this adds the native port (host →
  browser → service worker and back), the worker's work (windows and tabs, the `selection.get`
  pull from the active tab's content script, building the tree) and a bigger tree.

The floors' and the browser's calls alternate in blocks of 10 (`BLOCK_CALLS`), so that a change
in the machine's speed (other work on a small VM) hits all three alike and the ratios stay fair.
Eras: `mode="auto"` negotiates MCP 2026-07-28, `mode="legacy"` the 2025-11-25 handshake.

How to read it
--------------
Times are in milliseconds. `median` and `p99` (nearest rank: the 297th of 300 sorted calls) are
per row; `x floor` is the row's median over the median of the floor measured beside it in the
same era: the target is `x floor <= 2` (issues #3, #5: against the 142-byte floor, whatever the
answer's size). `x same` is the row's median over the same-size floor's: the part of the gap the
answer's size does not explain. `port RTT` is the median time the native host waited for the
worker's reply (its own log: request frame written → reply routed): the browser's share of a
call; "—" when the host logged no round trip (a host that answers from a pushed tree). The rest
of the gap to the floor is the host's and the client's extra work (the bigger tree, framing,
logging). `CPU` columns are CPU milliseconds per call of the client (this process), the
server process (native host or floor server) and all other browser processes; on a 2-vCPU machine
their sum is roughly the latency. `tree` is the size of the answer's JSON. The JSON line (the last
line; `--json` prints only it) has every figure, plus the load average before and after the run:
a load above the CPU count means other work competed with the measurement.

Nothing touches the real user's files: HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temp
folder, removed afterwards; only processes this script started are ended, by pid.

    .venv/bin/python bench/current_latency.py [--calls 300] [--tabs 1,50] [--json]

The pieces live in bench/floor.py (the floors), bench/browser.py (the browser, started and made
ready), bench/interleaved.py (the timed blocks and the rows) and bench/host_log.py (`port RTT`);
this script measures each tab count and prints the table. bench/profile_current.py reuses them to
profile the client and the floor server.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import host_log  # noqa: E402
from bench.against import run_main  # noqa: E402
from bench.browser import capture_root, launched_browser  # noqa: E402
from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.floor import floor_provider  # noqa: E402
from bench.interleaved import (  # noqa: E402
    BLOCK_CALLS,
    MODES,
    SAME_SIZE,
    WARMUP_CALLS,
    Row,
    Target,
    make_row,
    measure_interleaved,
)

if TYPE_CHECKING:
    from native_host.protocol.descriptor import Descriptor


def run_browser(
    browser: str, tabs: int, calls: int, warmup: int, floor: Descriptor, workdir: Path
) -> tuple[list[Row], list[Row], str]:
    """Measure both eras against `browser` with `tabs` tabs, interleaved with the floor and with a
    floor answering the browser's own tree (captured once it is ready); the rows (floor, browser;
    per era), the same-size floor's rows, and the browser's version."""
    rows: list[Row] = []
    same_rows: list[Row] = []
    label = f"{tabs} tab" + ("s" if tabs != 1 else "")
    with launched_browser(browser, tabs, workdir) as running:
        descriptor = running.descriptor
        tree_file = workdir / f"tree-{tabs}.json"
        capture_root(descriptor, tree_file)
        with floor_provider(tree_file) as same_floor:
            for mode in MODES:
                offset = host_log.end_offset(running.host_log)
                bare, same, real = Target(floor), Target(same_floor), Target(descriptor, running.pid)
                measure_interleaved([bare, same, real], mode, calls, warmup)
                rtts, _ = host_log.read_port_rtts(running.host_log, offset, descriptor.listener_pid)
                rtts = rtts[-calls:]  # the warm-up calls come first
                rows.append(make_row("floor", tabs, mode, bare, None, []))
                rows.append(make_row(label, tabs, mode, real, bare, rtts, same))
                same_rows.append(make_row(SAME_SIZE, tabs, mode, same, bare, []))
    return rows, same_rows, descriptor.version


def ordered(rows: list[Row], same_rows: list[Row]) -> list[Row]:
    """`rows` with each era's same-size floor row put after its 142-byte floor row."""
    same = {(r.tabs, r.mode): r for r in same_rows}
    out: list[Row] = []
    for r in rows:
        out.append(r)
        if r.scenario == "floor" and (r.tabs, r.mode) in same:
            out.append(same[(r.tabs, r.mode)])
    return out


def table(rows: list[Row], same_rows: list[Row], calls: int, warmup: int) -> str:
    """The human-readable table: per tab count and era, the floor, the same-size floor and the
    browser. Floors leave `port RTT` blank; a browser row without logged round trips shows "—"."""
    head = (
        f"`current` through host_client (real HTTP, one session per row): {calls} sequential calls "
        f"after {warmup} warm-up,\nfloors and browser interleaved in blocks of {BLOCK_CALLS}; "
        "times in ms, CPU in ms per call;\nx floor: over the 142-byte floor (the target), "
        "x same: over the floor answering the same tree"
    )
    cols = (
        f"{'scenario':<17} {'era':<10} {'median':>7} {'p99':>7} {'x floor':>7} {'x same':>6} "
        f"{'port RTT':>8} {'tree':>7}  {'CPU client':>10} {'server':>6} {'browser':>7}"
    )
    rule = "-" * len(cols)
    lines = [head, cols]
    for i, r in enumerate(ordered(rows, same_rows)):
        if i == 0 or (r.scenario == "floor" and r.mode == MODES[0]):
            lines.append(rule)
        ratio = f"{r.ratio:.2f}" if r.ratio is not None else ""
        same = f"{r.ratio_same_size:.2f}" if r.ratio_same_size is not None else ""
        is_floor = r.browser_cpu_ms is None
        rtt = "" if is_floor else "—" if r.port_rtt_median_ms is None else f"{r.port_rtt_median_ms:.2f}"
        browser = f"{r.browser_cpu_ms:.2f}" if r.browser_cpu_ms is not None else ""
        lines.append(
            f"{r.scenario:<17} {r.era:<10} {r.median_ms:>7.2f} {r.p99_ms:>7.2f} {ratio:>7} {same:>6} "
            f"{rtt:>8} {r.tree_bytes:>6}B  {r.client_cpu_ms:>10.2f} {r.server_cpu_ms:>6.2f} {browser:>7}"
        )
    return "\n".join(lines)


def parse_tabs(text: str) -> list[int]:
    """`--tabs`: "1,50" → [1, 50]. Raises argparse.ArgumentTypeError unless it is counts ≥ 1."""
    try:
        tabs = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tabs takes numbers separated by commas, not {text!r}") from None
    if not tabs or any(t < 1 for t in tabs):
        raise argparse.ArgumentTypeError("--tabs needs one or more counts of at least 1")
    return tabs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Median and p99 of `current` through the reference client, against a real "
        "browser and against a bare MCP endpoint (the floor), in both MCP eras.",
    )
    parser.add_argument("--calls", type=int, default=300, help="timed calls per scenario and era (300)")
    parser.add_argument("--tabs", type=parse_tabs, default=[1, 50], help="tab counts, e.g. 1,50 (default)")
    parser.add_argument("--warmup", type=int, default=WARMUP_CALLS, help=f"warm-up calls ({WARMUP_CALLS})")
    parser.add_argument("--browser", help="browser executable (default: as `webctx demo` finds it)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error("--calls must be at least 1")

    load_before = load_average()
    if load_before[0] > (os.cpu_count() or 1):
        progress(f"load average {load_before[0]:.1f} on {os.cpu_count()} CPUs: other work will add noise")
    workdir = Path(tempfile.mkdtemp(prefix="webctx-bench-"))
    try:
        isolate(workdir)
        from native_host.demo.browsers import find_browser

        browser = args.browser or find_browser()
        rows: list[Row] = []
        same_rows: list[Row] = []
        version = "unknown"
        progress("floor: a bare McpEndpoint with a constant requester, in a subprocess")
        with floor_provider() as floor:
            for tabs in args.tabs:
                progress(f"starting {browser} with {tabs} tab(s)")
                browser_rows, same_size_rows, version = run_browser(
                    browser, tabs, args.calls, args.warmup, floor, workdir
                )
                rows.extend(browser_rows)
                same_rows.extend(same_size_rows)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    browser_rows = [r for r in rows if r.scenario != "floor"]
    worst = max((r.ratio or 0.0 for r in browser_rows), default=0.0)
    worst_same = max((r.ratio_same_size or 0.0 for r in browser_rows), default=0.0)
    summary = {
        "bench": "current_latency",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_before": load_before,
            "loadavg_after": load_average(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "browser": f"{Path(browser).name} {version}",
        },
        "calls": args.calls,
        "warmup": args.warmup,
        "target": "median current <= 2x floor median, per era",
        "target_met": worst <= 2.0,
        "worst_ratio": worst,
        "rows": [asdict(r) for r in rows],
        "worst_ratio_same_size": worst_same,
        "floor_same_size_rows": [asdict(r) for r in same_rows],
    }
    out: IO[str] = sys.stdout
    if not args.json:
        print(table(rows, same_rows, args.calls, args.warmup), file=out)
        verdict = "met" if summary["target_met"] else "NOT met"
        print(
            f"target median <= 2x floor: {verdict} (worst {worst:.2f}x; "
            f"against the same-size floor, worst {worst_same:.2f}x)",
            file=out,
        )
    print(json.dumps(summary, separators=(",", ":")), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, __file__))
