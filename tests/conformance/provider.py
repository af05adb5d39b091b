"""A small, configurable provider built with the MCP SDK, for testing the conformance kit.

By default it conforms to every rule: a 0600 descriptor in a 0700 folder naming this test
process, a guard that refuses Origin (403), a bad Host (421) and a missing/wrong token (401),
both MCP eras with the extension declaration, a `current` tree that uses every state correctly,
and a `location` tool. Each `Flaws` field breaks one rule; the tests turn them on one at a time.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.transport_security import TransportSecuritySettings

from native_host.conformance.checks import EXTENSION_ID
from native_host.conformance.trees import ID_PATTERN
from tests.support.asgi import loopback_socket, serving_asgi

TOKEN = "conformance-test-token"
PROTOCOL = "0.2.0"
INSTANCE = "inst-conformance-1"


def good_tree() -> dict[str, Any]:
    """A tree that follows every rule: focus path win-1 → doc-1 → field-1, one hovered Link,
    a selection, a hidden document whose child inherits `visible: false` silently."""
    return {
        "id": "app",
        "role": "Application",
        "title": "Test Editor",
        "children": [
            {
                "id": "win-1",
                "role": "Window",
                "focused": True,
                "children": [
                    {
                        "id": "doc-1",
                        "role": "Document",
                        "subrole": "markdown",
                        "title": "draft.md",
                        "url": "file:///tmp/draft.md",
                        "focused": True,
                        "futureField": {"receivers": "ignore it"},
                        "children": [
                            {"id": "field-1", "role": "Group", "subrole": "textbox", "focused": True},
                            {
                                "id": "sel-1",
                                "role": "Text",
                                "selected": True,
                                "content": [{"type": "text", "text": "a selected sentence"}],
                                "attributes": {"lines": [3, 3]},
                            },
                            {
                                "id": "link-1",
                                "role": "Link",
                                "url": "https://example.org/",
                                "hovered": True,
                                "content": [
                                    {
                                        "type": "resource_link",
                                        "uri": "https://example.org/",
                                        "name": "example",
                                    }
                                ],
                            },
                        ],
                    },
                    {
                        "id": "doc-2",
                        "role": "Document",
                        "title": "notes.md",
                        "visible": False,
                        "children": [{"id": "para-1", "role": "Text"}],
                    },
                ],
            }
        ],
    }


@dataclass
class Flaws:
    """What the provider gets wrong; all False/None is a conforming provider."""

    accept_origin: bool = False
    token_optional: bool = False
    skip_host_check: bool = False
    tree: Callable[[dict[str, Any]], None] | None = None
    """Mutates the good tree in place before each answer."""
    answer: Callable[[dict[str, Any]], None] | None = None
    """Mutates the whole answer `{protocol, instance, root}` in place before it is sent."""
    answer_instance: str | None = None
    answer_protocol: str | None = None
    declare_protocol: str | None = None
    """The protocol in the extension declaration (None: the descriptor's); "" declares none."""
    protocol: str = PROTOCOL
    """The protocol everywhere (descriptor, declaration, answer)."""
    list_current: bool = True
    current_is_error: bool = False
    fresh_ids_each_call: bool = False
    offer_location: bool = True
    location_answer: dict[str, Any] | None = None
    locate_never_issued: bool = False
    locate_malformed: bool = False
    folder_mode: int = 0o700
    file_mode: int = 0o600
    descriptor: dict[str, Any] = field(default_factory=dict)
    """Overrides of descriptor fields."""
    publish_path: str | None = None
    """The endpoint path written into the descriptor (None: the path actually served)."""
    publish_host: str = "127.0.0.1"
    """The host written into the descriptor's endpoint."""


@dataclass
class RunningProvider:
    """A provider serving on 127.0.0.1 in this process; `descriptor_path` is what the kit checks."""

    port: int
    path: str
    descriptor_path: Path
    flaws: Flaws
    issued: set[str] = field(default_factory=set)
    calls: int = 0


def _rename_ids(element: Any, suffix: str) -> None:
    if isinstance(element, dict):
        if isinstance(element.get("id"), str) and element["id"] != "app":
            element["id"] = f"{element['id']}{suffix}"
        for child in element.get("children") or []:
            _rename_ids(child, suffix)


def _all_ids(element: Any) -> set[str]:
    if not isinstance(element, dict):
        return set()
    found = {element["id"]} if isinstance(element.get("id"), str) else set()
    for child in element.get("children") or []:
        found |= _all_ids(child)
    return found


def _refusal(status: int, message: str) -> tuple[int, bytes]:
    return status, json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    ).encode()


