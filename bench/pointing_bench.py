"""`location` latency next to the MCP floor, and the content scripts' cost per page load.

What it measures
----------------
- **location**: the reference desktop host (`native_host.host.open_session`: real HTTP on
  127.0.0.1, the real bearer token, each answer checked) calls `location` `--calls` times (default
  200) for a Text selected in the top document and for a Text selected in a cross-origin iframe
  (`127.0.0.1` page, `localhost` frame), after 20 warm-up calls, in MCP 2026-07-28. Next to it the
  **floor**: `McpEndpoint` in a subprocess whose requester answers `location` at once with a
  constant one-rect answer (HTTP + MCP + JSON + pydantic, no browser). Calls alternate floor /
  browser in blocks of 10 so that the machine's changing speed hits both alike. Target: the
  median of each row <= 2 x the floor's. For scale, `current` is timed on the same browser too.
  The browser is launched as bench/current_latency.py launches it; Playwright connects over CDP
  only to set the page up and disconnects before anything is timed (an attached CDP client slows
  the browser's own messaging). `port RTT`: the native host's own request → reply time for
  those rows (its log). `answer` (JSON `answer_bytes`): the most frequent size of the `location`
  answer's JSON; the floor's is about the browser's size, so no same-size floor is needed here
  (bench/current_latency.py has one for `current`, whose answer is up to 100 times the floor's).
- **native messaging floor**: after each block, the native host (started with
  `WEBCTX_BENCH_PINGS=10`, native_host/provider/bench_ping.py) is sent SIGUSR1 and times 10 `ping`s the
  worker answers `{}` at once (host ↔ browser ↔ worker, no work), then 10 `ping {page: true}`: one
  page-channel round trip worker ↔ active tab's content script, answered at once, timed in the
  worker. Printed with the smallest ratios any build could reach: (floor + ping) / floor for
  `current`, (floor + ping + page ping) / floor for `location` in the top document.
- **content script per page load**: `tests/pages`-style page with `--paragraphs` (default 10,000)
  paragraphs, loaded `--loads` times (default 10); the content scripts keep, in their own
  namespace, the time from the first one's start to the last one's end (`startupMs`, read through
  the service worker with chrome.scripting: a performance mark would be visible to the page).
  Target: <= 2 ms per load. Nothing runs per `mousemove` beyond storing four numbers
  (content/focus_hover.js), so there is no per-move figure to report.

Needs the test extras (`./scripts/setup.sh --with-tests`: Playwright drives Debian's Chromium;
no Playwright browser download). HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary
folder; only processes this script started are ended, by pid.

    .venv/bin/python bench/pointing_bench.py [--calls 200] [--paragraphs 10000] [--loads 10] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.pages import served_pages  # noqa: E402
from tests.support.requester import FakeRequester  # noqa: E402

FLOOR_ANSWER = {"location": {"state": "visible", "rects": [{"x": 200, "y": 187, "w": 260, "h": 19}]}}
STARTUP_MS_JS = """async () => {
  const tabs = await chrome.tabs.query({url: "http://127.0.0.1/*"});
  const tab = tabs.find((t) => t.url.endsWith("/big.html"));
  const [result] = await chrome.scripting.executeScript({
    target: {tabId: tab.id}, func: () => globalThis.__webctx?.startupMs ?? null});
  return result?.result ?? null;
}"""
"""Run in the extension's service worker: the content scripts' set-up time in the big page (ms)."""
EXTENSION_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"
"""The extension's id (from the `key` in extension/manifest.json)."""
BLOCK_CALLS = 10
WARMUP_CALLS = 20


async def serve_floor() -> None:
    """`--floor-server`: run the floor endpoint, print `<url> <token>`, serve until stdin closes."""
    from native_host.provider.endpoint import McpEndpoint

    async def no_window(_bounds: Any) -> int | None:
        return None

    # `location` answers FLOOR_ANSWER at once, anything else a one-element tree
    requester = FakeRequester(
        {"location": FLOOR_ANSWER}, default={"root": {"id": "app", "role": "Application"}}
    )
    endpoint = McpEndpoint(requester, instance="floor-instance", window_finder=no_window)
    url = await endpoint.start()
    print(url, endpoint.token, flush=True)
    await asyncio.to_thread(sys.stdin.read)
    await endpoint.stop()


