"""Repeated headers through a real `python -m native_host` (tests/support/host_process.py): two
`Authorization` headers (both with the right token) → 401, two `Host` headers (both right) → 421,
two `Origin` headers → 403, on the MCP endpoint and on the hand-off WebSocket alike, never a 500
("Also" a and b: one guard, security.refusal, for both)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support.host_process import Host, ready_descriptor

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

UPGRADE = (
    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n"
)


async def status_of(port: int, request: str) -> int:
    """The status the server at 127.0.0.1:`port` answers `request` (raw HTTP/1.1) with."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request.encode("latin-1"))
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()
    return int(line.split(b" ")[1])


def repeated(port: int, token: str) -> dict[str, tuple[str, set[int]]]:
    """Header lines → the statuses they may get; each repeats one header the guard checks. Two
    Host headers: uvicorn's HTTP parser (h11) already answers 400 before the guard's 421."""
    host, auth = f"Host: 127.0.0.1:{port}\r\n", f"Authorization: Bearer {token}\r\n"
    return {
        "two Authorization": (host + auth + auth, {401}),
        "two Host": (host + host + auth, {400, 421}),
        "two Origin": (host + "Origin: https://a.example\r\nOrigin: https://b.example\r\n" + auth, {403}),
    }


async def test_repeated_auth_host_and_origin_headers_are_refused_by_both_endpoints(
    spawn: Callable[[], Any],
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    token = descriptor["token"]
    endpoint, handoff = urlsplit(descriptor["endpoint"]), urlsplit(descriptor["handoff"])
    assert endpoint.port is not None and handoff.port is not None
    body = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    for what, (headers, status) in repeated(endpoint.port, token).items():
        request = (
            f"POST {endpoint.path} HTTP/1.1\r\n{headers}Content-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n{body}"
        )
        assert await status_of(endpoint.port, request) in status, what
    for what, (headers, status) in repeated(handoff.port, token).items():
        got = await status_of(handoff.port, f"GET /handoff HTTP/1.1\r\n{headers}{UPGRADE}\r\n")
        assert got in status, (what, got)
    # the control: one of each passes both guards
    auth = f"Host: 127.0.0.1:{handoff.port}\r\nAuthorization: Bearer {token}\r\n"
    assert await status_of(handoff.port, f"GET /handoff HTTP/1.1\r\n{auth}{UPGRADE}\r\n") == 101
