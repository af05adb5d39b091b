"""`location` latency next to the MCP floor, and the content scripts' cost per page load.

What it measures
----------------
- **location**: the reference desktop host (`native_host.host.open_session`: real HTTP on
  127.0.0.1, the real bearer token, each answer checked) calls `location` `--calls` times (default
  200) for a Text selected in the top document and for a Text selected in a cross-origin iframe
  (`127.0.0.1` page, `localhost` frame), after 20 warm-up calls, in MCP 2026-07-28. Next to it the
  **floor**: `McpEndpoint` in a subprocess (bench/floor.py) whose requester answers `location` at
  once with a constant one-rect answer (HTTP + MCP + JSON + pydantic, no browser). Calls alternate
  floor / browser in blocks of 10 so that the machine's changing speed hits both alike. Target:
  the median of each row <= 2 x the floor's. For scale, `current` is timed on the same browser
  too. The browser is launched as bench/current_latency.py launches it (bench/browser.py);
  Playwright connects over CDP only to set the page up and disconnects before anything is timed
  (an attached CDP client slows the browser's own messaging). `port RTT`: the native host's own
  request → reply time for those rows (its log, bench/host_log.py). `answer` (JSON
  `answer_bytes`): the most frequent size of the `location` answer's JSON; the floor's is about
  the browser's size, so no same-size floor is needed here (bench/current_latency.py has one for
  `current`, whose answer is up to 100 times the floor's).
- **native messaging floor**: after each block, the native host (started with
  `WEBCTX_BENCH_PINGS=10`, native_host/provider/port/bench_ping.py) is sent SIGUSR1 and times 10 `ping`s the
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
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import host_log  # noqa: E402
from bench.against import run_main  # noqa: E402
from bench.browser import EXTENSION_ID, LaunchedBrowser, cdp_browser, two_origins, walk  # noqa: E402
from bench.environment import isolate  # noqa: E402
from bench.floor import floor_provider  # noqa: E402
from bench.stats import Summary, median_ms, ratio  # noqa: E402

if TYPE_CHECKING:
    from native_host.host import ProviderSession

STARTUP_MS_JS: Final = """async () => {
  const tabs = await chrome.tabs.query({url: "http://127.0.0.1/*"});
  const tab = tabs.find((t) => t.url.endsWith("/big.html"));
  const [result] = await chrome.scripting.executeScript({
    target: {tabId: tab.id}, func: () => globalThis.__webctx?.startupMs ?? null});
  return result?.result ?? null;
}"""
"""Run in the extension's service worker: the content scripts' set-up time in the big page (ms)."""
SELECT_JS: Final = (
    "(id) => addEventListener('click', () => { const r = document.createRange();"
    " r.selectNodeContents(document.getElementById(id));"
    " getSelection().removeAllRanges(); getSelection().addRange(r); }, {once: true})"
)
"""Run in a page or frame: select the element with this id from the page's handler of the user's
next click (a page script's selection counts only right after the user's input, docs/internals/protocol.md
"Only the user's selection"); `select_on_click` makes that click."""


async def select_on_click(page: Any, target: Any, element_id: str) -> None:
    """Select `element_id` in `target` (the page or one of its frames) by the page's own script,
    from its handler of a real click 2 px inside that frame's top-left corner."""
    await target.evaluate(SELECT_JS, element_id)
    x = y = 2.0
    if target != page.main_frame and target != page:
        box = await (await target.frame_element()).bounding_box()
        x, y = box["x"] + 2, box["y"] + 2
    await page.mouse.click(x, y)
BLOCK_CALLS: Final = 10
WARMUP_CALLS: Final = 20
ROWS: Final = ("floor", "top", "frame", "current", "ping", "page")
"""The timed rows, in the order each block runs them (ping and page: one ping_block)."""


def summary(
    name: str,
    seconds: list[float],
    floor: list[float] | None,
    port_rtts_ms: list[float] | None = None,
    sizes: dict[int, int] | None = None,
) -> dict[str, Any]:
    """A printed row (ms; `floor`: the floor's times in seconds, for `x_floor`); `port_rtts_ms`:
    the native host's own request → reply times (its log); `sizes`: {answer JSON bytes: count},
    reported as the most frequent size (`answer_bytes`)."""
    timed = Summary.of_seconds(seconds)
    row: dict[str, Any] = {
        "row": name,
        "calls": timed.n,
        "median_ms": round(timed.median, 2),
        "p99_ms": round(timed.p99, 2),
    }
    if floor:
        row["x_floor"] = ratio(timed.median, median_ms(floor))
    if port_rtts_ms:
        row["port_rtt_ms"] = round(statistics.median(port_rtts_ms), 2)
    if sizes:
        row["answer_bytes"] = max(sizes, key=lambda size: sizes[size])
    return row


