"""Harness for the page-tools suite (design.md §5): one browser per WebMCP mode, shared by a module.

`native` starts Chromium with `--enable-features=WebMCP` (the browser's own document.modelContext,
read by the isolated-world content script); `polyfill` starts it without (the extension's
main-world polyfill). Every MCP call goes through the reference host (`host_client`) or the SDK
client over real HTTP with the real token.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
import pytest_asyncio
from mcp import types
from playwright.async_api import Page, async_playwright

from native_host.host import HostClient, ProviderSession
from native_host.protocol.descriptor import Descriptor
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM
from tests.e2e.harness import (
    RunningBrowser,
    end_leftovers,
    install_host_manifest,
    isolated_env,
    seed_profile,
)

Mode = Literal["native", "polyfill"]

DEADLINE_MS = 5000
"""The page-tool deadline the suite's native host runs with (WEBCTX_PAGE_TOOL_DEADLINE_MS): short, so
the never-answering page costs 5 s. Too short for a 32 MiB result at high load (several seconds at
load 20+), so test_page_tools_large.py launches with the product default instead (`launch(deadline_ms=)`)."""

TOOLS_PAGE = "/tools.html"
"""tests/pages/tools.html: tools for every result shape, odd names, errors, slow and never-answering
calls, navigation mid-call."""
SCRIPTS = Path(__file__).parent / "scripts"
"""The page scripts the suite evaluates (the imperative API probe, floods, fake bridge messages)."""
REGISTER = (
    "name => { const at = Date.now();"
    " document.modelContext.registerTool({name, description: 'added', execute: () => name}); return at; }"
)
"""Register one more tool in the page (a `toolchange`); return the page's `Date.now()` just before,
so a list_changed latency is timed from the change itself (`ChangeWatcher.wall_after`), not from
before the test's Playwright round trip to the page."""


@dataclass
class ToolsBrowser:
    """A running browser in one WebMCP mode, its provider descriptor and a reference host."""

    mode: Mode
    running: RunningBrowser
    descriptor: Descriptor
    host: HostClient

    @asynccontextmanager
    async def session(
        self, *, legacy: bool = False, timeout_s: float = 15.0
    ) -> AsyncIterator[ProviderSession]:
        """An MCP session through the reference host (2026-07-28, or 2025-11-25 with `legacy`)."""
        self.host.mode = "legacy" if legacy else "auto"
        self.host.timeout_s = timeout_s
        async with self.host.session(self.descriptor.pid) as session:
            yield session

    async def open(self, path: str, base: str) -> Page:
        """Open `base + path` in a new tab and wait until its tools are registered."""
        page = await self.running.new_page(f"{base}{path}")
        await page.wait_for_function("window.registered === true || window.registerError", timeout=10_000)
        error = await page.evaluate("window.registerError")
        assert not error, error
        return page


def env_for(root: Path, deadline_ms: int | None = DEADLINE_MS) -> dict[str, str]:
    """HOME, XDG_* and CONTEXT_PROVIDERS_DIR under `root` (harness.isolated_env), plus the page-tool
    deadline `deadline_ms` (None: the product default, PAGE_TOOL_DEADLINE_MS)."""
    env = isolated_env(root)
    if deadline_ms is not None:
        env["WEBCTX_PAGE_TOOL_DEADLINE_MS"] = str(deadline_ms)
    return env


@asynccontextmanager
async def launch(
    mode: Mode, root: Path, *, deadline_ms: int | None = DEADLINE_MS, allow_file_access: bool = False
) -> AsyncIterator[ToolsBrowser]:
    """Start Chromium in `mode` with the extension and its native host, whose page-tool deadline is
    `deadline_ms` (None: the product default); yield once the provider descriptor exists.
    `allow_file_access`: the extension may run in file:// pages (harness.seed_profile)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("WEBCTX_PAGE_TOOL_DEADLINE_MS", raising=False)
        for name, value in env_for(root, deadline_ms).items():
            patch.setenv(name, value)
        patch.delenv("XDG_RUNTIME_DIR", raising=False)
        user_data_dir = root / "udd"
        seed_profile(user_data_dir, allow_file_access=allow_file_access)
        install_host_manifest(user_data_dir)
        args = [*BROWSER_ARGS, *(["--enable-features=WebMCP"] if mode == "native" else [])]
        running: RunningBrowser | None = None
        async with async_playwright() as pw:
            context = await pw.chromium.launch_persistent_context(
                str(user_data_dir), executable_path=CHROMIUM, headless=True, args=args, env=dict(os.environ)
            )
            try:
                worker = context.service_workers[0] if context.service_workers else None
                if worker is None:
                    worker = await context.wait_for_event("serviceworker", timeout=15_000)
                running = RunningBrowser(context, worker, user_data_dir, root / "providers")
                descriptor = await running.descriptor()
                host = HostClient(folder=running.providers, timeout_s=15.0)
                yield ToolsBrowser(mode, running, descriptor, host)
            finally:
                await context.close()
        if running is not None:
            end_leftovers(running.host_pids)
        shutil.rmtree(user_data_dir, ignore_errors=True)


async def wait_for_tools(
    session: ProviderSession, predicate: Callable[[list[types.Tool]], bool], *, timeout_s: float = 5.0
) -> list[types.Tool]:
    """Poll `tools/list` until `predicate(tools)` holds (at most `timeout_s`); return the tools."""
    async with asyncio.timeout(timeout_s):
        while True:
            tools = await session.list_tools()
            if predicate(tools):
                return tools
            await asyncio.sleep(0.05)


def page_tools_of(tools: list[types.Tool], url: str) -> dict[str, types.Tool]:
    """The page tools exposed from the page at `url`, by their original WebMCP name."""
    return {
        t.meta["toolName"]: t for t in tools if t.meta and t.meta.get("url") == url and "toolName" in t.meta
    }


def text_of(result: types.CallToolResult) -> str:
    """The text of a result's text blocks, joined."""
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def wait_until(page: Page, expression: str, *, timeout_s: float = 5.0) -> Any:
    """Wait until `expression` is truthy in the page (bounded); return its value."""
    handle = await page.wait_for_function(expression, timeout=timeout_s * 1000)
    return await handle.json_value()


