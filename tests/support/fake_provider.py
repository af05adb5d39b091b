"""A fake provider for the reference host's tests: a real MCP server on 127.0.0.1 in the test's
own event loop, answering `current` (and `echo`) behind a bearer-token guard, with the descriptor
that names it (design.md §3, §7).

    async with fake_provider() as p:     # p.port, p.endpoint; change p.instance, p.delay_s, ... at will
        p.write(folder)                  # <bundleId>-<pid>.json naming this process as the listener
        check_descriptor(p.descriptor(), identify=same_bundle)

The descriptor names this Python process (pid and listener), so the host's process checks pass
against real facts; `same_bundle` stands in for the bundle-id lookup (this process is no browser).
Requests with an Origin header or without `Bearer TOKEN` get 401; every request's headers are kept
in `seen_headers`. Tools beyond `current` and `echo`: `extra_tools` are listed after them (e.g.
`page_tool()`), and a name in `results` answers with that result; any other name is the MCP error
"Unknown tool" (as the real provider answers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from mcp import types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from native_host.protocol.descriptor import Descriptor
from native_host.protocol.native import PageTool, PageToolAnnotations
from native_host.provider.page_tools import mcp_tool
from tests.support.asgi import loopback_socket, serving_asgi
from tests.support.trees import app, element, text, window

TOKEN = "test-token-not-secret"
"""The bearer token every fake descriptor carries and the guard expects."""
BUNDLE = "org.example.TestHost"
"""The bundle id every fake descriptor names (`same_bundle` agrees with it)."""


def same_bundle(_process: psutil.Process) -> str:
    """Bundle lookup for descriptors naming this Python process: always agrees with BUNDLE."""
    return BUNDLE


def tree(selected_id: str = "sel-1") -> dict[str, Any]:
    """A `current` root: Application → focused Window → focused Page (with an unknown field, which
    readers must accept: design.md §2) → the selected Text `selected_id`."""
    selected = text(selected_id, "hello", selected=True)
    tab = element("tab-1", "Page", selected, subrole="tab", title="Demo", url="http://127.0.0.1/",
                  focused=True, futureField={"ok": True})
    return app(window("win-1", tab, focused=True), title="Test")


@dataclass
class FakeProvider:
    """A real MCP server on 127.0.0.1 in this process, answering `current` with `answer()`."""

    port: int
    path: str
    instance: str = "inst-A"
    protocol: str = "0.2.0"
    answer_instance: str | None = None
    answer_protocol: str | None = None
    selected_id: str = "sel-1"
    delay_s: float = 0.0
    seen_headers: list[dict[str, str]] = field(default_factory=list)
    extra_tools: list[types.Tool] = field(default_factory=list)
    results: dict[str, types.CallToolResult] = field(default_factory=dict)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def answer(self) -> dict[str, Any]:
        return {
            "protocol": self.answer_protocol or self.protocol,
            "instance": self.answer_instance or self.instance,
            "root": tree(self.selected_id),
        }

    def descriptor(self, **overrides: Any) -> Descriptor:
        data: dict[str, Any] = {
            "protocol": self.protocol,
            "bundleId": BUNDLE,
            "name": "Test Host",
            "version": "1.0",
            "pid": os.getpid(),
            "instance": self.instance,
            "endpoint": self.endpoint,
            "token": TOKEN,
            "listenerPid": os.getpid(),
        }
        data.update(overrides)
        return Descriptor.model_validate(data)

    def write(self, folder: Path, **overrides: Any) -> Path:
        d = self.descriptor(**overrides)
        path = folder / f"{d.bundle_id}-{d.pid}.json"
        path.write_text(json.dumps(d.to_wire()))
        return path


def page_tool(
    name: str = "p1_get_passage", *, read_only: bool = True, consequential: bool = False
) -> types.Tool:
    """A `tools/list` entry of page `tab-1` made by the real provider's `mcp_tool` (design.md §5
    "Exposure"; provider/page_tools.py): `_meta` names the page, its origin and URL."""
    return mcp_tool(
        PageTool(
            name=name,
            tool_name=name.removeprefix("p1_"),
            page_id="tab-1",
            description=f"{name} does its thing.",
            page_title="Demo",
            origin="http://127.0.0.1:8000",
            url="http://127.0.0.1:8000/demo",
            input_schema={"type": "object", "properties": {}},
            annotations=PageToolAnnotations(read_only_hint=read_only, consequential_hint=consequential),
        )
    )


@contextlib.asynccontextmanager
async def fake_provider() -> AsyncIterator[FakeProvider]:
    """Serve a FakeProvider at a free port of 127.0.0.1 (path /mcp/abcDEF) until the block ends."""
    sock = loopback_socket()
    provider = FakeProvider(port=sock.getsockname()[1], path="/mcp/abcDEF")

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name="current", description="context", input_schema={"type": "object"}),
                types.Tool(name="echo", description="echo", input_schema={"type": "object"}),
                *provider.extra_tools,
            ]
        )

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "echo":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps(params.arguments))]
            )
        if params.name in provider.results:
            return provider.results[params.name]
        if params.name != "current":
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        await asyncio.sleep(provider.delay_s)  # a slow provider, when a test asks for one
        answer = provider.answer()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer))], structured_content=answer
        )

    server: Server[Any] = Server("fake", version="0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    mcp_app = server.streamable_http_app(streamable_http_path=provider.path)

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            provider.seen_headers.append(headers)
            if "origin" in headers or headers.get("authorization") != f"Bearer {TOKEN}":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await mcp_app(scope, receive, send)

    async with serving_asgi(guard, sock):
        yield provider
