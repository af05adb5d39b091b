"""`webctx mcp` launched by the MCP SDK's stdio client against a real browser provider (issue #8).

The bridge is a real subprocess (`webctx mcp`) that inherits this test's HOME, XDG_* and
CONTEXT_PROVIDERS_DIR, so it finds exactly the browser this test started.

A fresh bridge's first and only `tools/list` lists what the provider has, and
`webctx mcp --check` names the running browser.

list_changed is checked where the bridge itself sends it (the provider goes away, a new one
replaces it) and where it relays the provider's: a tab switch that changes the visible page's
tools (page tools, design.md §5).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from native_host.host import HostClient
from native_host.protocol.resources import parse_page_uri
from native_host.stdio.server import RESOURCE_URI, SERVER_INSTRUCTIONS, TOOL_NAME_PATTERN
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser
from tests.e2e.page_tools_harness import TOOLS_PAGE, wait_for_tools
from tests.e2e.tree import find_all

WEBCTX = Path(sys.executable).with_name("webctx")
CLIENT_TIME_LIMIT_S = 8.0
"""The MCP client's per-request time limit in these tests (`read_timeout_seconds`)."""

ENV_NAMES = ("HOME", "CONTEXT_PROVIDERS_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
             "XDG_CACHE_HOME", "PATH")


@asynccontextmanager
async def bridge_client(mode: Literal["legacy", "auto"]) -> AsyncIterator[tuple[Client, asyncio.Queue[str]]]:
    """Launch `webctx mcp` through the SDK's stdio client; yield it and a queue that gets "tools"
    for every `notifications/tools/list_changed` (handshake era: the message handler)."""
    changes: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.put_nowait("tools")

    env = {name: os.environ[name] for name in ENV_NAMES if name in os.environ}
    server = StdioServerParameters(command=str(WEBCTX), args=["mcp"], env=env)
    async with Client(
        server, mode=mode, message_handler=on_message, read_timeout_seconds=CLIENT_TIME_LIMIT_S
    ) as client:
        yield client, changes


async def current_answer(client: Client, *, instance: str, limit_s: float = 15.0) -> dict[str, Any]:
    """Call `current` until the bridge answers from provider `instance` (it may still be connecting)."""
    async with asyncio.timeout(limit_s):
        while True:
            result = await client.call_tool("current", {})
            answer = result.structured_content
            if not result.is_error and answer is not None and answer["instance"] == instance:
                return answer
            await asyncio.sleep(0.2)