def monotonic_ms() -> float:
    """time.monotonic() in milliseconds."""
    return time.monotonic() * 1000


def wall_ms() -> float:
    """time.time() in milliseconds since the epoch: the clock of JavaScript's `Date.now()` on this
    machine, so a page's or the worker's `Date.now()` and a client's receive time compare to ~1 ms."""
    return time.time() * 1000


@dataclass
class ChangeWatcher:
    """Arrival times of `notifications/tools/list_changed` on one SDK client: `times` in monotonic
    ms, `wall_times` in ms since the epoch (to compare with a `Date.now()` taken in the browser)."""

    times: list[float]
    arrived: asyncio.Event
    wall_times: list[float] = field(default_factory=list)

    async def next_after(self, count: int, *, timeout_s: float = 3.0) -> float:
        """Wait until more than `count` notifications arrived; return the arrival time of number
        `count` (0-based), monotonic ms."""
        await self._wait_past(count, timeout_s)
        return self.times[count]

    async def wall_after(self, count: int, *, timeout_s: float = 3.0) -> float:
        """As `next_after`, but the arrival time in ms since the epoch (`wall_ms`)."""
        await self._wait_past(count, timeout_s)
        return self.wall_times[count]

    async def _wait_past(self, count: int, timeout_s: float) -> None:
        async with asyncio.timeout(timeout_s):
            while len(self.times) <= count:
                self.arrived.clear()
                await self.arrived.wait()


@asynccontextmanager
async def watch_list_changed(
    descriptor: Descriptor, *, legacy: bool, kind: Literal["tools", "resources"] = "tools"
) -> AsyncIterator[ChangeWatcher]:
    """An SDK client over real HTTP that records `notifications/<kind>/list_changed`: on its
    session's GET stream (2025-11-25, `legacy`) or on a `subscriptions/listen` stream (2026-07-28)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    watcher = ChangeWatcher([], asyncio.Event())

    def record() -> None:
        watcher.wall_times.append(wall_ms())
        watcher.times.append(monotonic_ms())
        watcher.arrived.set()

    wanted = types.ToolListChangedNotification if kind == "tools" else types.ResourceListChangedNotification

    async def on_message(message: Any) -> None:
        if isinstance(message, wanted):
            record()

    headers = {"Authorization": f"Bearer {descriptor.token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(10.0, read=300.0)) as http,
        Client(
            streamable_http_client(descriptor.endpoint, http_client=http),
            mode="legacy" if legacy else "auto",
            message_handler=on_message if legacy else None,
            read_timeout_seconds=10,
        ) as client,
    ):
        if legacy:
            yield watcher
            return
        async with client.listen(
            tools_list_changed=kind == "tools", resources_list_changed=kind == "resources"
        ) as subscription:

            async def pump() -> None:
                async for _event in subscription:
                    record()

            task = asyncio.create_task(pump())
            try:
                yield watcher
            finally:
                task.cancel()


def browser_per_mode(prefix: str, *, deadline_ms: int | None = DEADLINE_MS) -> Any:
    """A module-scoped fixture yielding one ToolsBrowser per WebMCP mode (native, then polyfill),
    its folders under a `<prefix>-<mode>` temp folder. Use as `tb = browser_per_mode("name")`."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module", params=["native", "polyfill"])
    async def tb(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> AsyncIterator[ToolsBrowser]:
        mode: Mode = request.param
        async with launch(
            mode, tmp_path_factory.mktemp(f"{prefix}-{mode}"), deadline_ms=deadline_ms
        ) as running:
            yield running

    return tb


def page_in_new_tab(path: str) -> Any:
    """A function-scoped fixture (module loop) opening `path` of the page server in a new tab of the
    module's `tb`, its tools registered; the tab is closed after the test.
    Use as `tools_page = page_in_new_tab("/tools.html")`."""

    @pytest_asyncio.fixture(loop_scope="module")
    async def opened(tb: ToolsBrowser, page_server: str) -> AsyncIterator[Page]:
        page = await tb.open(path, page_server)
        try:
            yield page
        finally:
            await page.close()

    return opened
