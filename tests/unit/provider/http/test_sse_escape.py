"""provider/http/sse_escape.py: no raw U+2028, U+2029 or U+0085 in the provider's event streams, read as
raw bytes from the real endpoint by a plain HTTP client (as a line-splitting SSE parser would)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from native_host.provider.http.endpoint import McpEndpoint
from native_host.provider.http.security import Message, Receive, Scope, Send
from native_host.provider.http.sse_escape import EscapedLineSeparators, escape_separators
from tests.support.asgi import INITIALIZE
from tests.support.requester import FakeRequester, SentRequest

TITLE = "before\u2028forged: line\u2029and\x85more"
"""A page title with the three separators a line splitter may break at."""


class TitledBridge(FakeRequester):
    """Answers `current` with one Window titled TITLE."""

    async def answer(self, sent: SentRequest) -> Any:
        window = {"id": "win-1", "role": "Window", "title": TITLE, "focused": True, "children": []}
        return {"root": {"id": "app", "role": "Application", "title": "Chromium", "children": [window]}}


@pytest.fixture
async def endpoint() -> AsyncIterator[McpEndpoint]:
    endpoint = McpEndpoint(TitledBridge(), instance="Zm9vYmFyYmF6cXV4cXV1eA")
    async with asyncio.timeout(10):
        await endpoint.start()
    yield endpoint
    async with asyncio.timeout(5):
        await endpoint.stop()


async def test_the_sse_bytes_of_a_tool_result_carry_no_raw_line_separators(endpoint: McpEndpoint) -> None:
    headers = {"Authorization": f"Bearer {endpoint.token}", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=10) as http:
        init = await http.post(endpoint.url, json=INITIALIZE, headers=headers)
        session = {"mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(endpoint.url, json=initialized, headers={**headers, **session})
        params = {"name": "current", "arguments": {}}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
        answer = await http.post(endpoint.url, json=call, headers={**headers, **session})
    assert answer.headers["content-type"].startswith("text/event-stream")
    raw = answer.content
    for separator in ("\u2028", "\u2029", "\x85"):
        assert separator.encode() not in raw, separator
    assert b"\\u2028" in raw and b"\\u2029" in raw and b"\\u0085" in raw
    data = [line[len(b"data: ") :] for line in raw.splitlines() if line.startswith(b"data: ")]
    message = json.loads(data[-1])  # the same JSON: the escapes mean the same characters
    assert message["result"]["structuredContent"]["root"]["children"][0]["title"] == TITLE


async def test_a_separator_split_across_body_messages_is_escaped_whole() -> None:
    raw = "a\u2028b\u2029c\x85d©".encode()
    cuts = [raw[:2], raw[2:3], raw[3:6], raw[6:9], raw[9:]]  # inside U+2028, U+2029, ©

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for i, part in enumerate(cuts):
            await send({"type": "http.response.body", "body": part, "more_body": i < len(cuts) - 1})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request"}

    await EscapedLineSeparators(app)({"type": "http"}, receive, send)
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert body == escape_separators(raw) == "a\\u2028b\\u2029c\\u0085d©".encode()
