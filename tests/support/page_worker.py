"""The worker's side of the page on demand, for tests that drive a real `python -m native_host`
(tests/support/host_process.py): a tree whose Pages carry the resource_links the worker's tree.js
puts there, pushed as the worker pushes it, and `page.read` answered as the worker answers it.

    host = await spawn(); instance = (await host.hello())["instance"]
    await push_tree(host, pages_tree(instance, "tab-1", "tab-2"))
    frame = await answer_read(host, text_result("# Title"))      # the next page.read, answered
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from mcp import Client, types
from mcp.shared.exceptions import MCPError

from native_host.protocol.resources import MIME_TYPES, PAGE_KINDS, format_page_uri
from tests.support.host_process import Host
from tests.support.trees import app, page, window

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
"""Bytes standing in for a screenshot (a PNG signature and a body; the host does not decode it)."""


def links(instance: str, page_id: str, kinds: tuple[str, ...] = PAGE_KINDS) -> list[dict[str, Any]]:
    """A Page's `content`: one resource_link per kind, as tree.js makes them (design16 "Links")."""
    return [
        {"type": "resource_link", "uri": format_page_uri(instance, page_id, kind),  # type: ignore[arg-type]
         "name": f"Title of {page_id}", "mimeType": MIME_TYPES[kind]}  # type: ignore[index]
        for kind in kinds
    ]


def pages_tree(instance: str, *page_ids: str, focused: str | None = None) -> dict[str, Any]:
    """A `current` root: one focused Window with a tab Page per id, each with its text and
    screenshot links; `focused` (default the first) is the focused page."""
    focused = focused or (page_ids[0] if page_ids else None)
    pages = [
        page(page_id, title=f"Title of {page_id}", url=f"https://example.org/{page_id}",
             focused=page_id == focused, content=links(instance, page_id))
        for page_id in page_ids
    ]
    return app(window("win-1", *pages, focused=True), title="Chromium")


async def push_tree(host: Host, root: dict[str, Any]) -> None:
    """Push `root` as the worker pushes a complete tree (the host answers `current` from it)."""
    await host.send({"type": "tree", "complete": True, "root": root, "windowFocused": True})


def text_result(markdown: str, *, truncated: bool = False, total: int | None = None) -> dict[str, Any]:
    """A `page.read` reply of kind text: `{"result": {...}}`."""
    size = len(markdown.encode()) if total is None else total
    return {"result": {"kind": "text", "markdown": markdown, "truncated": truncated, "bytes": size,
                       "source": "readability", "title": "Title", "url": "https://example.org/"}}


def screenshot_result(data: bytes = PNG_BYTES) -> dict[str, Any]:
    """A `page.read` reply of kind screenshot: `{"result": {...}}` with `data` base64."""
    return {"result": {"kind": "screenshot", "mimeType": "image/png", "data": base64.b64encode(data).decode(),
                       "width": 800, "height": 600, "devicePixelRatio": 1, "scale": 1}}


def error_reply(code: str, message: str) -> dict[str, Any]:
    """A `page.read` error reply, e.g. `error_reply("switched_off", "page text is switched off")`."""
    return {"error": {"code": code, "message": message}}


async def answer_read(host: Host, reply: dict[str, Any], timeout_s: float = 15.0) -> dict[str, Any]:
    """Wait for the host's next `page.read`, answer it with `reply`; return the request frame."""
    frame = await host.receive(timeout_s)
    assert frame["type"] == "page.read", frame
    await host.send({"type": "result" if "result" in reply else "error", "id": frame["id"], **reply})
    return frame


async def read_answered(
    client: Client, host: Host, uri: str, reply: dict[str, Any]
) -> tuple[types.ReadResourceResult | MCPError, dict[str, Any]]:
    """`resources/read` of `uri` by `client` (straight to the provider, or through the bridge), the
    fake worker answering the host's `page.read` with `reply`: (the result or the MCPError, the
    `page.read` request the host sent)."""
    read = asyncio.ensure_future(client.read_resource(uri))
    frame = await answer_read(host, reply)
    try:
        return await read, frame
    except MCPError as exc:
        return exc, frame