@contextlib.asynccontextmanager
async def serve(folder: Path, flaws: Flaws | None = None) -> AsyncIterator[RunningProvider]:
    """Start the provider on 127.0.0.1:0 with `flaws`, write its descriptor into `folder`, yield."""
    flaws = flaws or Flaws()
    sock = loopback_socket()
    port = sock.getsockname()[1]
    path = "/context/abc123"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(flaws.folder_mode)
    descriptor_path = folder / f"org.example.TestEditor-{os.getpid()}.json"
    provider = RunningProvider(port, path, descriptor_path, flaws)

    def answer() -> dict[str, Any]:
        provider.calls += 1
        root = good_tree()
        if flaws.tree is not None:
            flaws.tree(root)
        if flaws.fresh_ids_each_call:
            _rename_ids(root, f"-{provider.calls}")
        provider.issued |= _all_ids(root)
        out = {
            "protocol": flaws.answer_protocol or flaws.protocol,
            "instance": flaws.answer_instance or INSTANCE,
            "root": root,
        }
        if flaws.answer is not None:
            flaws.answer(out)
        return out

    def locate(id_: Any) -> types.CallToolResult:
        malformed = not isinstance(id_, str) or not ID_PATTERN.fullmatch(id_)
        known = isinstance(id_, str) and id_ in provider.issued
        if (malformed and not flaws.locate_malformed) or (
            not malformed and not known and not flaws.locate_never_issued
        ):
            code = "invalid_id" if malformed else "unknown_id"
            return types.CallToolResult(
                content=[types.TextContent(text=f"{code}: no such element")],
                structured_content={"error": {"code": code, "message": "no such element"}},
                is_error=True,
            )
        located = copy.deepcopy(flaws.location_answer) if flaws.location_answer else None
        if located is None:
            located = (
                {"state": "visible", "rects": [{"x": 10, "y": 20, "w": 300, "h": 16}], "window": 4242}
                if known
                else {"state": "gone", "rects": []}
            )
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(located))], structured_content=located
        )

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        tools = [types.Tool(name="echo", description="echo", input_schema={"type": "object"})]
        if flaws.list_current:
            tools.append(types.Tool(name="current", description="context", input_schema={"type": "object"}))
        if flaws.offer_location:
            tools.append(types.Tool(name="location", description="where", input_schema={"type": "object"}))
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "location" and flaws.offer_location:
            return locate((params.arguments or {}).get("id"))
        if params.name == "current":
            if flaws.current_is_error:
                return types.CallToolResult(content=[types.TextContent(text="not now")], is_error=True)
            value = answer()
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(value))], structured_content=value
            )
        return types.CallToolResult(content=[types.TextContent(text="{}")])

    declared = flaws.protocol if flaws.declare_protocol is None else flaws.declare_protocol
    extensions = {EXTENSION_ID: {"protocol": declared}} if declared else {}

    async def advertise(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict) and extensions:
            result.setdefault("capabilities", {}).setdefault("extensions", {}).update(extensions)
        return result

    server: Server[Any] = Server(
        "test-editor", version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool
    )
    server.extensions.update(extensions)
    server.middleware.append(advertise)
    mcp_app = server.streamable_http_app(
        streamable_http_path=path,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    allowed_hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers: dict[str, str] = {}
            for k, v in scope["headers"]:
                headers.setdefault(k.decode().lower(), v.decode("latin-1"))
            refusal = None
            if "origin" in headers and not flaws.accept_origin:
                refusal = _refusal(403, "Origin refused")
            elif headers.get("host") not in allowed_hosts and not flaws.skip_host_check:
                refusal = _refusal(421, "Host refused")
            elif ("authorization" in headers or not flaws.token_optional) and headers.get(
                "authorization"
            ) != f"Bearer {TOKEN}":
                refusal = _refusal(401, "token required")
            if refusal is not None:
                status, body = refusal
                await send({"type": "http.response.start", "status": status, "headers": []})
                await send({"type": "http.response.body", "body": body})
                return
        await mcp_app(scope, receive, send)

    data: dict[str, Any] = {
        "protocol": flaws.protocol,
        "bundleId": "org.example.TestEditor",
        "name": "Test Editor",
        "version": "1.0",
        "pid": os.getpid(),
        "instance": INSTANCE,
        "endpoint": f"http://{flaws.publish_host}:{port}{flaws.publish_path or path}",
        "token": TOKEN,
        "listenerPid": os.getpid(),
    }
    data.update(flaws.descriptor)
    descriptor_path.write_text(json.dumps(data))
    descriptor_path.chmod(flaws.file_mode)

    async with serving_asgi(guard, sock):
        yield provider