@contextlib.contextmanager
def floor_provider() -> Any:
    """Start the floor server; yield a Descriptor for it; end it by pid."""
    from native_host.protocol.descriptor import Descriptor

    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--floor-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url, token = proc.stdout.readline().split()
        yield Descriptor(
            protocol="0.2.0", bundle_id="bench.floor", name="floor", version="0", pid=proc.pid,
            instance="floor-instance", endpoint=url, token=token, listener_pid=proc.pid,
        )  # fmt: skip
    finally:
        proc.kill()
        proc.wait(timeout=5)


def summary(
    name: str,
    seconds: list[float],
    floor: list[float] | None,
    port_rtts_ms: list[float] | None = None,
    sizes: dict[int, int] | None = None,
) -> dict[str, Any]:
    """A printed row (ms); `port_rtts_ms`: the native host's own request → reply times (its log);
    `sizes`: {answer JSON bytes: count}, reported as the most frequent size (`answer_bytes`)."""
    ms = sorted(s * 1e3 for s in seconds)
    median = statistics.median(ms)
    row = {
        "row": name,
        "calls": len(ms),
        "median_ms": round(median, 2),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 2),
    }
    if floor:
        row["x_floor"] = round(median / (statistics.median(floor) * 1e3), 2)
    if port_rtts_ms:
        row["port_rtt_ms"] = round(statistics.median(port_rtts_ms), 2)
    if sizes:
        row["answer_bytes"] = max(sizes, key=lambda size: sizes[size])
    return row


