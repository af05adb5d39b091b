"""The TypeScript SDK's MCP client in the e2e tests: a second MCP implementation
next to the Python SDK, which every other test uses on both ends.

`ts_client(...)` starts `node tests/e2e/ts_client/driver.mjs` (the official
`@modelcontextprotocol/sdk` Client, a devDependency in package.json, installed by
`scripts/setup.sh --with-tests`) connected either straight to a provider over Streamable HTTP with
the bearer token, or to `webctx mcp` over stdio (the SDK spawns the bridge). The driver does one MCP
step per command and prints one JSON line per reply or notification; `TsClient` sends the commands
and reads the lines, so a test can act on the browser between steps (select text, register a page
tool, restart the browser) and assert on what the TypeScript client saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from native_host.protocol.descriptor import Descriptor

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "ts_client" / "driver.mjs"
"""The node script that runs the TypeScript SDK's Client (its header says what it reads and prints)."""
SDK_PACKAGE = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
"""Where `npm ci` puts the SDK (its version is pinned by package-lock.json)."""
CONNECT_LIMIT_S = 15.0
"""How long the driver may take to start node, spawn the bridge (if any) and `initialize`."""
STEP_LIMIT_S = 20.0
"""How long one step may take from this side (the driver's own per-request limit is 15 s)."""


@dataclass
class Reply:
    """The driver's answer to one command: `ok` with the SDK's `result` (tools/list or
    tools/call result, as JSON), or not `ok` with the `error` it raised (`name`, `message`, and
    for an McpError the JSON-RPC `code`). `ms`: how long the SDK call took, in milliseconds."""

    ok: bool
    result: dict[str, Any]
    error: dict[str, Any]
    ms: float


