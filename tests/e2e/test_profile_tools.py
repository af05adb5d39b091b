"""A follower profile's page tools and `location` through the browser's one provider (design.md §3, §5;
issue "One provider per browser": "page tools from every profile are callable").

One headed Chromium on a private Xvfb display with the extension in two profiles of one
user-data-dir (as test_profiles.py); the second profile's tab is the tools page (polyfill). The
desktop side is the reference host client over real HTTP; the second profile's page is driven
through the DevTools HTTP endpoint (Playwright sees only the first profile).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import types

from native_host import paths
from native_host.host import HostClient, ProviderSession
from tests.e2e.devtools_http import DEVTOOLS_PORT_ARG, DevTools
from tests.e2e.page_tools_harness import TOOLS_PAGE, watch_list_changed
from tests.e2e.test_profiles import display, read_descriptors, two_profiles, until  # noqa: F401
from tests.e2e.tree import walk

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")

FOLLOWER_TOOL = re.compile(r"p\d+f\d+_(.+)")
"""The provider's name of a follower's page tool (follower_tools.py): `p<n>f<k>_<toolName>`."""

REGISTER = """name => document.modelContext.registerTool(
  { name, description: "Added by the test.", execute: () => name })"""


def follower_tools(tools: list[types.Tool]) -> dict[str, types.Tool]:
    """The follower's page tools by their original name."""
    out = {}
    for tool in tools:
        match = FOLLOWER_TOOL.fullmatch(tool.name)
        if match and tool.meta and str(tool.meta.get("pageId", "")).startswith("f"):
            out[str(tool.meta["toolName"])] = tool
    return out