async def timed_location(
    session: Any, id_: str, out: list[float], sizes: dict[int, int] | None = None
) -> None:
    """Time one `location` call into `out` (seconds); count its answer's JSON size in `sizes`."""
    start = time.perf_counter()
    answer = await session.location(id_)
    out.append(time.perf_counter() - start)
    if sizes is not None:
        size = len(json.dumps(answer.to_wire(), separators=(",", ":")).encode())
        sizes[size] = sizes.get(size, 0) + 1


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from native_host import paths
    from native_host.host import HostClient, open_session

    report: dict[str, Any] = {"rows": [], "load_average": os.getloadavg()}
    pages = ROOT / "tests" / "pages"
    async with serve(pages) as (base, other):
        big = Path(tempfile.mkdtemp()) / "big.html"
        paragraphs = "\n".join(
            f"<p>Paragraph {i} of a long page, with a few words in it.</p>" for i in range(args.paragraphs)
        )
        big.write_text(f"<!doctype html><html lang=en><title>big</title><body>{paragraphs}</body></html>")
        workdir = Path(tempfile.mkdtemp())
        # Launched as bench/current_latency.py launches it (no Playwright: a CDP client attached to
        # every target slows the browser's own messaging); Playwright connects over CDP only to
        # set the page up, and disconnects before anything is timed.
        async with (
            serve(big.parent) as (big_base, _),
            cdp_browser(args.browser, workdir) as (descriptor, port, host_log),
        ):
            from playwright.async_api import async_playwright

            host = HostClient(folder=paths.providers_dir(), timeout_s=10.0)
            async with async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                page = await browser.contexts[0].new_page()
                await page.goto(f"{base}/pointing.html?frame={other}/frame.html")
                frame = None
                async with asyncio.timeout(10):
                    while frame is None:
                        frame = next(
                            (f for f in page.frames if f != page.main_frame and "frame.html" in f.url), None
                        )
                        await asyncio.sleep(0.05)
                    await frame.wait_for_load_state()
                select = (
                    "(id) => { const r = document.createRange();"
                    " r.selectNodeContents(document.getElementById(id));"
                    " getSelection().removeAllRanges(); getSelection().addRange(r); }"
                )
                await page.bring_to_front()
                await page.evaluate(select, "line1")
                await asyncio.sleep(0.3)
                top_id = first_text_id((await host.current(descriptor.pid)).raw, "pointing.html")
                await frame.evaluate(select, "inner")
                await page.evaluate("() => getSelection().removeAllRanges()")
                await asyncio.sleep(0.3)
                frame_id = first_text_id((await host.current(descriptor.pid)).raw, "pointing.html")
                assert frame_id != top_id
                await browser.close()  # over CDP: disconnects, the browser and its tabs stay
            await asyncio.sleep(1.0)  # let the browser settle after the CDP client left
            rows = ("floor", "top", "frame", "current", "ping", "page")
            times: dict[str, list[float]] = {row: [] for row in rows}
            sizes: dict[str, dict[int, int]] = {row: {} for row in rows}
            with floor_provider() as floor:
                async with (
                    open_session(floor, timeout_s=10) as fs,
                    open_session(descriptor, timeout_s=10) as bs,
                ):
                    for _ in range(WARMUP_CALLS):
                        await fs.location("sel-1")
                        await bs.location(top_id)
                        await bs.location(frame_id)
                    done = 0
                    pid = descriptor.listener_pid
                    rtts: dict[str, list[float]] = {"top": [], "frame": [], "current": []}
                    while done < args.calls:
                        for _ in range(BLOCK_CALLS):
                            await timed_location(fs, "sel-1", times["floor"], sizes["floor"])
                        offset = host_log.stat().st_size
                        for _ in range(BLOCK_CALLS):
                            await timed_location(bs, top_id, times["top"], sizes["top"])
                        offset = read_port_rtts(host_log, offset, pid, rtts["top"])
                        for _ in range(BLOCK_CALLS):
                            await timed_location(bs, frame_id, times["frame"], sizes["frame"])
                        offset = read_port_rtts(host_log, offset, pid, rtts["frame"])
                        for _ in range(BLOCK_CALLS):
                            start = time.perf_counter()
                            await bs.current()
                            times["current"].append(time.perf_counter() - start)
                        read_port_rtts(host_log, offset, pid, rtts["current"])
                        native, page = await ping_block(descriptor.listener_pid, host_log)
                        times["ping"] += native
                        times["page"] += page
                        done += BLOCK_CALLS
            report["rows"] = [
                summary("floor", times["floor"], None, None, sizes["floor"]),
                summary("Text, top document", times["top"], times["floor"], rtts["top"], sizes["top"]),
                summary(
                    "Text, cross-origin iframe", times["frame"], times["floor"], rtts["frame"], sizes["frame"]
                ),
                summary("current (same browser)", times["current"], times["floor"], rtts["current"]),
                summary("native messaging ping (host <-> worker)", times["ping"], times["floor"]),
                summary("page channel ping (worker <-> content script)", times["page"], times["floor"]),
            ]
            floor_ms = statistics.median(times["floor"]) * 1e3
            ping_ms = statistics.median(times["ping"]) * 1e3
            report["smallest_ratio"] = round((floor_ms + ping_ms) / floor_ms, 2)
            if times["page"]:  # `location` also asks the page: one page-channel round trip more
                page_ms = statistics.median(times["page"]) * 1e3
                report["smallest_location_ratio"] = round((floor_ms + ping_ms + page_ms) / floor_ms, 2)
            loads: list[float] = []
            async with async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                page = await browser.contexts[0].new_page()
                workers = browser.contexts[0].service_workers
                [worker] = [w for w in workers if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")]
                for _ in range(args.loads):
                    await page.goto(f"{big_base}/big.html")
                    async with asyncio.timeout(10):
                        while True:
                            found = await worker.evaluate(STARTUP_MS_JS)
                            if isinstance(found, int | float):
                                loads.append(found)
                                break
                            await asyncio.sleep(0.05)
                await browser.close()
            report["content_script_ms_per_load"] = {
                "paragraphs": args.paragraphs,
                "loads": len(loads),
                "median": round(statistics.median(loads), 3),
                "max": round(max(loads), 3),
            }
    report["load_average_after"] = os.getloadavg()
    return report


PING_LINE = re.compile(
    r" (\d+) INFO native_host\.provider\.bench_ping: bench ping: \d+ round trips \(ms\): ([\d. ]+)\n"
)
"""The native host's log line for one round of pings (provider/bench_ping.py): pid, times in ms."""
PAGE_PING_LINE = re.compile(
    r" (\d+) INFO native_host\.provider\.bench_ping: bench page ping: \d+ worker-page round trips"
    r" \(ms\): ([-\d. ]+)\n"
)
"""The same for the worker → content script → worker round trips the worker timed (-1: no page)."""


PORT_RTT_LINE = re.compile(
    r" (\d+) DEBUG native_host\.provider\.bridge: request h-\d+ (?:current|location)"
    r" answered in ([\d.]+) ms\n"
)
"""The native host's log line for one `current`/`location` over the native port (pid, ms)."""


def read_port_rtts(host_log: Path, offset: int, host_pid: int, out: list[float]) -> int:
    """Append to `out` the `current`/`location` round trips (ms) the host logged after `offset`;
    return the log's size now (the next offset)."""
    with host_log.open("rb") as fh:
        fh.seek(offset)
        text = fh.read().decode("utf-8", "replace")
    out += [float(m.group(2)) for m in PORT_RTT_LINE.finditer(text) if int(m.group(1)) == host_pid]
    return offset + len(text.encode("utf-8", "replace"))


async def ping_block(host_pid: int, host_log: Path) -> tuple[list[float], list[float]]:
    """Make the native host time BLOCK_CALLS pings host ↔ worker, then BLOCK_CALLS worker ↔ page
    (SIGUSR1, native_host/provider/bench_ping.py) and read them back from its log; returns seconds, like the
    other rows (page hops without a page left out). Raises TimeoutError after 10 s."""
    offset = host_log.stat().st_size
    os.kill(host_pid, signal.SIGUSR1)
    async with asyncio.timeout(10):
        while True:
            with host_log.open("rb") as fh:
                fh.seek(offset)
                text = fh.read().decode("utf-8", "replace")
            pings = [m for m in PING_LINE.finditer(text) if int(m.group(1)) == host_pid]
            pages = [m for m in PAGE_PING_LINE.finditer(text) if int(m.group(1)) == host_pid]
            if pings and pages:
                native = [float(v) / 1e3 for v in pings[0].group(2).split()]
                page = [float(v) / 1e3 for v in pages[0].group(2).split() if float(v) >= 0]
                return native, page
            await asyncio.sleep(0.01)


def first_text_id(answer: Mapping[str, Any], url_part: str) -> str:
    """The id of the selected Text in the Page whose url contains `url_part`."""
    for page in walk(answer["root"]):
        if page["role"] == "Page" and url_part in page.get("url", ""):
            return next(e["id"] for e in walk(page) if e["role"] == "Text")
    raise AssertionError(f"no Page with {url_part} in its url")


@contextlib.asynccontextmanager
async def cdp_browser(browser_path: str | None, workdir: Path) -> AsyncIterator[tuple[Any, int, Path]]:
    """Chromium launched by bench/current_latency.py's `launched_browser` (one tab, the demo's
    way, `--remote-debugging-port=0`); yields (descriptor, DevTools port, native host log)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import current_latency  # type: ignore[import-not-found]

    from native_host.demo.browsers import find_browser

    path = find_browser(path=browser_path)
    # It is synchronous and runs its own event loops: enter and leave it in a thread.
    stack = contextlib.ExitStack()
    try:
        running = await asyncio.to_thread(
            stack.enter_context, current_latency.launched_browser(path, 1, workdir)
        )
        port = current_latency.devtools_port(workdir / "udd-1", time.monotonic() + 10, lambda: None)
        yield running.descriptor, port, running.host_log
    finally:
        await asyncio.to_thread(stack.close)


def walk(element: Mapping[str, Any]) -> Any:
    yield element
    for child in element.get("children", []) or []:
        yield from walk(child)


@contextlib.asynccontextmanager
async def serve(folder: Path) -> AsyncIterator[tuple[str, str]]:
    """Serve `folder` on 127.0.0.1; yield its base url and the same as `localhost` (2nd origin)."""
    with served_pages(folder) as base, served_pages(folder, host="localhost") as other:
        yield base, other


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--paragraphs", type=int, default=10_000)
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--browser", help="the Chromium-family browser to run (default: as `webctx demo` finds it)"
    )
    parser.add_argument("--floor-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_server:
        asyncio.run(serve_floor())
        return
    home = Path(tempfile.mkdtemp(prefix="webctx-bench-"))
    sys.path.insert(0, str(ROOT / "bench"))
    import current_latency

    current_latency.isolate(home)
    os.environ["WEBCTX_BENCH_PINGS"] = str(BLOCK_CALLS)  # native_host/provider/bench_ping.py: the ping row
    report = asyncio.run(measure(args))
    if not args.json:
        for row in report["rows"]:
            extra = f"  x floor {row['x_floor']}" if "x_floor" in row else ""
            extra += f"  port RTT {row['port_rtt_ms']}" if "port_rtt_ms" in row else ""
            extra += f"  answer {row['answer_bytes']} B" if "answer_bytes" in row else ""
            print(f"{row['row']:<46} median {row['median_ms']:7.2f} ms  p99 {row['p99_ms']:7.2f} ms{extra}")
        print(f"smallest possible ratio, current: (floor + ping) / floor = {report['smallest_ratio']}")
        if "smallest_location_ratio" in report:
            ratio = report["smallest_location_ratio"]
            print(f"smallest possible ratio, location: (floor + ping + page ping) / floor = {ratio}")
        c = report["content_script_ms_per_load"]
        what = f"content scripts per page load ({c['paragraphs']} paragraphs)"
        print(f"{what}: median {c['median']} ms, max {c['max']} ms")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
