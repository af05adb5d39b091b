"""What a huge page pays for webctx at load: DOMContentLoaded and load, next to no extension.

What it measures
----------------
A page of `--elements` elements (default 200,000), each with an id, nested in chains of
`--depth` (default 100: `<div id="c7-0"><div id="c7-1">…`, a short text at the bottom of each
chain), served from 127.0.0.1, is loaded in three Chromiums started alike (bench/browser.py's
flags, headless, fresh profiles) and running side by side:

- **webctx**: the real extension with its native host, started as bench/current_latency.py starts
  it (`launched_browser`: the provider is up and the browser idle before anything is timed);
- **control**: an extension with a manifest and nothing else (no content scripts, no worker): what
  any loaded extension costs a page in this browser;
- **none**: no extension (`--disable-extensions`).

Playwright connects over CDP to each (the same for all three) and opens one tab in each. Loads are
interleaved: each round loads the page once in every browser, the order rotating from round to
round, after one warm-up round that is not counted; `--loads` rounds (default 7). Each load has a
query string of its own (no cache). The figures are the page's own Navigation Timing:
`domContentLoadedEventStart` and `loadEventStart`, ms from navigation start. Reported: median and
p99 (bench/stats.py; with 7 loads the p99 is the slowest) per browser, and the ratios of the
medians. Beside them, **CPU per load**: the CPU time all of a browser's processes used from just
before the navigation to the load event (psutil), which a busy machine does not inflate the way it
inflates wall-clock times. Targets: **webctx DOMContentLoaded <= 1.10 x none**,
and **webctx load <= 1.10 x control** (on such a page any extension delays load by itself).

HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script
started are ended, by pid. Needs the test extras (`./scripts/setup.sh --with-tests`: Playwright
drives Debian's Chromium; no Playwright browser download).

    .venv/bin/python bench/page_load.py [--elements 200000] [--depth 100] [--loads 7] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import psutil

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.against import run_main  # noqa: E402
from bench.browser import devtools_port, launched_browser, two_origins  # noqa: E402
from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.stats import Summary, ratio  # noqa: E402

BROWSERS: Final = ("webctx", "control", "none")
"""The three browsers, in the first round's order."""
TIMING_JS: Final = (
    "(() => { const n = performance.getEntriesByType('navigation')[0];"
    " return [n.domContentLoadedEventStart, n.loadEventStart]; })()"
)
"""The page's own Navigation Timing, ms from navigation start: [DOMContentLoaded, load]."""
CONTROL_MANIFEST: Final = {"manifest_version": 3, "name": "control", "version": "1.0"}
"""The control extension: a manifest and nothing else."""
STOP_TIMEOUT_S: Final = 10.0


def big_page(elements: int, depth: int) -> str:
    """`elements` elements with ids (about: the chains are cut to whole ones, at least one), in
    chains of `depth` nested divs, each chain ending in a short text."""
    chains = max(1, elements // depth)
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8><title>huge page</title></head><body>"]
    for c in range(chains):
        parts.append("".join(f'<div id="c{c}-{d}">' for d in range(depth)))
        parts.append(f"chain {c}")
        parts.append("</div>" * depth)
    parts.append("</body></html>")
    return "".join(parts)


@contextlib.contextmanager
def plain_browser(browser: str, user_data_dir: Path, extension: Path | None) -> Iterator[tuple[int, int]]:
    """`browser` started with the flags `webctx demo` uses (bench/browser.py), with `extension`
    loaded or none; yield its DevTools port and pid; end it by pid afterwards."""
    from native_host.demo.runner import browser_command

    user_data_dir.mkdir(parents=True)
    command = browser_command(
        browser, user_data_dir, "about:blank", load_extension=extension or user_data_dir
    )
    if extension is None:
        flags = ("--disable-extensions-except=", "--load-extension=")
        command = [arg for arg in command if not arg.startswith(flags)]
        command.insert(-1, "--disable-extensions")  # none at all, not even a component one
    command.insert(-1, "--remote-debugging-port=0")
    log = (user_data_dir.parent / f"{user_data_dir.name}.log").open("wb")
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )

    def alive() -> None:
        if process.poll() is not None:
            raise RuntimeError(f"The browser exited with {process.returncode}; see {log.name}.")

    try:
        yield devtools_port(user_data_dir, time.monotonic() + 60, alive), process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)
        log.close()


@contextlib.asynccontextmanager
async def three_browsers(browser: str, workdir: Path) -> AsyncIterator[dict[str, tuple[int, int]]]:
    """The three browsers of BROWSERS, running; yield their DevTools ports and pids by name."""
    control = workdir / "control-extension"
    control.mkdir()
    (control / "manifest.json").write_text(json.dumps(CONTROL_MANIFEST))
    stack = contextlib.ExitStack()
    try:
        running = await asyncio.to_thread(stack.enter_context, launched_browser(browser, 1, workdir))
        ports = {"webctx": (running.devtools_port, running.pid)}
        ports["control"] = await asyncio.to_thread(
            stack.enter_context, plain_browser(browser, workdir / "udd-control", control)
        )
        ports["none"] = await asyncio.to_thread(
            stack.enter_context, plain_browser(browser, workdir / "udd-none", None)
        )
        yield ports
    finally:
        await asyncio.to_thread(stack.close)


def cpu_seconds(pid: int) -> dict[int, float]:
    """User + system CPU seconds of `pid` and each of its descendants, by pid."""
    found: dict[int, float] = {}
    try:
        procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return found
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            times = proc.cpu_times()
            found[proc.pid] = times.user + times.system
    return found


