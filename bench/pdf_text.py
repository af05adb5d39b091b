"""`resources/read` of a PDF tab's text: pdf.js in the extension's offscreen document.

What it measures (ms; median and p99 by nearest rank, bench/stats.py)
--------------------------------------------------------------------
One headless Chromium with the real extension and native host (bench/browser.py, as `webctx
demo` starts it), one tab showing a **generated PDF** (tests/support/pdf_writer.py; default 300
pages of 15 lines of Helvetica text, a title) in Chromium's viewer. Playwright connects over CDP
only to open the tab, never while anything is timed. The reference client
(`native_host.host.open_session`: real HTTP on 127.0.0.1, the real bearer token) reads the
Page's text link:

- **first read**: the offscreen document made, pdf.js loaded, its Worker started, then the read;
- **reads**: `--runs` more reads back to back (the offscreen document stays open between them,
  service_worker/pdf_text.js OFFSCREEN_IDLE_MS), each fetching the PDF again and reading every
  page.

Reported: the times, the Markdown's UTF-8 bytes, `truncated`, the pages the text reached (its
`## Page N of M` marks) and the PDF's size; the load average before and after (`uptime`).

HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script
started are ended, by pid. Needs the test extras (`./scripts/setup.sh --with-tests`).

    .venv/bin/python bench/pdf_text.py [--pages 300] [--lines 15] [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.against import run_main  # noqa: E402
from bench.browser import cdp_browser, settle, walk  # noqa: E402
from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.page_read import READ_TIMEOUT_S, uptime  # noqa: E402
from bench.stats import Summary  # noqa: E402
from tests.support.pages import served_pages  # noqa: E402
from tests.support.pdf_writer import pdf_bytes  # noqa: E402

PDF_TITLE: Final = "Annual survey of the tidal mills"
SENTENCE_WORDS: Final = (
    "tide mill wheel pond sluice gate miller grain flour river estuary salt marsh stone oak beam "
    "shaft gear water flow ebb flood harbour village record century survey engineer restored"
)
WORDS: Final = tuple(SENTENCE_WORDS.split())
LINKS_TIMEOUT_S: Final = 60.0


def survey_pdf(pages: int, lines: int, seed: int = 16) -> bytes:
    """A PDF of `pages` pages, each a heading line and `lines` - 1 lines of 6-9 words. Deterministic."""
    rng = random.Random(seed)

    def line() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 9))).capitalize()

    def heading(n: int) -> str:
        return f"Section {n}: the {rng.choice(WORDS)} and the {rng.choice(WORDS)}"

    body = [[heading(n), *(line() for _ in range(lines - 1))] for n in range(1, pages + 1)]
    return pdf_bytes(body, title=PDF_TITLE)


async def open_pdf_tab(devtools_port: int, url: str) -> None:
    """Open `url` in the active tab over CDP, then disconnect."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{devtools_port}")
        page = await browser.contexts[0].new_page()
        await page.goto(url)
        await page.bring_to_front()
        await browser.close()  # over CDP: disconnects only


async def text_link(descriptor: Any, url: str) -> str:
    """The text link of the Page showing `url`, once `current` has it. RuntimeError after LINKS_TIMEOUT_S."""
    from native_host.host import open_session

    deadline = time.monotonic() + LINKS_TIMEOUT_S
    async with open_session(descriptor, timeout_s=READ_TIMEOUT_S) as session:
        while time.monotonic() < deadline:
            raw = (await session.current()).raw
            for element in walk(raw.get("root") or {}):
                if element.get("role") == "Page" and element.get("url") == url:
                    for block in element.get("content") or []:
                        if block.get("type") == "resource_link" and block.get("mimeType") == "text/markdown":
                            return str(block["uri"])
            await asyncio.sleep(0.2)
    raise RuntimeError(f"The PDF's Page had no text link within {LINKS_TIMEOUT_S:g} s.")


def sizes(result: Any) -> dict[str, Any]:
    """The Markdown's bytes, its `_meta`, and the pages its marks reach."""
    [item] = result.contents
    marks = re.findall(r"^## Page (\d+) of (\d+)$", item.text, re.M)
    reached = f"{marks[-1][0]} of {marks[-1][1]}" if marks else "none"
    return {"content_bytes": len(item.text.encode()), "meta": dict(item.meta or {}), "pages_reached": reached}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from native_host.host import open_session

    report: dict[str, Any] = {"load_average": load_average(), "uptime": uptime()}
    workdir = Path(tempfile.mkdtemp(prefix="webctx-pdf-text-"))
    pages = workdir / "pages"
    pages.mkdir()
    data = survey_pdf(args.pages, args.lines)
    (pages / "survey.pdf").write_bytes(data)
    report["pdf"] = {"pages": args.pages, "lines_per_page": args.lines, "bytes": len(data)}
    with served_pages(pages) as base:
        url = f"{base}/survey.pdf"
        async with cdp_browser(args.browser, workdir / "browser") as running:
            await open_pdf_tab(running.devtools_port, url)
            uri = await text_link(running.descriptor, url)
            settle(running.pid)
            first: list[float] = []
            times: list[float] = []
            async with open_session(running.descriptor, timeout_s=READ_TIMEOUT_S) as session:
                progress("first read")
                start = time.perf_counter()
                result = await session.client.read_resource(uri)
                first.append(time.perf_counter() - start)
                report.update(sizes(result))
                for n in range(args.runs):
                    if n % 5 == 0:
                        progress(f"read {n + 1} of {args.runs}")
                    start = time.perf_counter()
                    await session.client.read_resource(uri)
                    times.append(time.perf_counter() - start)
    rows = []
    for name, seconds in (("first read (offscreen document made)", first), ("reads", times)):
        summary = Summary.of_seconds(seconds)
        median, p99 = round(summary.median, 1), round(summary.p99, 1)
        rows.append({"row": name, "calls": summary.n, "median_ms": median, "p99_ms": p99})
    report["rows"] = rows
    report["load_average_after"] = load_average()
    report["uptime_after"] = uptime()
    return report


def print_table(report: Mapping[str, Any]) -> None:
    """The rows as a table on stdout (times in ms)."""
    pdf = report["pdf"]
    print(f"PDF: {pdf['pages']} pages x {pdf['lines_per_page']} lines, {pdf['bytes']} B")
    print(f"load before: {report['uptime']}")
    print(f"{'row':<40} {'calls':>5} {'median':>9} {'p99':>9}")
    for r in report["rows"]:
        print(f"{r['row']:<40} {r['calls']:>5} {r['median_ms']:9.1f} {r['p99_ms']:9.1f}")
    meta = {k: v for k, v in report["meta"].items() if k in ("truncated", "bytes", "source")}
    print(f"text: {report['content_bytes']} B Markdown, pages reached {report['pages_reached']}, {meta}")
    print(f"load after: {report['uptime_after']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--lines", type=int, default=15, help="lines of text per page")
    parser.add_argument("--runs", type=int, default=20, help="reads after the first")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--browser", help="the Chromium-family browser (default: as `webctx demo` finds it)")
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    report = asyncio.run(measure(args))
    if not args.json:
        print_table(report)
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    run_main(main, __file__)
