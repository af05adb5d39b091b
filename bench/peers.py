"""webctx beside Chrome DevTools MCP, the fastest peer, on the same Chromium, page and MCP client.

What it measures (ms: median and p99 by nearest rank, bench/stats.py; every figure also as a ratio
to DevTools MCP measured in the same run)
----------------------------------------------------------------------------------------------
- **page-tool call**: the bench page's WebMCP tool (`execute: () => 42`): DevTools MCP's
  `execute_webmcp_tool`; webctx's exposed page tool over its HTTP endpoint (`http`) and through
  `webctx mcp` (`bridge`); the **floor**, bench/floor.py's bare MCP server answering a constant
  page tool. Blocks of 10 calls go round the targets, so other load hits them alike.
- **context**: webctx's `current` against DevTools MCP's `take_snapshot` (its answer to "what is
  on the page"; it does not mark the selection): time and bytes handed to the client.
- **hops of a page-tool call** (webctx): bridge - http (the stdio bridge's hop), http - floor - port
  RTT (the native host's own work beyond a bare MCP server), and the port RTT (native host →
  worker → content script → page → back, from the host's log).
- **`webctx mcp` spawn → `initialize`** answered, and → the first `tools/list` holding the page tool,
  for fresh processes (raw JSON-RPC lines on stdio, a browser running).
- **cold start**: DevTools MCP spawn → first page-tool result (it starts its browser); webctx browser
  launch → first page-tool result over HTTP, with its phases: native host started (browser start,
  service worker, `connectNative`, the interpreter; the host log's own clock), `mcp` imported,
  provider ready (endpoint listening), descriptor written (its mtime), page tool listed, first
  `current`, first page-tool result.
- **RSS** (MiB): DevTools MCP's node process; webctx's native host and `webctx mcp`.

`--against REV` measures the webctx of another commit (a temporary git worktree) in the same run,
interleaved, beside this checkout's. Targets (ratios to DevTools MCP): page-tool call through the
bridge ≤ 1.0x; `current` through the bridge ≤ 0.5x the snapshot's time and ≤ 10 % of its bytes;
cold start ≤ 1.0x; bridge spawn → `initialize` ≤ 200 ms; host RSS ≤ 80 MiB. Nothing touches the
user's files (bench/environment.py); DevTools MCP is installed into `.cache/bench-peers/`.

    .venv/bin/python bench/peers.py [--calls 200] [--cold 3] [--spawns 10] [--against REV] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import psutil

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import host_log  # noqa: E402
from bench.against import checkout  # noqa: E402
from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.floor import PAGE_TOOL_NAME, floor_provider  # noqa: E402
from bench.peer_targets import (  # noqa: E402
    Checkout,
    WebctxBrowser,
    bench_page,
    bridge_client,
    bridge_command,
    devtools_mcp,
    http_client,
    page_tool_name,
    result_bytes,
    webctx_browser,
)
from bench.stats import Summary  # noqa: E402
from tests.support.asgi import INITIALIZE  # noqa: E402

BLOCK: Final = 10
WARMUP: Final = 20
Call = Callable[[], Awaitable[Any]]


def figures(ms: list[float]) -> dict[str, float]:
    """Median and p99 of `ms`, rounded to 0.01 ms, and the count."""
    s = Summary.of_ms(ms)
    return {"median": round(s.median, 2), "p99": round(s.p99, 2), "n": s.n}


async def interleaved(targets: dict[str, Call], calls: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Time `calls` calls of each target in blocks of BLOCK going round the targets, after WARMUP
    each; return the times (ms) and the bytes of each target's last answer."""
    sizes: dict[str, int] = {}
    for name, call in targets.items():
        for _ in range(WARMUP):
            sizes[name] = result_bytes(await call())
    times: dict[str, list[float]] = {name: [] for name in targets}
    while min(len(t) for t in times.values()) < calls:
        for name, call in targets.items():
            for _ in range(BLOCK):
                t0 = time.perf_counter()
                await call()
                times[name].append((time.perf_counter() - t0) * 1e3)
    return times, sizes