async def timed_location(
    session: ProviderSession, id_: str, out: list[float], sizes: dict[int, int] | None = None
) -> None:
    """Time one `location` call into `out` (seconds); count its answer's JSON size in `sizes`."""
    start = time.perf_counter()
    answer = await session.location(id_)
    out.append(time.perf_counter() - start)
    if sizes is not None:
        size = len(json.dumps(answer.to_wire(), separators=(",", ":")).encode())
        sizes[size] = sizes.get(size, 0) + 1


def first_text_id(answer: Mapping[str, Any], url_part: str) -> str:
    """The id of the selected Text in the Page whose url contains `url_part`."""
    for page in walk(answer["root"]):
        if page["role"] == "Page" and url_part in page.get("url", ""):
            return str(next(e["id"] for e in walk(page) if e["role"] == "Text"))
    raise AssertionError(f"no Page with {url_part} in its url")


async def select_texts(running: LaunchedBrowser, base: str, other: str) -> tuple[str, str]:
    """Open tests/pages/pointing.html with its iframe from `other` (a second origin) over CDP,
    select a Text in the top document, then one in the iframe; return their ids (from `current`).
    Playwright disconnects before returning: the browser and its tabs stay."""
    from playwright.async_api import async_playwright

    from native_host import paths
    from native_host.host import HostClient

    host = HostClient(folder=paths.providers_dir(), timeout_s=10.0)
    pid = running.descriptor.pid
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
        page = await browser.contexts[0].new_page()
        await page.goto(f"{base}/pointing.html?frame={other}/frame.html")
        frame = None
        async with asyncio.timeout(10):
            while frame is None:
                frame = next((f for f in page.frames if f != page.main_frame and "frame.html" in f.url), None)
                await asyncio.sleep(0.05)
            await frame.wait_for_load_state()
        await page.bring_to_front()
        await select_on_click(page, page, "line1")
        await asyncio.sleep(0.3)
        top_id = first_text_id((await host.current(pid)).raw, "pointing.html")
        await select_on_click(page, frame, "inner")
        await page.evaluate("() => getSelection().removeAllRanges()")
        await asyncio.sleep(0.3)
        frame_id = first_text_id((await host.current(pid)).raw, "pointing.html")
        assert frame_id != top_id
        await browser.close()  # over CDP: disconnects, the browser and its tabs stay
    return top_id, frame_id


async def time_rows(
    running: LaunchedBrowser, top_id: str, frame_id: str, calls: int
) -> tuple[dict[str, list[float]], dict[str, dict[int, int]], dict[str, list[float]]]:
    """The timed blocks, alternating with the floor: per row (ROWS) the times in seconds, the
    answer sizes, and the native host's port round trips in ms (top, frame, current)."""
    from native_host.host import open_session

    descriptor, log = running.descriptor, running.host_log
    times: dict[str, list[float]] = {row: [] for row in ROWS}
    sizes: dict[str, dict[int, int]] = {row: {} for row in ROWS}
    rtts: dict[str, list[float]] = {"top": [], "frame": [], "current": []}
    pid = descriptor.listener_pid
    assert pid is not None
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
            while done < calls:
                for _ in range(BLOCK_CALLS):
                    await timed_location(fs, "sel-1", times["floor"], sizes["floor"])
                offset = host_log.end_offset(log)
                for row, id_ in (("top", top_id), ("frame", frame_id)):
                    for _ in range(BLOCK_CALLS):
                        await timed_location(bs, id_, times[row], sizes[row])
                    found, offset = host_log.read_port_rtts(log, offset, pid, ("location",))
                    rtts[row] += found
                for _ in range(BLOCK_CALLS):
                    start = time.perf_counter()
                    await bs.current()
                    times["current"].append(time.perf_counter() - start)
                rtts["current"] += host_log.read_port_rtts(log, offset, pid, ("current",))[0]
                native, page = await host_log.ping_block(pid, log)
                times["ping"] += native
                times["page"] += page
                done += BLOCK_CALLS
    return times, sizes, rtts