async def test_an_mcp_client_lists_and_calls_the_browser_through_the_bridge_in_both_eras(
    browser: RunningBrowser, page_server: str
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    second = await browser.new_page(f"{page_server}/other.html")
    descriptor = await browser.descriptor()
    for mode in ("legacy", "auto"):
        async with asyncio.timeout(40), bridge_client(mode) as (client, _):  # type: ignore[arg-type]
            answer = await current_answer(client, instance=descriptor.instance)
            tools = (await client.list_tools()).tools
            names = [tool.name for tool in tools]
            assert "current" in names
            assert all(TOOL_NAME_PATTERN.match(name) for name in names), names
            assert answer["protocol"] == "0.2.0" and answer["root"]["role"] == "Application"
            resource, *pages = (await client.list_resources()).resources
            read = await client.read_resource(RESOURCE_URI)
            [contents] = read.contents
            assert isinstance(contents, types.TextResourceContents)
            assert json.loads(contents.text)["instance"] == descriptor.instance
            assert str(resource.uri) == RESOURCE_URI
            # then the provider's page resources, when the extension links them
            parsed = [parse_page_uri(page.uri) for page in pages]
            assert all(p is not None and p.instance == descriptor.instance for p in parsed), pages

    # A tab switch shows up in `current` through the bridge (the provider sends no list_changed
    # for it yet: page tools are a later issue).
    first_url = f"{page_server}/index.html"
    await browser.worker_eval(
        """async (url) => { const [tab] = await chrome.tabs.query({url});
                           await chrome.tabs.update(tab.id, {active: true}); }""",
        first_url,
    )
    async with asyncio.timeout(30), bridge_client("legacy") as (client, _):
        async with asyncio.timeout(10):
            while True:
                answer = await current_answer(client, instance=descriptor.instance)
                focused = find_all(answer["root"], lambda e: e["role"] == "Page" and bool(e.get("focused")))
                if [page.get("url") for page in focused] == [first_url]:
                    break
                await asyncio.sleep(0.1)
    assert second.url.endswith("/other.html")


async def test_the_bridge_survives_a_browser_restart(
    browser: RunningBrowser, page_server: str, tmp_path: Path
) -> None:
    old = await browser.descriptor()
    async with asyncio.timeout(60), bridge_client("legacy") as (client, changes):
        await current_answer(client, instance=old.instance)
        while not changes.empty():
            changes.get_nowait()

        await browser.context.close()  # the browser quits: its native host and descriptor go
        async with asyncio.timeout(10):
            assert await changes.get() == "tools"
        started = time.monotonic()
        during = await client.call_tool("current", {})
        assert time.monotonic() - started < CLIENT_TIME_LIMIT_S
        assert during.is_error is True
        assert isinstance(during.content[0], types.TextContent)
        assert "webctx cannot reach a browser: " in during.content[0].text  # what is wrong, and the fix

        async with launched_browser(tmp_path / "udd-again") as again:
            new = await again.descriptor()
            assert new.instance != old.instance
            answer = await current_answer(client, instance=new.instance)  # same bridge, no restart
            assert answer["instance"] == new.instance
            async with asyncio.timeout(10):
                assert await changes.get() == "tools"  # the new provider was announced


async def test_after_an_extension_reload_old_ids_are_gone_and_calls_work_again(
    browser: RunningBrowser, page_server: str
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    async with asyncio.timeout(60), bridge_client("legacy") as (client, changes):
        answer = await current_answer(client, instance=old.instance)
        stale = next(e["id"] for e in find_all(answer["root"], lambda e: e["role"] == "Page"))
        while not changes.empty():
            changes.get_nowait()

        await browser.worker_eval("() => { chrome.runtime.reload(); }")
        new = await browser.descriptor(not_instance=old.instance)
        # Until the bridge holds the new provider, `location` goes to the old one (which has no such
        # tool: a JSON-RPC error) or finds no provider; then the bridge itself refuses the old id,
        # even though the new instance will re-mint the same string for the same tab.
        async with asyncio.timeout(15):
            while True:
                try:
                    refused = await client.call_tool("location", {"id": stale})
                except MCPError:
                    refused = None
                if refused is not None and refused.structured_content is not None:
                    break
                await asyncio.sleep(0.2)
        assert refused.is_error is True
        assert refused.structured_content["error"]["code"] == "unknown_id"
        assert (await current_answer(client, instance=new.instance))["instance"] == new.instance
        async with asyncio.timeout(5):
            assert await changes.get() == "tools"  # the replacement was announced


SWITCH_TO = (
    "async (url) => { const [tab] = await chrome.tabs.query({url});"
    " await chrome.tabs.update(tab.id, {active: true}); }"
)


async def _next_change(changes: asyncio.Queue[str], limit_s: float = 5.0) -> None:
    async with asyncio.timeout(limit_s):
        await changes.get()


async def test_a_tab_switch_reaches_a_stdio_client_as_list_changed_and_its_page_tools_are_callable(
    browser: RunningBrowser, page_server: str
) -> None:
    """Issue #8: list_changed after a tab switch, through the bridge (page tools, design.md §5)."""
    tools_url = f"{page_server}/tools.html"
    tools_page = await browser.new_page(tools_url)
    await tools_page.evaluate("() => window.ready")
    await browser.new_page(f"{page_server}/index.html")  # now the active tab: no page tools shown
    descriptor = await browser.descriptor()
    async with asyncio.timeout(60), bridge_client("legacy") as (client, changes):
        await current_answer(client, instance=descriptor.instance)

        def page_tools(tools: list[types.Tool]) -> list[str]:
            return [t.name for t in tools if t.name.endswith("_add")]

        assert page_tools((await client.list_tools()).tools) == []
        while not changes.empty():  # what the bridge said while connecting
            changes.get_nowait()

        await browser.worker_eval(SWITCH_TO, tools_url)
        await _next_change(changes)
        async with asyncio.timeout(10):
            while not (names := page_tools((await client.list_tools()).tools)):
                await _next_change(changes)
        assert all(TOOL_NAME_PATTERN.match(name) for name in names), names
        result = await client.call_tool(names[0], {"a": 2, "b": 3})
        assert not result.is_error
        assert result.structured_content == {"result": 5}  # a number, wrapped (page_tools.map_result)

        await browser.worker_eval(SWITCH_TO, f"{page_server}/index.html")
        await _next_change(changes)
        async with asyncio.timeout(10):
            while page_tools((await client.list_tools()).tools):
                await _next_change(changes)


def _frame(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


async def _answer(stdout: asyncio.StreamReader, message_id: int) -> dict[str, Any]:
    """The next answer to request `message_id` on the bridge's stdout (notifications skipped)."""
    while True:
        line = await stdout.readline()
        assert line, "the bridge closed stdout"
        message = json.loads(line)
        if message.get("id") == message_id:
            return message  # type: ignore[no-any-return]


async def first_look(env: dict[str, str]) -> tuple[dict[str, Any], list[str], float]:
    """Start a fresh `webctx mcp`, send `initialize`, `notifications/initialized` and ONE
    `tools/list` at once (as Codex and the Inspector CLI do); return the initialize result, the
    listed tool names and the seconds from start to the list's answer."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        str(WEBCTX), "mcp", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        client = {"name": "once", "version": "1"}
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
        process.stdin.write(_frame(1, "initialize", hello))
        initialized = (await _answer(process.stdout, 1))["result"]
        process.stdin.write(_frame(None, "notifications/initialized") + _frame(2, "tools/list"))
        listed = (await _answer(process.stdout, 2))["result"]["tools"]
        elapsed = time.monotonic() - started
        process.stdin.close()
        async with asyncio.timeout(15):
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return initialized, [tool["name"] for tool in listed], elapsed


async def test_a_client_that_lists_once_right_after_initialize_sees_location_and_the_page_tools(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    """A fresh bridge's first `tools/list` is the provider's list (`current`,
    `location`, the visible page's tools), not the fallback; `instructions` are the fixed text,
    naming no pid, version or instance (they would change at the next browser start)."""
    tools_page = await browser.new_page(f"{page_server}{TOOLS_PAGE}")
    await tools_page.evaluate("() => window.ready")
    descriptor = await browser.descriptor()
    async with asyncio.timeout(30), host.session(descriptor.pid) as session:  # the provider has them
        await wait_for_tools(session, lambda tools: any(t.name.endswith("_add") for t in tools), timeout_s=10)
    env = {name: os.environ[name] for name in ENV_NAMES if name in os.environ}
    async with asyncio.timeout(40):
        initialized, names, elapsed = await first_look(env)
    assert "current" in names and "location" in names, names
    assert any(name.endswith("_add") for name in names), names
    assert elapsed < 15
    assert initialized["instructions"] == SERVER_INSTRUCTIONS


async def test_check_names_the_running_browser_and_exits_0(browser: RunningBrowser) -> None:
    """`webctx mcp --check` in the environment a client gives the bridge."""
    descriptor = await browser.descriptor()
    env = {name: os.environ[name] for name in ENV_NAMES if name in os.environ}
    process = await asyncio.create_subprocess_exec(
        str(WEBCTX), "mcp", "--check", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    async with asyncio.timeout(30):
        out, err = await process.communicate()
    text = out.decode()
    print(text)  # quoted in docs/internals/native-host.md
    assert process.returncode == 0, text + err.decode()
    assert text.startswith(f"Providers folder: {browser.providers}, from CONTEXT_PROVIDERS_DIR\n")
    assert f"  live     Chromium {descriptor.version} (pid {descriptor.pid}, " in text
    assert f"OK: the bridge uses Chromium {descriptor.version} (pid {descriptor.pid}), which lists " in text
    assert "current, location" in text
