"""The content scripts' cost per keystroke while the user types in a large focused field.

What it measures
----------------
A page holds one `<textarea>` whose value is `--size` characters (default 1,000,000); it is
focused, a passage in it is selected (so its offsets follow every edit, content/selection.js),
then the caret goes to the end, and Playwright types `--keys` characters (default 100) into it,
one every `--interval-ms` (default 50 ms, a fast typist). The content scripts time each of their
handlers and timers with `performance.now()` into their namespace (`__webctx.cost`: ms, runs, the
longest run; content/namespace.js `timed`), read through the service worker with
chrome.scripting (a performance mark would be visible to the page). The figure is that total
divided by the keys typed, i.e. the page's main-thread time our scripts take per keystroke,
including the pushes that run later on timers.

Two builds are measured in turn (`--rounds` times each, alternating; the median is reported), each
in a fresh browser: **throttled** (the extension as it is:
a large field's text is pushed once typing pauses for 250 ms, content/report.js) and **unthrottled** (a
copy with `LARGE_FIELD_CHARS = Infinity`, which is how every build before this one behaved: the
text, cut to 64 Ki chars, pushed on every change, at most every 20 ms). After typing, `current`
must report the field's full length (`attributes.length` = size + keys): throttling the pushes
must not make `current` stale.

The browser is launched as bench/current_latency.py launches it (bench/browser.py); Playwright
connects over CDP to open the page and type (the same for both builds). HOME, XDG_* and
CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script started are
ended, by pid.

    .venv/bin/python bench/typing_bench.py [--keys 100] [--interval-ms 50] [--size 1000000]
                                           [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.against import run_main  # noqa: E402
from bench.browser import EXTENSION_ID, cdp_browser, two_origins, walk  # noqa: E402
from bench.environment import isolate  # noqa: E402

COST_JS = """async (reset) => {
  const tabs = await chrome.tabs.query({url: "http://127.0.0.1/*"});
  const tab = tabs.find((t) => t.url.includes("/field.html"));
  const [result] = await chrome.scripting.executeScript({target: {tabId: tab.id}, args: [reset],
    func: (reset) => { const ns = globalThis.__webctx; if (!ns) return null;
      const out = {...ns.cost};
      if (reset) Object.assign(ns.cost, {ms: 0, runs: 0, maxMs: 0});
      return out; }});
  return result?.result ?? null;
}"""
"""Run in the service worker: the content scripts' handler time in the field page (and reset it)."""
PAGE = """<!doctype html><html lang=en><title>field</title><body>
<textarea id=big cols=80 rows=20 aria-label="Big field"></textarea>
<script>const n = SIZE;
document.getElementById("big").value = "lorem ipsum ".repeat(Math.ceil(n / 12)).slice(0, n);</script>
</body></html>"""


def unthrottled_copy(dest: Path) -> Path:
    """A copy of the extension whose large-field throttle never engages (the behaviour before it)."""
    from native_host import paths

    shutil.copytree(paths.extension_dir(), dest, ignore=shutil.ignore_patterns("test"))
    report = dest / "content" / "report.js"
    text = report.read_text(encoding="utf-8")
    assert "const LARGE_FIELD_CHARS = 4096;" in text
    report.write_text(text.replace("const LARGE_FIELD_CHARS = 4096;", "const LARGE_FIELD_CHARS = Infinity;"))
    return dest


def find_textbox(element: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first element with subrole `textbox` at or below `element`, depth first."""
    return next((e for e in walk(element) if e.get("subrole") == "textbox"), None)


async def measure_build(args: argparse.Namespace, name: str, extension: Path, base: str) -> dict[str, Any]:
    """Type into the big field with `extension` loaded; return this build's row."""
    from playwright.async_api import async_playwright

    from native_host import paths
    from native_host.host import HostClient

    original = paths.extension_dir
    paths.extension_dir = lambda: extension  # bench.browser.launched_browser loads this folder
    try:
        async with cdp_browser(args.browser, Path(tempfile.mkdtemp())) as running:
            descriptor, port = running.descriptor, running.devtools_port
            host = HostClient(folder=paths.providers_dir(), timeout_s=10.0)
            async with async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                page = await browser.contexts[0].new_page()
                [worker] = [
                    w for w in browser.contexts[0].service_workers
                    if w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
                ]  # fmt: skip
                await page.goto(f"{base}/field.html")
                await page.bring_to_front()
                async with asyncio.timeout(10):
                    while await worker.evaluate(COST_JS, True) is None:
                        await asyncio.sleep(0.05)
                # A passage selected earlier in the field (its offsets then follow every edit),
                # then the caret at the end.
                # Made by the page from its handler of a real key press (a script's selection
                # counts only right after the user's input, docs/internals/protocol.md).
                await page.evaluate(
                    "() => addEventListener('keydown', () => { const f = document.getElementById('big');"
                    " f.focus(); f.setSelectionRange(10, 20); }, {once: true})"
                )
                await page.keyboard.press("Shift")
                await asyncio.sleep(0.3)
                await page.evaluate(
                    "() => { const f = document.getElementById('big');"
                    " f.setSelectionRange(f.value.length, f.value.length); }"
                )
                await asyncio.sleep(0.5)
                await worker.evaluate(COST_JS, True)
                await page.keyboard.type("x" * args.keys, delay=args.interval_ms)
                answer = (await host.current(descriptor.pid)).raw  # at once: no settling time
                await asyncio.sleep(0.5)  # let the trailing pushes run
                cost = await worker.evaluate(COST_JS, False)
                await browser.close()
        box = find_textbox(answer["root"]) or {}
        length = (box.get("attributes") or {}).get("length")
        return {
            "build": name,
            "keys": args.keys,
            "ms_per_key": round(cost["ms"] / args.keys, 3),
            "handler_runs": cost["runs"],
            "longest_run_ms": round(cost["maxMs"], 3),
            "current_length": length,
            "current_fresh": length == args.size + args.keys,
        }
    finally:
        paths.extension_dir = original


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from native_host import paths

    folder = Path(tempfile.mkdtemp())
    (folder / "field.html").write_text(PAGE.replace("SIZE", str(args.size)))
    report: dict[str, Any] = {
        "size": args.size,
        "interval_ms": args.interval_ms,
        "load_average": os.getloadavg(),
    }
    rows = []
    unthrottled = unthrottled_copy(folder / "unthrottled")
    async with two_origins(folder) as (base, _):
        for _ in range(args.rounds):  # alternate, so the machine's changing load hits both alike
            rows.append(await measure_build(args, "throttled", paths.extension_dir(), base))
            rows.append(await measure_build(args, "unthrottled", unthrottled, base))
    report["rows"] = rows
    report["median_ms_per_key"] = {
        name: statistics.median(r["ms_per_key"] for r in rows if r["build"] == name)
        for name in ("throttled", "unthrottled")
    }
    report["load_average_after"] = os.getloadavg()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--interval-ms", type=int, default=50)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each build, alternating")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--browser", help="the Chromium-family browser (default: as `webctx demo` finds it)")
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    report = asyncio.run(measure(args))
    if not args.json:
        for row in report["rows"]:
            print(
                f"{row['build']:<12} {row['ms_per_key']:8.3f} ms/key  longest {row['longest_run_ms']:7.3f} ms"
                f"  runs {row['handler_runs']:4}  current length {row['current_length']}"
                f" fresh={row['current_fresh']}"
            )
    print(json.dumps(report))


if __name__ == "__main__":
    run_main(main, __file__)