def spawned_pid(env_marker: str, marker: str) -> int:
    """The pid of this process's descendant running `marker` with `env_marker` in its
    environment (0: none)."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if marker in " ".join(child.cmdline()) and env_marker.partition("=")[2] == child.environ().get(
                env_marker.partition("=")[0]
            ):
                return child.pid
    return 0


def rss_mib(pid: int) -> float:
    """Resident memory of `pid` in MiB (0 when it is gone)."""
    try:
        return round(psutil.Process(pid).memory_info().rss / 2**20, 1)
    except psutil.Error:
        return 0.0


async def bridge_spawns(browser: WebctxBrowser, spawns: int) -> dict[str, list[float]]:
    """Fresh `webctx mcp` processes of the browser's checkout, one after another: spawn →
    `initialize` answered, and → the first `tools/list` holding the page tool (ms)."""
    init_ms: list[float] = []
    tools_ms: list[float] = []
    for _ in range(spawns):
        t0 = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            *bridge_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=browser.env,
            cwd=browser.checkout.root,  # `-m` puts the working folder first on sys.path
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            await process.stdin.drain()
            await asyncio.wait_for(process.stdout.readline(), 30)
            init_ms.append((time.perf_counter() - t0) * 1e3)
            process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            for attempt in range(2, 200):
                process.stdin.write(
                    json.dumps({"jsonrpc": "2.0", "id": attempt, "method": "tools/list"}).encode() + b"\n"
                )
                await process.stdin.drain()
                line = b""
                while b'"id":' + str(attempt).encode() not in line.replace(b" ", b""):
                    line = await asyncio.wait_for(process.stdout.readline(), 30)
                if b'"toolName":"const"' in line.replace(b" ", b""):
                    tools_ms.append((time.perf_counter() - t0) * 1e3)
                    break
                await asyncio.sleep(0.01)
        finally:
            process.stdin.close()
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            await process.wait()
    return {"initialize": init_ms, "tools_list": tools_ms}


async def cold_devtools(url: str) -> float:
    """DevTools MCP spawn → first page-tool result, in ms (it starts its own browser)."""
    t0 = time.perf_counter()
    async with devtools_mcp(url, dict(os.environ)) as peer:
        await peer.call_tool()
        return (time.perf_counter() - t0) * 1e3


def host_phases(log: Path, offset: int, host_pid: int, launched: float) -> dict[str, float]:
    """The native host's start, from its log after `offset`, as ms after `launched` (a
    time.time()): each line's own timestamp (the log's clock, 1 ms); the process start is the
    "provider ready" line's time less the ms since start it logs."""
    import re
    from datetime import datetime

    text, _ = host_log.read_from(log, offset)
    phases: dict[str, float] = {}
    for label, message in (
        ("native host logging", r"native host started"),
        ("mcp imported", r"mcp imported (\d+) ms"),
        ("provider ready", r"provider ready (\d+) ms"),
    ):
        found = re.search(rf"^(\S+ \S+) {host_pid} INFO [\w.]+: {message}", text, re.MULTILINE)
        if found:
            at = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            phases[label] = (at - launched) * 1e3
            if label == "provider ready":
                phases["native host spawned"] = phases[label] - float(found.group(2))
    return phases


async def cold_webctx(checkout: Checkout, url: str, root: Path) -> dict[str, float]:
    """webctx browser launch → first page-tool result over HTTP, with its phases (ms from launch)."""
    from native_host import paths

    log = paths.log_dir() / "native-host.log"
    offset = host_log.end_offset(log)
    async with webctx_browser(checkout, url, root, dict(os.environ)) as browser:
        launched = browser.launched_wall
        descriptor = browser.descriptor
        phases: dict[str, float] = {"descriptor written": (descriptor["_mtime"] - launched) * 1e3}
        host_pid = int(descriptor["listenerPid"])
        phases.update(host_phases(log, offset, host_pid, launched))
        async with http_client(descriptor) as client:
            name = await page_tool_name(client)
            phases["page tool listed"] = (time.time() - launched) * 1e3
            await client.call_tool("current", {})
            phases["first current"] = (time.time() - launched) * 1e3
            await client.call_tool(name, {})
            phases["first page-tool result"] = (time.time() - launched) * 1e3
    return {k: round(v, 1) for k, v in phases.items()}