@dataclass
class TsClient:
    """One running driver: send commands with `list_tools()`, `call()`, `abort()`,
    `list_resources()`, `read_resource()`; `changes` holds the arrival (driver's `Date.now()`, ms)
    of every `notifications/tools/list_changed` not yet taken, `resource_changes` the same for
    `notifications/resources/list_changed`; `connected` is the driver's `connected`
    line (negotiated `protocolVersion`, `serverInfo`, …)."""

    process: asyncio.subprocess.Process
    stderr_path: Path
    connected: dict[str, Any] = field(default_factory=dict)
    changes: asyncio.Queue[float] = field(default_factory=asyncio.Queue)
    resource_changes: asyncio.Queue[float] = field(default_factory=asyncio.Queue)
    events: list[dict[str, Any]] = field(default_factory=list)
    _pending: dict[int, asyncio.Future[Reply]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def request(self, op: str, **params: Any) -> Reply:
        """Send one command and wait for its reply (at most STEP_LIMIT_S). Raises AssertionError
        with the driver's stderr when the driver exits first or does not answer."""
        id_ = next(self._ids)
        reply: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._pending[id_] = reply
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"id": id_, "op": op, **params}).encode() + b"\n")
        await self.process.stdin.drain()
        try:
            async with asyncio.timeout(STEP_LIMIT_S):
                return await reply
        except TimeoutError:
            raise AssertionError(f"driver did not answer {op} {params}; stderr:\n{self.stderr()}") from None

    async def list_tools(self) -> list[dict[str, Any]]:
        """One `tools/list` (exactly one request; the driver never retries); the tools as JSON."""
        reply = await self.request("list")
        assert reply.ok, reply.error
        tools: list[dict[str, Any]] = reply.result["tools"]
        return tools

    async def list_resources(self) -> list[dict[str, Any]]:
        """One `resources/list` (its first page); the resources as JSON."""
        reply = await self.request("resources")
        assert reply.ok, reply.error
        resources: list[dict[str, Any]] = reply.result["resources"]
        return resources

    async def read_resource(self, uri: str) -> Reply:
        """`resources/read` of `uri`; the reply as is (an McpError for a refused read)."""
        return await self.request("read", uri=uri)

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, key: str | None = None
    ) -> Reply:
        """`tools/call` of `name` with `arguments`; `key` makes it abortable with `abort(key)`."""
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if key is not None:
            params["key"] = key
        return await self.request("call", **params)

    async def abort(self, key: str) -> None:
        """Abort the running call started with `key` (its AbortSignal; the SDK sends
        notifications/cancelled to the server)."""
        reply = await self.request("abort", key=key)
        assert reply.ok, reply.error

    def drain_changes(self) -> None:
        """Forget the list_changed notifications (tools and resources) received so far."""
        for queue in (self.changes, self.resource_changes):
            while not queue.empty():
                queue.get_nowait()

    async def next_change(self, *, timeout_s: float, resources: bool = False) -> bool:
        """Wait at most `timeout_s` for a tools list_changed (`resources`: a resources one);
        whether one came."""
        try:
            async with asyncio.timeout(timeout_s):
                await (self.resource_changes if resources else self.changes).get()
        except TimeoutError:
            return False
        return True

    def stderr(self) -> str:
        """The driver's (and a spawned bridge's) stderr so far, for failure messages."""
        try:
            return self.stderr_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    async def read_lines(self) -> None:
        """Route the driver's stdout: replies to their waiting `request`, events to `changes` and
        `events`. Ends when the driver's stdout closes; waiting requests then fail."""
        assert self.process.stdout is not None
        async for raw in self.process.stdout:
            line = json.loads(raw)
            if "id" in line:
                waiting = self._pending.pop(line["id"], None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(
                        Reply(line["ok"], line.get("result") or {}, line.get("error") or {}, line["ms"])
                    )
                continue
            self.events.append(line)
            if line["event"] == "connected":
                self.connected = line
            elif line["event"] == "list_changed":
                self.changes.put_nowait(float(line["at"]))
            elif line["event"] == "resources_list_changed":
                self.resource_changes.put_nowait(float(line["at"]))
        for waiting in self._pending.values():
            if not waiting.done():
                waiting.set_exception(AssertionError(f"the driver exited; stderr:\n{self.stderr()}"))


def node_or_fail() -> str:
    """The `node` executable; the test fails (not skips) without it or without the SDK installed:
    node and `npm ci` are part of the test setup (scripts/setup.sh --with-tests)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the tests need Node.js 20+ (scripts/setup.sh --with-tests)")
    if not SDK_PACKAGE.is_file():
        pytest.fail(f"{SDK_PACKAGE.parent} is missing; run scripts/setup.sh --with-tests (npm ci)")
    return node


@contextlib.asynccontextmanager
async def ts_client(args: list[str], *, env: dict[str, str], stderr_path: Path) -> AsyncIterator[TsClient]:
    """Run the driver with `args` (`["http", endpoint]` or `["stdio", command, *args]`) in `env`
    until the block ends; yield it once it has connected (at most CONNECT_LIMIT_S). Its stderr
    (and the bridge's) goes to `stderr_path`. Ended after: `close`, then SIGKILL by pid if needed.
    Raises AssertionError when it cannot connect."""
    with stderr_path.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            node_or_fail(), str(DRIVER), *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr,
            env=env, cwd=ROOT,
        )
    client = TsClient(process, stderr_path)
    reader = asyncio.create_task(client.read_lines())
    try:
        async with asyncio.timeout(CONNECT_LIMIT_S):
            while not client.connected:
                if reader.done():
                    ended = f"driver ended before connecting: {client.events}"
                    raise AssertionError(f"{ended}\n{client.stderr()}")
                await asyncio.sleep(0.02)
        yield client
    finally:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await client.request("close")
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.wait()
        end_server(client.connected.get("serverPid"))
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


def end_server(pid: int | None) -> None:
    """SIGKILL the server the driver spawned (`webctx mcp`, by its pid) if it outlived the driver:
    the SDK ends it on `close`, but not when the driver itself had to be killed."""
    if pid is None:
        return
    with contextlib.suppress(psutil.Error):
        server = psutil.Process(pid)
        if "mcp" in server.cmdline():
            server.kill()


def http_client(
    descriptor: Descriptor, stderr_path: Path
) -> contextlib.AbstractAsyncContextManager[TsClient]:
    """The TypeScript client straight to `descriptor`'s endpoint, with its bearer token."""
    env = {**os.environ, "WEBCTX_TS_TOKEN": descriptor.token}
    return ts_client(["http", descriptor.endpoint], env=env, stderr_path=stderr_path)


def stdio_client(
    webctx: Path, env: dict[str, str], stderr_path: Path
) -> contextlib.AbstractAsyncContextManager[TsClient]:
    """The TypeScript client launching `webctx mcp` (the stdio bridge) in `env`, which names the
    providers folder (CONTEXT_PROVIDERS_DIR, HOME, XDG_*) the bridge searches."""
    return ts_client(["stdio", str(webctx), "mcp"], env=env, stderr_path=stderr_path)


async def list_until(
    client: TsClient, predicate: Callable[[list[dict[str, Any]]], bool], *, timeout_s: float = 10.0
) -> list[dict[str, Any]]:
    """List tools until `predicate(tools)` holds, listing again after each list_changed (or every
    0.5 s: the page's own registration may land between two lists without a notification to this
    client yet); return the tools. Raises TimeoutError after `timeout_s`.

    Why more than one list: the stdio bridge answers its first `tools/list` before its provider
    link is up, and a provider lists a page's tools once the page has reported
    them. A test of "list exactly once" calls `TsClient.list_tools` once instead."""
    async with asyncio.timeout(timeout_s):
        while True:
            tools = await client.list_tools()
            if predicate(tools):
                return tools
            await client.next_change(timeout_s=0.5)


def page_tool(tools: list[dict[str, Any]], url: str, tool_name: str) -> dict[str, Any] | None:
    """The tool exposed for WebMCP tool `tool_name` of the page at `url` (by its `_meta`), or None."""
    for tool in tools:
        meta = tool.get("_meta") or {}
        if meta.get("url") == url and meta.get("toolName") == tool_name:
            return tool
    return None


def result_text(result: dict[str, Any]) -> str:
    """The text blocks of a tools/call result (as JSON), joined."""
    return "".join(block["text"] for block in result.get("content", []) if block.get("type") == "text")
