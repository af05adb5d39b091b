"""One MCP client with the token cannot lock others out of a real host (provider/http/request_slots.py):
forgotten 2025-era sessions, open GET streams and hanging calls stay below the connection cap,
and a cancel always gets through (docs/internals/native-host.md "Threat model")."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest

from native_host.provider.http.endpoint import MAX_SESSIONS
from native_host.provider.http.request_slots import MAX_CALLS, MAX_GET_STREAMS, frees_capacity
from tests.support.asgi import INITIALIZE
from tests.support.host_process import Host, log_text, mcp_client, ready_descriptor, wait_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="drives a host process over pipes (POSIX)")

CALL_BOUND_S = 5.0
"""A new client's first call must answer within this, in seconds (connect, initialize, call)."""
PAGE_TOOL = {"name": "p1_wait", "toolName": "wait", "pageId": "tab-1", "pageTitle": "Wait", "origin": "https://x"}
"""A page tool whose calls the test never answers: each hangs until cancelled."""


class Raw:
    """One raw HTTP/1.1 connection to the endpoint with the token (what a hostile client holds)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, descriptor: dict[str, Any]) -> Raw:
        url = urlsplit(descriptor["endpoint"])
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        raw = cls(reader, writer)
        raw.host = f"{url.hostname}:{url.port}"
        raw.path = url.path
        raw.token = descriptor["token"]
        return raw

    host: str
    path: str
    token: str

    def send(self, method: str, body: dict[str, Any] | None = None, session: str | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        headers = [
            f"{method} {self.path} HTTP/1.1", f"Host: {self.host}", f"Authorization: Bearer {self.token}",
            "Accept: application/json, text/event-stream",
        ]
        if session is not None:
            headers += [f"Mcp-Session-Id: {session}", "MCP-Protocol-Version: 2025-11-25"]
        if body is not None:
            headers += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        self.writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + data)

    async def head(self) -> tuple[int, dict[str, str]]:
        """The response's status and headers (lower-case names)."""
        status = int((await self.reader.readline()).split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers

    def close(self) -> None:
        self.writer.close()


@asynccontextmanager
async def raws() -> AsyncIterator[list[Raw]]:
    """A list for Raw connections, all closed at the end."""
    held: list[Raw] = []
    try:
        yield held
    finally:
        for raw in held:
            raw.close()


async def open_session(descriptor: dict[str, Any]) -> str:
    """A 2025-era session (initialize, then initialized) left open and idle; returns its id."""
    raw = await Raw.open(descriptor)
    try:
        raw.send("POST", INITIALIZE)
        status, headers = await asyncio.wait_for(raw.head(), 30)
        assert status == 200, status
        session = headers["mcp-session-id"]
    finally:
        raw.close()
    raw = await Raw.open(descriptor)
    try:
        raw.send("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        assert (await asyncio.wait_for(raw.head(), 30))[0] == 202
    finally:
        raw.close()
    return session


async def first_call_s(descriptor: dict[str, Any]) -> float:
    """Seconds for a new 2025-era SDK client to connect and get `current` (inf on failure)."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(30), mcp_client(descriptor, "legacy") as client:
            answer = await client.call_tool("current", {})
    except Exception as exc:
        print(f"the new client failed: {exc!r}")
        return float("inf")
    return time.perf_counter() - started if answer.is_error is False else float("inf")


async def test_256_idle_sessions_then_a_new_client_still_gets_one(spawn: Callable[[], Any]) -> None:
    """On main the 257th session was refused (503) until the idle ones expired (600 s)."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    for _ in range(MAX_SESSIONS):
        await open_session(descriptor)
    seconds = await first_call_s(descriptor)
    print(f"\nafter {MAX_SESSIONS} idle sessions: a new client's first current in {seconds * 1000:.0f} ms")
    assert seconds < CALL_BOUND_S
    assert "closed the least recently used idle session" in log_text()


async def test_128_open_get_streams_then_a_new_clients_call_answers(spawn: Callable[[], Any]) -> None:
    """On main the 128 streams held every connection slot: the new client's connection was closed."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    statuses: list[int] = []
    async with raws() as held:
        for _ in range(128):
            session = await open_session(descriptor)
            raw = await Raw.open(descriptor)
            held.append(raw)
            raw.send("GET", session=session)
            statuses.append((await asyncio.wait_for(raw.head(), 30))[0])
        seconds = await first_call_s(descriptor)
    print(f"\n128 GET streams: {statuses.count(200)} open, {statuses.count(503)} refused; "
          f"a new client's first current in {seconds * 1000:.0f} ms")
    assert statuses.count(200) == MAX_GET_STREAMS and statuses.count(503) == 128 - MAX_GET_STREAMS
    assert seconds < CALL_BOUND_S


async def test_beyond_the_hanging_calls_a_cancel_gets_through_and_frees_a_slot(
    spawn: Callable[[], Any],
) -> None:
    """130 calls that hang; then `notifications/cancelled` for one of them is accepted (202) and
    its slot takes a new call. On main the 128 hanging calls held every connection, so the
    cancel's connection was closed at once."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await host.send({"type": "tools.changed", "tools": [PAGE_TOOL]})
    await wait_until(lambda: "page tools: 1 exposed" in log_text(), what="the page tool")
    session = await open_session(descriptor)
    statuses: dict[int, int] = {}
    async with raws() as held:
        for n in range(1, 131):
            raw = await Raw.open(descriptor)
            held.append(raw)
            raw.send("POST", {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                              "params": {"name": "p1_wait", "arguments": {}}}, session)
            statuses[n] = (await asyncio.wait_for(raw.head(), 30))[0]
        hanging = [n for n, status in statuses.items() if status == 200]
        cancel = await Raw.open(descriptor)
        held.append(cancel)
        cancel.send("POST", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": hanging[0], "reason": "gave up"}}, session)
        cancelled = (await asyncio.wait_for(cancel.head(), 30))[0]
        # the cancelled call's slot is free once its stream ends: a new call then gets in
        deadline = time.monotonic() + 20
        while True:
            after = await Raw.open(descriptor)
            held.append(after)
            after.send("POST", {"jsonrpc": "2.0", "id": 999, "method": "tools/call",
                                "params": {"name": "current", "arguments": {}}}, session)
            status, _ = await asyncio.wait_for(after.head(), 30)
            if status == 200 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
    print(f"\n130 hanging calls: {len(hanging)} in flight, {list(statuses.values()).count(503)} refused; "
          f"cancel {cancelled}; a new call then {status}")
    assert len(hanging) == MAX_CALLS and list(statuses.values()).count(503) == 130 - MAX_CALLS
    assert cancelled == 202
    assert status == 200


@pytest.mark.parametrize(
    ("body", "frees"),
    [
        (b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}', True),
        (b'{"jsonrpc":"2.0","id":1,"result":{}}', True),  # a response to the server's request
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}', False),
        (b'{"method":"x","id":null}', False),
        (b"[]", False),
        (b"not json", False),
        (b"[" * 100_000, False),
    ],
)
def test_only_notifications_and_responses_pass_at_the_cap(body: bytes, frees: bool) -> None:
    assert frees_capacity(body) is frees