@contextlib.contextmanager
def against_checkout(rev: str | None, root: Path) -> Any:
    """A temporary git worktree at `rev` (bench/against.py; None: no second checkout; `root`
    is unused)."""
    if rev is None:
        yield None
        return
    with checkout(rev) as folder:
        yield Checkout(rev[:10], folder)


@contextlib.asynccontextmanager
async def webctx_side(checkout: Checkout, url: str, root: Path) -> AsyncIterator[dict[str, Any]]:
    """A running webctx of `checkout` with an HTTP and a bridge client, the page tool found."""
    async with (
        webctx_browser(checkout, url, root, dict(os.environ)) as browser,
        http_client(browser.descriptor) as http,
        bridge_client(browser) as bridge,
    ):
        await page_tool_name(http)  # the page has loaded
        await browser.select_paragraph()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                while '"selected":true' not in json.dumps(
                    (await http.call_tool("current", {})).structured_content, separators=(",", ":")
                ):
                    await asyncio.sleep(0.05)
        yield {
            "browser": browser,
            "http": http,
            "bridge": bridge,
            "http_tool": await page_tool_name(http),
            "bridge_tool": await page_tool_name(bridge),
            "bridge_pid": spawned_pid(f"PYTHONPATH={checkout.root}", "native_host.cli.main mcp"),
        }


async def measure(args: argparse.Namespace, root: Path, url: str) -> dict[str, Any]:
    """Every figure of the module docstring, for this checkout and the `--against` one."""
    report: dict[str, Any] = {"load_before": load_average(), "calls": args.calls}
    with against_checkout(args.against, root) as other:
        checkouts = [Checkout("this", REPO), *([other] if other else [])]
        async with contextlib.AsyncExitStack() as stack:
            progress("starting Chrome DevTools MCP and the webctx browser(s)")
            peer = await stack.enter_async_context(devtools_mcp(url, dict(os.environ)))
            sides = {c.name: await stack.enter_async_context(webctx_side(c, url, root)) for c in checkouts}
            floor_descriptor = stack.enter_context(floor_provider(page_tool=True))
            floor = await stack.enter_async_context(
                http_client({"endpoint": floor_descriptor.endpoint, "token": floor_descriptor.token})
            )
            from native_host import paths

            log = paths.log_dir() / "native-host.log"
            tools: dict[str, Call] = {
                "devtools-mcp": peer.call_tool,
                "floor": functools.partial(floor.call_tool, PAGE_TOOL_NAME, {}),
            }
            context: dict[str, Call] = {"devtools-mcp snapshot": peer.context}
            for name, side in sides.items():
                for via in ("http", "bridge"):
                    client, tool = side[via], side[f"{via}_tool"]
                    tools[f"{name} {via}"] = functools.partial(client.call_tool, tool, {})
                    context[f"{name} {via} current"] = functools.partial(client.call_tool, "current", {})
            offsets = {n: host_log.end_offset(log) for n in sides}
            progress(f"page-tool calls: {args.calls} per target, {len(tools)} targets")
            times, _ = await interleaved(tools, args.calls)
            report["page_tool"] = {n: figures(t) for n, t in times.items()}
            for name, side in sides.items():
                rtts, _ = host_log.read_port_rtts(
                    log, offsets[name], int(side["browser"].descriptor["listenerPid"]), ("tools.call",)
                )
                report.setdefault("port_rtt", {})[name] = figures(rtts) if rtts else None
            progress("context: current against take_snapshot")
            times, sizes = await interleaved(context, args.calls)
            report["context"] = {n: {**figures(t), "bytes": sizes[n]} for n, t in times.items()}
            report["rss_mib"] = {"devtools-mcp": rss_mib(peer.pid)}
            for name, side in sides.items():
                report["rss_mib"][f"{name} native host"] = rss_mib(
                    int(side["browser"].descriptor["listenerPid"])
                )
                report["rss_mib"][f"{name} webctx mcp"] = rss_mib(side["bridge_pid"])
            progress(f"webctx mcp: {args.spawns} fresh processes per checkout")
            for name, side in sides.items():
                spawned = await bridge_spawns(side["browser"], args.spawns)
                report.setdefault("bridge_start", {})[name] = {k: figures(v) for k, v in spawned.items() if v}
        progress(f"cold start: {args.cold} rounds, alternating")
        cold: dict[str, list[Any]] = {"devtools-mcp": [], **{c.name: [] for c in checkouts}}
        for _ in range(args.cold):
            cold["devtools-mcp"].append(await cold_devtools(url))
            for checkout in checkouts:
                cold[checkout.name].append(await cold_webctx(checkout, url, root))
        report["cold_start"] = {
            "devtools-mcp": figures(cold["devtools-mcp"]),
            **{
                c.name: {
                    phase: figures([r[phase] for r in cold[c.name] if phase in r])
                    for phase in cold[c.name][0]
                }
                for c in checkouts
            },
        }
    report["load_after"] = load_average()
    return report


