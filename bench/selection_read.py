"""The content script's cost of reading a huge selection: Ctrl+A on a page of many paragraphs.

What it measures
----------------
A page holds `--paragraphs` paragraphs (default 10,000) of `--text` (default 57 characters) each; with
`--hidden-every K` every K-th of them is `sr-only`. The user clicks into it and presses Ctrl+A
(real input through Playwright over CDP). Then the service worker runs, in the tab's isolated
world (chrome.scripting), `__webctx.selection.read()` `--reads` times (default 20) and times each
with `performance.now()`: the main-thread time one read of the selection takes there, which is what
every `current` and every push pays (content/selection.js; since the visible-text filter,
content/visible_text.js and content/hidden_text.js `textJudge`). It also reports the text length
read and whether hidden text was left out.

Two builds are measured in turn (`--rounds` each, alternating; the median is reported), each in a
fresh browser: this checkout's extension and `--against REV`'s (default `main`, from `git
archive`). The browser is launched as bench/typing_bench.py launches it (bench/browser.py). HOME,
XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script started
are ended, by pid.

    .venv/bin/python bench/selection_read.py [--paragraphs 10000] [--text T] [--hidden-every 0] [--reads 20]
                                             [--rounds 2] [--against main] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser import EXTENSION_ID, cdp_browser, two_origins  # noqa: E402
from bench.environment import isolate  # noqa: E402

READ_JS = """async (reads) => {
  const tabs = await chrome.tabs.query({url: "http://127.0.0.1/*"});
  const tab = tabs.find((t) => t.url.includes("/paragraphs.html"));
  const [result] = await chrome.scripting.executeScript({target: {tabId: tab.id}, args: [reads],
    func: (reads) => { const ns = globalThis.__webctx; if (!ns) return null;
      const ms = []; let last = null;
      for (let i = 0; i < reads; i++) {
        const t0 = performance.now(); last = ns.selection.read(); ms.push(performance.now() - t0); }
      return {ms, length: last ? last.text.length : 0, hidden: Boolean(last && last.hidden)}; }});
  return result?.result ?? null;
}"""
"""Run in the service worker: time `reads` reads of the selection in the paragraphs page."""
PAGE = """<!doctype html><html lang=en><title>paragraphs</title>
<style>.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}</style>
<body><div id=all></div><script>
const n = COUNT, every = EVERY, parts = [], TEXT = JSON_TEXT;
for (let i = 0; i < n; i++) {
  const cls = every && i % every === every - 1 ? " class=sr-only" : "";
  parts.push(`<p${cls}>${TEXT}</p>`);
}
document.getElementById("all").innerHTML = parts.join("");
</script></body></html>"""


def archived_extension(rev: str, dest: Path) -> Path:
    """`rev`'s extension/ folder, written under `dest` (git archive); its path."""
    command = ["git", "-C", str(ROOT), "archive", rev, "extension"]
    data = subprocess.run(command, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "extension"


async def measure_build(args: argparse.Namespace, name: str, extension: Path, base: str) -> dict[str, Any]:
    """Ctrl+A on the page with `extension` loaded; this build's row."""
    from playwright.async_api import async_playwright

    from native_host import paths

    original = paths.extension_dir
    paths.extension_dir = lambda: extension  # bench.browser.launched_browser loads this folder
    try:
        async with cdp_browser(args.browser, Path(tempfile.mkdtemp())) as running, async_playwright() as pw:
            browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
            page = await browser.contexts[0].new_page()
            [worker] = [
                w for w in browser.contexts[0].service_workers
                if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
            ]  # fmt: skip
            await page.goto(f"{base}/paragraphs.html")
            await page.bring_to_front()
            await page.mouse.click(200, 10)
            await page.keyboard.press("Control+A")
            async with asyncio.timeout(30):
                while not (result := await worker.evaluate(READ_JS, 1)) or not result["length"]:
                    await asyncio.sleep(0.1)
            result = await worker.evaluate(READ_JS, args.reads)
            await browser.close()
        ms = sorted(result["ms"])
        return {
            "build": name,
            "median_ms": round(statistics.median(ms), 2),
            "max_ms": round(ms[-1], 2),
            "text_length": result["length"],
            "hidden_omitted": result["hidden"],
        }
    finally:
        paths.extension_dir = original


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from native_host import paths

    folder = Path(tempfile.mkdtemp())
    page = PAGE.replace("COUNT", str(args.paragraphs)).replace("EVERY", str(args.hidden_every))
    page = page.replace("JSON_TEXT", json.dumps(args.text))
    (folder / "paragraphs.html").write_text(page)
    report: dict[str, Any] = {
        "paragraphs": args.paragraphs,
        "hidden_every": args.hidden_every,
        "against": args.against,
        "load_average": os.getloadavg(),
    }
    before = archived_extension(args.against, folder / "before")
    rows = []
    async with two_origins(folder) as (base, _):
        for _ in range(args.rounds):  # alternate, so the machine's changing load hits both alike
            rows.append(await measure_build(args, "this", paths.extension_dir(), base))
            rows.append(await measure_build(args, args.against, before, base))
    report["rows"] = rows
    report["median_ms"] = {
        name: statistics.median(r["median_ms"] for r in rows if r["build"] == name)
        for name in ("this", args.against)
    }
    report["load_average_after"] = os.getloadavg()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paragraphs", type=int, default=10_000)
    parser.add_argument("--hidden-every", type=int, default=0, help="every K-th paragraph sr-only (0: none)")
    parser.add_argument("--text", default="A paragraph: the quick brown fox jumps over the lazy dog.")
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each build, alternating")
    parser.add_argument("--against", default="main", help="the git revision to compare with")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--browser", help="the Chromium-family browser (default: as `webctx demo` finds it)")
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    report = asyncio.run(measure(args))
    if not args.json:
        for row in report["rows"]:
            print(
                f"{row['build']:<8} median {row['median_ms']:8.2f} ms  max {row['max_ms']:8.2f} ms"
                f"  text {row['text_length']:6}  hiddenOmitted={row['hidden_omitted']}"
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
