"""Latency of a page-tool call and of `tools/list`, next to the floor of the MCP stack (design.md §5).

What it measures (times in ms; median and p99 by nearest rank over `--calls` calls after 20 warm-up)
-----------------------------------------------------------------------------------------------
- **floor**: `native_host.provider.http.endpoint.McpEndpoint` in a subprocess (bench/floor.py) whose
  requester answers `tools.call` at once with `{"ok": true, "text": "42"}`: a constant page tool
  on a bare server (HTTP + MCP + input check + result mapping, no browser).
- **page tool**: the same call to a real page tool (`execute: () => 42`) in headless Chromium with
  the real extension and native host, in each WebMCP mode (`native`: `--enable-features=WebMCP`;
  `polyfill`: the extension's main-world polyfill). On top of the floor it adds the native port
  (host → worker and back), the document's tools port (worker → content script and back; a
  `chrome.runtime.Port`, docs/internals/extension.md), and `executeTool` (native) or the postMessage
  bridge (polyfill).
- **in page**: `document.modelContext.executeTool(tool, {})` timed inside the page itself
  (`performance.now()`), the cost a page pays without webctx.
- **tools/list (50)**: `tools/list` with 50 page tools of the visible page exposed (+ `current`).

Every call goes through the SDK client over real HTTP with the bearer token (2026-07-28 era).
The floor's and the browser's calls alternate in blocks of 10 so that other load hits both alike.
Target (the issue): page-tool median ≤ floor median + 3 ms. The 1-minute load average before and
after each mode is printed with it: on a shared 2-vCPU machine the figures mean little without
it. Nothing touches the real user's files: HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a
temp folder.

    .venv/bin/python bench/page_tools_latency.py [--calls 300] [--modes native,polyfill] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.against import run_main  # noqa: E402
from bench.floor import PAGE_TOOL_NAME, floor_provider  # noqa: E402
from bench.stats import Summary  # noqa: E402
from tests.e2e.page_tools_harness import launch  # noqa: E402
from tests.support.pages import served_pages  # noqa: E402

WARMUP = 20
BLOCK_CALLS = 10

PAGE = """<!doctype html><meta charset="utf-8"><title>bench</title><script>
const mc = document.modelContext;
window.ready = Promise.all([
  mc.registerTool({name: "const", description: "A constant.", execute: () => 42}),
  ...Array.from({length: 49}, (_, i) => mc.registerTool({
    name: `tool_${i}`, description: `Tool number ${i}.`,
    inputSchema: {type: "object", properties: {x: {type: "number"}}}, execute: ({x}) => x})),
]).then(() => { window.registered = true; });
</script>"""

IN_PAGE = """async (n) => {
  const mc = document.modelContext;
  const tool = (await mc.getTools()).find((t) => t.name === "const");
  for (let i = 0; i < 20; i++) await mc.executeTool(tool, {});
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await mc.executeTool(tool, {});
    times.push(performance.now() - t0);
  }
  return times;
}"""


def stats(times_ms: list[float]) -> dict[str, float]:
    """Median and p99 (nearest rank, bench/stats.py) of `times_ms`, in ms, rounded to 0.01; `n`."""
    summary = Summary.of_ms(times_ms)
    return {"median": round(summary.median, 2), "p99": round(summary.p99, 2), "n": summary.n}


@contextlib.asynccontextmanager
async def sdk_client(url: str, token: str) -> AsyncIterator[Client]:
    """An SDK client over real HTTP with the bearer token (2026-07-28 era)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http,
        Client(streamable_http_client(url, http_client=http), mode="auto", read_timeout_seconds=30) as client,
    ):
        yield client


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    """How long awaiting `call()` takes, in ms."""
    t0 = time.perf_counter()
    await call()
    return (time.perf_counter() - t0) * 1000


async def run_mode(mode: str, calls: int, floor: Client, root: Path, base: str) -> dict[str, Any]:
    """Measure one WebMCP mode (a fresh browser) against the floor; return the figures."""
    load_before = os.getloadavg()[0]
    async with launch(mode, root / mode) as tb:  # type: ignore[arg-type]
        page = await tb.running.new_page(f"{base}/bench.html")
        await page.wait_for_function("window.registered === true", timeout=10_000)
        async with sdk_client(tb.descriptor.endpoint, tb.descriptor.token) as client:
            name = ""
            async with asyncio.timeout(10):
                while not name:
                    tools = (await client.list_tools()).tools
                    found = [t.name for t in tools if t.meta and t.meta.get("toolName") == "const"]
                    name = found[0] if found else ""
                    if not name:
                        await asyncio.sleep(0.05)
            for _ in range(WARMUP):
                await client.call_tool(name, {})
                await floor.call_tool(PAGE_TOOL_NAME, {})
            page_times: list[float] = []
            floor_times: list[float] = []
            while len(page_times) < calls:
                for _ in range(BLOCK_CALLS):
                    page_times.append(await timed(functools.partial(client.call_tool, name, {})))
                for _ in range(BLOCK_CALLS):
                    floor_times.append(await timed(functools.partial(floor.call_tool, PAGE_TOOL_NAME, {})))
            list_times = [await timed(client.list_tools) for _ in range(max(50, calls // 3))]
            listed = len((await client.list_tools()).tools)
        in_page = await page.evaluate(IN_PAGE, calls)
        await page.close()
    result: dict[str, Any] = {
        "mode": mode,
        "floor": stats(floor_times),
        "page_tool": stats(page_times),
        "in_page_executeTool": stats(in_page),
        "tools_list": {**stats(list_times), "tools": listed},
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    result["overhead_over_floor_ms"] = round(result["page_tool"]["median"] - result["floor"]["median"], 2)
    return result


def cell(figures: dict[str, float]) -> str:
    """`median / p99` of a stats() dict, for the table."""
    return f"{figures['median']:6.2f} / {figures['p99']:6.2f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--modes", default="native,polyfill")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webctx-bench-") as tmp:
        root = Path(tmp)
        (root / "pages").mkdir()
        (root / "pages" / "bench.html").write_text(PAGE, encoding="utf-8")
        results = []
        with floor_provider(page_tool=True) as floor_descriptor, served_pages(root / "pages") as base:
            async with sdk_client(floor_descriptor.endpoint, floor_descriptor.token) as floor:
                for mode in args.modes.split(","):
                    results.append(await run_mode(mode, args.calls, floor, root, base))
    if not args.json:
        print(
            f"{'mode':9} {'floor':>15} {'page tool':>15} {'overhead':>9} {'in page':>15} {'tools/list':>17}"
        )
        for r in results:
            print(
                f"{r['mode']:9} {cell(r['floor']):>15} {cell(r['page_tool']):>15} "
                f"{r['overhead_over_floor_ms']:9.2f} {cell(r['in_page_executeTool']):>15} "
                f"{cell(r['tools_list']):>15} ({r['tools_list']['tools']} tools)"
                f"  load {r['load_average_1min'][0]:.1f}→{r['load_average_1min'][1]:.1f}"
            )
        print("(median / p99 in ms; overhead = page-tool median - floor median; target <= 3 ms)")
    print(json.dumps({"calls": args.calls, "results": results}))


if __name__ == "__main__":
    run_main(lambda: asyncio.run(main()), __file__)