def ratio(value: float, peer: float) -> str:
    return f"{value / peer:.2f}x" if peer else "—"


def print_table(report: dict[str, Any]) -> None:
    """The figures as a table on stdout, each beside its ratio to DevTools MCP."""
    tools = report["page_tool"]
    peer = tools["devtools-mcp"]["median"]
    print(f"page-tool call (ms, median / p99; ratio to DevTools MCP's {peer:.2f} ms)")
    for name, f in tools.items():
        print(f"  {name:28} {f['median']:8.2f} / {f['p99']:8.2f}   {ratio(f['median'], peer)}")
    for name, f in (report.get("port_rtt") or {}).items():
        if f:
            http, bridge, floor = (
                tools[f"{name} http"]["median"],
                tools[f"{name} bridge"]["median"],
                tools["floor"]["median"],
            )
            print(
                f"  {name} hops: bridge {bridge - http:.2f},"
                f" host beyond the floor {http - floor - f['median']:.2f},"
                f" native port → page → back {f['median']:.2f}, floor {floor:.2f}"
            )
    snap = report["context"]["devtools-mcp snapshot"]
    print(
        "context (ms, median / p99, bytes; ratios to take_snapshot's"
        f" {snap['median']:.2f} ms, {snap['bytes']} B)"
    )
    for name, f in report["context"].items():
        print(
            f"  {name:28} {f['median']:8.2f} / {f['p99']:8.2f} {f['bytes']:8} B   "
            f"{ratio(f['median'], snap['median'])} time, {f['bytes'] / snap['bytes']:.0%} bytes"
        )
    print("webctx mcp spawn (ms, median / p99)")
    for name, phases in report["bridge_start"].items():
        for phase, f in phases.items():
            print(f"  {name} → {phase:24} {f['median']:8.1f} / {f['p99']:8.1f}")
    cold = report["cold_start"]
    peer_cold = cold["devtools-mcp"]["median"]
    print(
        f"cold start (ms, median of {cold['devtools-mcp']['n']};"
        f" DevTools MCP spawn → first page-tool result {peer_cold:.0f})"
    )
    for name, phases in cold.items():
        if name == "devtools-mcp":
            continue
        for phase, f in sorted(phases.items(), key=lambda kv: kv[1]["median"]):
            print(f"  {name} launch → {phase:24} {f['median']:8.0f}   {ratio(f['median'], peer_cold)}")
    print("RSS (MiB): " + ", ".join(f"{k} {v}" for k, v in report["rss_mib"].items()))
    print(f"load average before {report['load_before']}, after {report['load_after']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="timed calls per target (default 200)")
    parser.add_argument("--cold", type=int, default=3, help="cold-start rounds (default 3)")
    parser.add_argument("--spawns", type=int, default=10, help="fresh `webctx mcp` processes (default 10)")
    parser.add_argument("--against", metavar="REV", help="also measure webctx at this commit, interleaved")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    from tests.support.pages import served_pages

    with tempfile.TemporaryDirectory(prefix="webctx-peers-") as tmp:
        root = Path(tmp)
        isolate(root)
        (root / "pages").mkdir()
        (root / "pages" / "peers.html").write_text(bench_page(), encoding="utf-8")
        with served_pages(root / "pages") as base:
            report = asyncio.run(measure(args, root, f"{base}/peers.html"))
    if not args.json:
        print_table(report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
