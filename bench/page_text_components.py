"""The page text of a page of web components: 200 Lit components (open, closed and nested shadow
roots, slots), read the way the worker reads it.

What it measures (ms; median and p99 by nearest rank, bench/stats.py)
--------------------------------------------------------------------
One headless Chromium with the real extension (bench/browser.py, as `webctx demo` starts it) opens
tests/support/component_pages.py's `many.html` (`--cards` components, default 200, built at start
from the Lit release in node_modules with esbuild) and waits until every component has rendered.
The service worker then injects the page-text files into the tab's top frame as the worker does
(service_worker/page_read.js PAGE_TEXT_FILES, read from this checkout) and calls
`webctxPageText({maxBytes})` `--runs` times (default 30, after WARMUP runs):

- **page text (in page)**: the call's own time in the tab's isolated world (`performance.now()`):
  the clone, the hidden-text pruning, the shadow roots folded in (content/composed_clone.js),
  Readability or the visible text, turndown;
- **page text (worker)**: the worker's `chrome.scripting.executeScript` round trip around it (what
  a `page.read` pays before its checks and native messaging).

It prints the Markdown's UTF-8 size and source, and the load average (`os.getloadavg()`) before and
after: on the shared 2-core machine the times scale with it. `--against REV` (bench/against.py)
runs REV's checkout alternately, for the cost of reading the shadow roots at all.

HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script
started are ended, by pid. Needs the test extras and node_modules (`./scripts/setup.sh --with-tests`).

    .venv/bin/python bench/page_text_components.py [--cards 200] [--runs 30] [--max-bytes 262144] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.against import run_main  # noqa: E402
from bench.browser import EXTENSION_ID, cdp_browser  # noqa: E402
from bench.environment import isolate  # noqa: E402
from bench.stats import Summary  # noqa: E402
from tests.support import component_pages  # noqa: E402
from tests.support.pages import served_pages  # noqa: E402

WARMUP: Final = 3
"""Untimed reads first (the JIT, the first injection)."""
READY_TIMEOUT_S: Final = 60.0
"""How long the page may take to render its components, in seconds."""

READ_JS: Final = """async ([files, maxBytes, runs]) => {
  const [tab] = await chrome.tabs.query({url: "*://*/many.html"});
  const target = {tabId: tab.id, frameIds: [0]};
  await chrome.scripting.executeScript({target, files});
  const inPage = [], worker = [];
  let last = null;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const [{result}] = await chrome.scripting.executeScript({target, args: [maxBytes],
      func: (maxBytes) => { const t = performance.now();
        const answer = globalThis.webctxPageText({maxBytes});
        return {ms: performance.now() - t, bytes: answer.bytes, source: answer.source}; }});
    worker.push(performance.now() - t0);
    inPage.push(result.ms);
    last = result;
  }
  return {inPage, worker, bytes: last.bytes, source: last.source};
}"""
"""Run in the service worker: inject the page-text files, then time `runs` reads of the text."""


def page_text_files() -> list[str]:
    """The files the worker injects for a text read (this checkout's page_read.js)."""
    source = (ROOT / "extension" / "service_worker" / "page_read.js").read_text(encoding="utf-8")
    found = re.search(r"PAGE_TEXT_FILES = \[(.*?)\]", source, re.S)
    if not found:
        raise RuntimeError("PAGE_TEXT_FILES not found in page_read.js")
    return re.findall(r'"([^"]+)"', found.group(1))


def summary(values: list[float]) -> dict[str, float]:
    """Median and p99 (nearest rank) of `values` in ms, rounded to 0.1 ms."""
    s = Summary.of_ms(values)
    return {"median_ms": round(s.median, 1), "p99_ms": round(s.p99, 1)}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Build the pages, open the components page, time the reads; the report."""
    from playwright.async_api import async_playwright

    folder = component_pages.build(Path(tempfile.mkdtemp(prefix="webctx-components-")), cards=args.cards)
    report: dict[str, Any] = {"cards": args.cards, "runs": args.runs, "load_average": os.getloadavg()}
    with served_pages(folder) as base:
        async with cdp_browser(args.browser, Path(tempfile.mkdtemp())) as running, async_playwright() as pw:
            browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
            page = await browser.contexts[0].new_page()
            await page.goto(f"{base}/many.html")
            await page.wait_for_function(
                "() => document.body.dataset.ready === '1'", timeout=READY_TIMEOUT_S * 1000
            )
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not (workers := [
                w for w in browser.contexts[0].service_workers
                if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
            ]):  # fmt: skip
                if time.monotonic() > deadline:
                    raise TimeoutError("the extension's service worker did not start")
                await asyncio.sleep(0.1)
            worker = workers[0]
            files = page_text_files()
            await worker.evaluate(READ_JS, [files, args.max_bytes, WARMUP])
            result = await worker.evaluate(READ_JS, [files, args.max_bytes, args.runs])
            await browser.close()
    report["in_page"] = summary(result["inPage"])
    report["worker"] = summary(result["worker"])
    report["markdown_bytes"] = result["bytes"]
    report["source"] = result["source"]
    report["load_average_after"] = os.getloadavg()
    return report


def main() -> int:
    """Parse the arguments, run the bench, print the report (a table, then one JSON line)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--cards", type=int, default=200, help="Lit components on the page")
    parser.add_argument("--runs", type=int, default=30, help="timed reads")
    parser.add_argument("--max-bytes", type=int, default=256 * 1024, help="webctxPageText's maxBytes")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--browser", help="the Chromium-family browser (default: as `webctx demo` finds it)")
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    report = asyncio.run(measure(args))
    if not args.json:
        load = ", ".join(f"{x:.2f}" for x in report["load_average"])
        print(f"load average {load} (after: {', '.join(f'{x:.2f}' for x in report['load_average_after'])})")
        size = f"{report['markdown_bytes']} bytes ({report['source']})"
        print(f"{args.cards} Lit components, {args.runs} reads, {size}")
        for name in ("in_page", "worker"):
            row = report[name]
            where = name.replace("_", " ")
            print(f"  page text ({where}): median {row['median_ms']:8.1f} ms  p99 {row['p99_ms']:8.1f} ms")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, __file__))