async def content_script_loads(running: LaunchedBrowser, big_url: str, loads: int) -> list[float]:
    """Load `big_url` `loads` times over CDP; the content scripts' set-up time of each, in ms."""
    from playwright.async_api import async_playwright

    found_ms: list[float] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
        page = await browser.contexts[0].new_page()
        workers = browser.contexts[0].service_workers
        [worker] = [w for w in workers if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")]
        for _ in range(loads):
            await page.goto(big_url)
            async with asyncio.timeout(10):
                while True:
                    found = await worker.evaluate(STARTUP_MS_JS)
                    if isinstance(found, int | float):
                        found_ms.append(found)
                        break
                    await asyncio.sleep(0.05)
        await browser.close()
    return found_ms


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"rows": [], "load_average": os.getloadavg()}
    big = Path(tempfile.mkdtemp()) / "big.html"
    paragraphs = "\n".join(
        f"<p>Paragraph {i} of a long page, with a few words in it.</p>" for i in range(args.paragraphs)
    )
    big.write_text(f"<!doctype html><html lang=en><title>big</title><body>{paragraphs}</body></html>")
    async with (
        two_origins(ROOT / "tests" / "pages") as (base, other),
        two_origins(big.parent) as (big_base, _),
        cdp_browser(args.browser, Path(tempfile.mkdtemp())) as running,
    ):
        top_id, frame_id = await select_texts(running, base, other)
        await asyncio.sleep(1.0)  # let the browser settle after the CDP client left
        times, sizes, rtts = await time_rows(running, top_id, frame_id, args.calls)
        floor = times["floor"]
        report["rows"] = [
            summary("floor", floor, None, None, sizes["floor"]),
            summary("Text, top document", times["top"], floor, rtts["top"], sizes["top"]),
            summary("Text, cross-origin iframe", times["frame"], floor, rtts["frame"], sizes["frame"]),
            summary("current (same browser)", times["current"], floor, rtts["current"]),
            summary("native messaging ping (host <-> worker)", times["ping"], floor),
            summary("page channel ping (worker <-> content script)", times["page"], floor),
        ]
        floor_ms, ping_ms = median_ms(floor), median_ms(times["ping"])
        report["smallest_ratio"] = ratio(floor_ms + ping_ms, floor_ms)
        if times["page"]:  # `location` also asks the page: one page-channel round trip more
            report["smallest_location_ratio"] = ratio(floor_ms + ping_ms + median_ms(times["page"]), floor_ms)
        loads = await content_script_loads(running, f"{big_base}/big.html", args.loads)
        report["content_script_ms_per_load"] = {
            "paragraphs": args.paragraphs,
            "loads": len(loads),
            "median": round(statistics.median(loads), 3),
            "max": round(max(loads), 3),
        }
    report["load_average_after"] = os.getloadavg()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--paragraphs", type=int, default=10_000)
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--browser", help="the Chromium-family browser to run (default: as `webctx demo` finds it)"
    )
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    # native_host/provider/port/bench_ping.py: the ping row
    os.environ["WEBCTX_BENCH_PINGS"] = str(BLOCK_CALLS)
    report = asyncio.run(measure(args))
    if not args.json:
        for row in report["rows"]:
            extra = f"  x floor {row['x_floor']}" if "x_floor" in row else ""
            extra += f"  port RTT {row['port_rtt_ms']}" if "port_rtt_ms" in row else ""
            extra += f"  answer {row['answer_bytes']} B" if "answer_bytes" in row else ""
            print(f"{row['row']:<46} median {row['median_ms']:7.2f} ms  p99 {row['p99_ms']:7.2f} ms{extra}")
        print(f"smallest possible ratio, current: (floor + ping) / floor = {report['smallest_ratio']}")
        if "smallest_location_ratio" in report:
            ratio_ = report["smallest_location_ratio"]
            print(f"smallest possible ratio, location: (floor + ping + page ping) / floor = {ratio_}")
        c = report["content_script_ms_per_load"]
        what = f"content scripts per page load ({c['paragraphs']} paragraphs)"
        print(f"{what}: median {c['median']} ms, max {c['max']} ms")
    print(json.dumps(report))


if __name__ == "__main__":
    run_main(main, __file__)