def cpu_used_ms(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU ms used between two `cpu_seconds` readings by the processes alive at the second (a
    process that ended in between is left out: a same-site load keeps its renderer)."""
    return sum(after[pid] - before.get(pid, 0.0) for pid in after) * 1e3


async def timed_loads(
    ports: dict[str, tuple[int, int]], url: str, loads: int
) -> dict[str, list[list[float]]]:
    """One warm-up round, then `loads` rounds, each loading `url` once in every browser (the order
    rotating); each browser's [DOMContentLoaded, load, CPU] per counted load, in ms (CPU: what
    all of that browser's processes used from just before the navigation to the load event, which
    other work on the machine does not inflate the way it inflates wall-clock times)."""
    from playwright.async_api import async_playwright

    found: dict[str, list[list[float]]] = {name: [] for name in BROWSERS}
    async with async_playwright() as pw:
        pages = {}
        for name, (port, _) in ports.items():
            remote = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            pages[name] = await remote.contexts[0].new_page()
        for round_ in range(loads + 1):
            order = BROWSERS[round_ % 3 :] + BROWSERS[: round_ % 3]
            for name in order:
                before = await asyncio.to_thread(cpu_seconds, ports[name][1])
                await pages[name].goto(f"{url}?round={round_}", wait_until="load", timeout=120_000)
                cpu_ms = cpu_used_ms(before, await asyncio.to_thread(cpu_seconds, ports[name][1]))
                timing = await pages[name].evaluate(TIMING_JS)
                if round_ > 0:
                    found[name].append([float(timing[0]), float(timing[1]), cpu_ms])
            if round_ > 0:
                dcl = ", ".join(f"{n} {found[n][-1][0]:.0f}" for n in BROWSERS)
                progress(f"round {round_}/{loads}: DOMContentLoaded ms {dcl}")
    return found


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from native_host.demo.browsers import find_browser

    workdir = Path(tempfile.mkdtemp(prefix="webctx-page-load-"))
    pages = workdir / "pages"
    pages.mkdir()
    (pages / "huge.html").write_text(big_page(args.elements, args.depth), encoding="utf-8")
    report: dict[str, Any] = {
        "elements": max(1, args.elements // args.depth) * args.depth,
        "depth": args.depth,
        "page_bytes": (pages / "huge.html").stat().st_size,
        "load_average": load_average(),
    }
    browser = args.browser or find_browser()
    async with two_origins(pages) as (base, _), three_browsers(browser, workdir) as ports:
        await asyncio.sleep(1.0)
        found = await timed_loads(ports, f"{base}/huge.html", args.loads)
    rows = {}
    for name in BROWSERS:
        dcl = Summary.of_ms(t[0] for t in found[name])
        load = Summary.of_ms(t[1] for t in found[name])
        cpu = Summary.of_ms(t[2] for t in found[name])
        rows[name] = {
            "loads": dcl.n,
            "dcl_median_ms": round(dcl.median, 1),
            "dcl_p99_ms": round(dcl.p99, 1),
            "load_median_ms": round(load.median, 1),
            "load_p99_ms": round(load.p99, 1),
            "cpu_median_ms": round(cpu.median, 1),
            "cpu_p99_ms": round(cpu.p99, 1),
        }
    report["rows"] = rows
    report["ratios"] = {
        "webctx_dcl_x_none": ratio(rows["webctx"]["dcl_median_ms"], rows["none"]["dcl_median_ms"]),
        "control_dcl_x_none": ratio(rows["control"]["dcl_median_ms"], rows["none"]["dcl_median_ms"]),
        "webctx_load_x_control": ratio(rows["webctx"]["load_median_ms"], rows["control"]["load_median_ms"]),
        "webctx_load_x_none": ratio(rows["webctx"]["load_median_ms"], rows["none"]["load_median_ms"]),
        "control_load_x_none": ratio(rows["control"]["load_median_ms"], rows["none"]["load_median_ms"]),
        "webctx_cpu_x_none": ratio(rows["webctx"]["cpu_median_ms"], rows["none"]["cpu_median_ms"]),
        "webctx_cpu_x_control": ratio(rows["webctx"]["cpu_median_ms"], rows["control"]["cpu_median_ms"]),
    }
    report["load_average_after"] = load_average()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=200_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--loads", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--browser", help="the Chromium-family browser to run (default: as `webctx demo` finds it)"
    )
    args = parser.parse_args()
    if args.loads < 5:
        parser.error("--loads: at least 5 (a median of at least 5 loads each)")
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    report = asyncio.run(measure(args))
    if not args.json:
        print(f"{report['elements']} elements in chains of {report['depth']}, {report['page_bytes']} bytes")
        for name, row in report["rows"].items():
            print(
                f"{name:<8} DOMContentLoaded median {row['dcl_median_ms']:7.1f} ms"
                f"  p99 {row['dcl_p99_ms']:7.1f} ms"
                f"   load median {row['load_median_ms']:7.1f} ms  p99 {row['load_p99_ms']:7.1f} ms"
                f"   CPU median {row['cpu_median_ms']:7.1f} ms"
            )
        r = report["ratios"]
        print(f"DOMContentLoaded: webctx x none {r['webctx_dcl_x_none']} (target <= 1.10), control x none "
              f"{r['control_dcl_x_none']}")
        print(f"load: webctx x control {r['webctx_load_x_control']} (target <= 1.10), webctx x none "
              f"{r['webctx_load_x_none']}, control x none {r['control_load_x_none']}")
        print(f"CPU per load: webctx x none {r['webctx_cpu_x_none']}, webctx x control "
              f"{r['webctx_cpu_x_control']}")
    print(json.dumps(report))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run_main(main, __file__)