async def tools_until(session: ProviderSession, wanted: str, present: bool = True) -> dict[str, types.Tool]:
    async with asyncio.timeout(15):
        while True:
            ours = follower_tools(await session.list_tools())
            if (wanted in ours) == present:
                return ours
            await asyncio.sleep(0.1)


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_a_follower_profiles_page_tools_and_location_go_through_the_provider(
    tmp_path: Path, display: str, page_server: str  # noqa: F811
) -> None:
    providers = paths.providers_dir()
    udd = tmp_path / "udd"
    async with two_profiles(udd, display, f"{page_server}{TOOLS_PAGE}", (DEVTOOLS_PORT_ARG,)) as (pid, hosts):
        devtools = DevTools(udd)
        target = await devtools.page(TOOLS_PAGE)
        await devtools.wait_for(target, "window.registered === true || window.registerError")
        [descriptor] = read_descriptors(providers)
        assert descriptor.listener_pid == hosts[0], "the first profile's host publishes"
        host = HostClient(folder=providers, timeout_s=15)
        async with host.session(pid) as session:
            # The second profile's page tools are in the provider's tools/list, names unique.
            ours = await tools_until(session, "add")
            names = [t.name for t in await session.list_tools()]
            assert len(names) == len(set(names))
            add = ours["add"]
            assert add.meta is not None and str(add.meta["pageId"]).startswith("f")
            result = await session.call_tool(add.name, {"a": 2, "b": 3})
            assert not result.is_error and result.structured_content == {"result": 5}
            invalid = await session.call_tool(add.name, {"a": "two", "b": 3})
            assert invalid.is_error and "`a`" in text_of(invalid)

            # Each profile's popup tells the truth: the follower's says it goes through the provider.
            assert await popup_statuses(devtools) == [
                {"port": endpoint_port(descriptor.endpoint)},
                {"port": endpoint_port(descriptor.endpoint), "viaProvider": True},
            ]

            # A call the client cancels aborts the follower page's signal.
            with anyio.move_on_after(5) as scope:
                call = asyncio.ensure_future(session.call_tool(ours["slow"].name, {}))
                await devtools.wait_for(target, "window.events.includes('slow:started')")
                call.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await call
            assert not scope.cancelled_caught
            await devtools.wait_for(target, "window.events.includes('slow:aborted')")
            assert text_of(await session.call_tool(ours["greet"].name, {})) == "hello from the page"
            took = []
            for _ in range(20):
                started = time.monotonic()
                await session.call_tool(ours["greet"].name, {})
                took.append((time.monotonic() - started) * 1000)
            print(f"\nfollower page-tool call (greet), 20 calls: p50 {sorted(took)[10]:.1f} ms, "
                  f"max {max(took):.1f} ms")

            # `location` of a Text selected in the follower's page: visible, with rects.
            await devtools.drag_across(target, "document.querySelector('h1')")
            text_id = await follower_text_id(session)
            # The merged tree lists the follower Page's tools by the provider's names.
            pages = [e for e in walk((await session.current()).raw["root"]) if e["id"] == add.meta["pageId"]]
            assert add.name in pages[0]["attributes"]["tools"]
            answer = await session.location(text_id)
            assert answer.state == "visible" and answer.rects, answer
            assert all(r.w > 0 and r.h > 0 for r in answer.rects)
            assert answer.window is not None, "the OS window, found from the bounds as usual"
            print(f"\nfollower location: {answer.state}, window {answer.window}, {answer.rects[0]}")

        # Changes of the follower's tools reach clients of both eras as list_changed; then the
        # follower's tab closing takes its tools out of tools/list.
        async with (
            watch_list_changed(descriptor, legacy=True) as legacy,
            watch_list_changed(descriptor, legacy=False) as listen,
        ):
            latencies = await toolchange_latencies(devtools, target, legacy.wall_times, listen.wall_times)
            print(f"follower toolchange → list_changed (both eras), ms: {[round(x) for x in latencies]}")
            assert sorted(latencies)[len(latencies) // 2] < 100, latencies
            count = len(listen.times), len(legacy.times)
            closed_at = time.monotonic() * 1000
            await devtools.close(target)
            close_ms = await listen.next_after(count[0], timeout_s=5) - closed_at
            await legacy.next_after(count[1], timeout_s=5)
            print(f"follower tab closed → list_changed {close_ms:.0f} ms")
        async with host.session(pid) as session:
            assert "add" not in await tools_until(session, "add", present=False)

        # The provider's host goes away: the second profile's host takes over and its popup shows
        # its own port; the first profile's new host follows it and says so.
        os.kill(hosts[0], signal.SIGTERM)
        second = [hosts[1]]
        await until(lambda: [d.listener_pid for d in read_descriptors(providers)] == second, 10, "takeover")
        [taken] = read_descriptors(providers)
        port = endpoint_port(taken.endpoint)
        async with asyncio.timeout(15):
            while await popup_statuses(devtools) != [{"port": port}, {"port": port, "viaProvider": True}]:
                await asyncio.sleep(0.2)


def endpoint_port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


async def popup_statuses(devtools: DevTools) -> list[dict[str, Any]]:
    """What each profile's worker stored for its popup (`port`, `viaProvider`), sorted."""
    async with asyncio.timeout(10):
        while True:
            workers = [w for w in await devtools.pages("service_worker") if "chrome-extension://" in w["url"]]
            statuses = [
                await devtools.evaluate(w, """chrome.storage.session.get("status").then(({status}) =>
                    ({port: status.port, viaProvider: status.viaProvider}))""")
                for w in workers
            ]
            found = sorted(
                ({k: v for k, v in s.items() if v is not None} for s in statuses if s),
                key=lambda s: len(s),
            )
            if len(found) == 2 and all(s.get("port") for s in found):
                return found
            await asyncio.sleep(0.2)


async def follower_text_id(session: ProviderSession) -> str:
    """The id of the selected Text in a follower's window (`f<k>-…`), once the tree shows it."""
    async with asyncio.timeout(10):
        while True:
            raw: dict[str, Any] = (await session.current()).raw
            texts = [
                e for w in raw["root"].get("children", []) if w["id"].startswith("f")
                for e in walk(w) if e.get("role") == "Text"
            ]
            if texts:
                return str(texts[0]["id"])
            await asyncio.sleep(0.1)


async def toolchange_latencies(
    devtools: DevTools, target: dict[str, Any], legacy: list[float], listen: list[float], samples: int = 7
) -> list[float]:
    """Register `samples` tools in the follower's page, one at a time; each time, the ms from the
    page's registerTool until both eras' clients heard list_changed (the later of the two).
    `legacy` and `listen` are `ChangeWatcher.wall_times`: ms since the epoch, the clock of the
    page's `Date.now()`, so the test's DevTools round trip doesn't count against the 100 ms."""
    async with devtools.attach(target) as evaluate:
        async with asyncio.timeout(10):  # first, both streams are up (a 2025 GET stream opens lazily)
            for warmup in range(100):
                await evaluate(f"({REGISTER})('warmup_{warmup}'), true")
                await asyncio.sleep(0.3)
                if legacy and listen:
                    break
        latencies = []
        for i in range(samples):
            await asyncio.sleep(0.15)  # past the previous change's coalescing window
            before = len(legacy), len(listen)
            stamped = f"(() => {{ const at = Date.now(); ({REGISTER})('follower_added_{i}'); return at; }})()"
            started = await evaluate(stamped)
            async with asyncio.timeout(5):
                while len(legacy) <= before[0] or len(listen) <= before[1]:
                    await asyncio.sleep(0.002)
            latencies.append(max(legacy[before[0]], listen[before[1]]) - started)
    return latencies
