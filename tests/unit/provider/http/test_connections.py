"""Half-open connections against a real host (item 2; provider/http/connections.py): a local
process without the token holds 1,000 connections (no bytes, partial headers, headers and a
partial body) while a real MCP client calls `current` over fresh TCP connections."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest

from native_host.provider.http.connections import HEADER_TIMEOUT_S, ConnectionLimits
from native_host.provider.http.endpoint import McpEndpoint
from native_host.provider.profiles.handoff_server import HandoffServer
from tests.support import half_open
from tests.support.asgi import INITIALIZE as INITIALIZE_REQUEST
from tests.support.host_process import Host, log_text, mcp_client, ready_descriptor, wait_until
from tests.support.requester import HANG, FakeRequester

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="lowers the host's descriptor limit with prlimit (Linux)"
)

HOST_FD_LIMIT = 256
"""The host's RLIMIT_NOFILE soft limit for the test: 1,000 connections surely exceed it."""
ATTACKER_FD_LIMIT = 1024
"""The attacker's soft limit: the usual default of a desktop user."""
CONNECTIONS = 1000
SLACK_S = 1.5
"""Scheduling slack on top of the header timeout for the last half-open socket to be closed."""


async def call_current(client: Any) -> float:
    """One `current` call's latency in seconds (inf if it failed or took over 2 s)."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(2.0):
            answer = await client.call_tool("current", {})
    except Exception:  # a timeout or a failed request: either way no answer in time
        return float("inf")
    return time.perf_counter() - started if answer.is_error is False else float("inf")


def open_fds(pid: int) -> int:
    """How many descriptors process `pid` has open (Linux /proc)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


async def test_half_open_connections_are_closed_and_current_still_answers(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.prlimit(host.process.pid, resource.RLIMIT_NOFILE, (HOST_FD_LIMIT, hard))
    await host.hello()
    descriptor = await ready_descriptor(host)
    port = urlsplit(descriptor["endpoint"]).port
    quiet: list[float] = []
    attacked: list[float] = []
    opened: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    fds: list[int] = []
    try:
        async with mcp_client(descriptor, "legacy", keep_alive=False) as client:
            quiet += [await call_current(client) for _ in range(20)]
            fds.append(open_fds(host.process.pid))
            attacker = await asyncio.create_subprocess_exec(
                sys.executable, half_open.__file__, str(port), str(CONNECTIONS), str(ATTACKER_FD_LIMIT),
                str(HEADER_TIMEOUT_S + SLACK_S),
                stdout=asyncio.subprocess.PIPE,
            )
            assert attacker.stdout is not None
            try:
                opened.update(json.loads(await attacker.stdout.readline()))
                summary_line = asyncio.create_task(attacker.stdout.readline())
                while not summary_line.done():
                    attacked.append(await call_current(client))
                    await asyncio.sleep(0.05)
                summary.update(json.loads(await summary_line))
            finally:
                if attacker.returncode is None:
                    attacker.kill()
                await attacker.wait()
            fds.append(open_fds(host.process.pid))
            after = [await call_current(client) for _ in range(5)]
    finally:  # the figures for the closing note, also when the client broke down
        print(
            f"\ncurrent latency, 0 half-open: median {statistics.median(quiet or [0]) * 1000:.1f} ms, "
            f"max {max(quiet or [0]) * 1000:.1f} ms; under {CONNECTIONS} half-open: median "
            f"{statistics.median(attacked or [0]) * 1000:.1f} ms, max {max(attacked or [0]) * 1000:.1f} ms "
            f"({len(attacked)} calls); attacker {opened} {summary}; host fds {fds}"
        )
    assert opened["connected"] >= CONNECTIONS * 0.9, opened
    assert max(attacked) < 1.0, f"a `current` call took {max(attacked):.2f} s under the flood"
    assert summary["open"] == 0, f"the host still holds half-open connections: {summary}"
    assert summary["last_closed_s"] <= HEADER_TIMEOUT_S + SLACK_S
    assert max(after) < 1.0
    assert fds[1] <= fds[0] + 8  # the sockets are gone on the host's side too



async def test_accept_errors_are_logged_once_then_summarized(spawn: Callable[[], Any]) -> None:
    """Out of descriptors, asyncio logs every failed accept() with a traceback (1,498 in 3.5 s
    before); the host logs the first one in a line and counts the rest."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    port = urlsplit(descriptor["endpoint"]).port
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # a few descriptors above what the running host holds: accept() fails within a few connections
    resource.prlimit(host.process.pid, resource.RLIMIT_NOFILE, (open_fds(host.process.pid) + 4, hard))
    attacker = await asyncio.create_subprocess_exec(
        sys.executable, half_open.__file__, str(port), "100", str(ATTACKER_FD_LIMIT), "3.5",
        stdout=asyncio.subprocess.DEVNULL,
    )
    await attacker.wait()
    log = log_text()
    assert "out of system resource" not in log
    assert log.count("could not accept a connection") == 1, log[-2000:]
    assert log.count("Traceback") == 0


# -- the rules one by one, in process (McpEndpoint with a fake bridge, raw sockets, short limits) --

SHORT = ConnectionLimits(header_timeout_s=0.5, body_idle_timeout_s=0.5, keep_alive_timeout_s=30.0)
LONG = ConnectionLimits(
    header_timeout_s=30.0, body_idle_timeout_s=30.0, keep_alive_timeout_s=30.0, max_connections=8
)


@asynccontextmanager
async def endpoint_with(limits: ConnectionLimits, answer: Any = None) -> AsyncIterator[McpEndpoint]:
    """A started McpEndpoint with `limits`, answering `current` with `answer` (FakeRequester's
    rules; default: a one-element tree)."""
    endpoint = McpEndpoint(
        FakeRequester(default=answer or {"root": {"id": "app", "role": "Application"}}),
        instance="Zm9vYmFyYmF6cXV4cXV1eA",
        connection_limits=limits,
    )
    await endpoint.start()
    try:
        yield endpoint
    finally:
        for raw in Raw.opened:
            raw.close()
        Raw.opened.clear()
        await endpoint.stop()


class Raw:
    """A raw TCP connection to the endpoint: write bytes, see whether the server closed it."""

    opened: ClassVar[list[Raw]] = []
    """Every Raw not yet closed by `endpoint_with` (which closes them before the loop ends)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received = b""

    @classmethod
    async def open(cls, endpoint: McpEndpoint, data: bytes = b"") -> Raw:
        reader, writer = await asyncio.open_connection("127.0.0.1", endpoint.port)
        raw = cls(reader, writer)
        cls.opened.append(raw)
        if data:
            await raw.send(data)
        return raw

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def closed_within(self, timeout_s: float) -> bool:
        """True once the server closed the connection (EOF or reset) within `timeout_s` seconds;
        whatever it sent before is kept in `received`."""
        try:
            async with asyncio.timeout(timeout_s):
                while chunk := await self.reader.read(65536):
                    self.received += chunk
        except TimeoutError:
            return False
        except ConnectionResetError:
            pass
        return True

    async def response(self) -> bytes:
        """Read one response with a Content-Length (head and body) and return it."""
        async with asyncio.timeout(5):
            head = await self.reader.readuntil(b"\r\n\r\n")
            [length] = [
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
            return head + await self.reader.readexactly(length)

    def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()


def request_head(
    endpoint: McpEndpoint, method: str = "POST", path: str | None = None, **headers: str
) -> bytes:
    """A request line and headers with the right Host and the token, then `headers`."""
    lines = [
        f"{method} {path or endpoint.path} HTTP/1.1",
        f"Host: 127.0.0.1:{endpoint.port}",
        f"Authorization: Bearer {endpoint.token}",
        "Accept: application/json, text/event-stream",
        *(f"{name.replace('_', '-')}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


INITIALIZE = json.dumps(INITIALIZE_REQUEST).encode()


async def test_headers_dripped_byte_by_byte_are_cut_off_at_the_header_deadline() -> None:
    async with endpoint_with(SHORT) as endpoint:
        head = request_head(endpoint)
        raw = await Raw.open(endpoint)
        started = time.monotonic()
        for byte in head[:40]:  # one byte every 50 ms: never idle, never complete
            if raw.reader.at_eof():
                break
            with contextlib.suppress(ConnectionError):
                await raw.send(bytes([byte]))
            await asyncio.sleep(0.05)  # the dripping peer's pace is the subject
        assert await raw.closed_within(2.0)
        assert time.monotonic() - started < 0.5 + 0.4
        assert raw.received == b""
        assert len(endpoint.connections) == 0


async def test_a_body_that_pauses_is_closed_and_one_that_flows_is_served() -> None:
    async with endpoint_with(SHORT) as endpoint:
        head = request_head(endpoint, Content_Type="application/json", Content_Length=str(len(INITIALIZE)))
        stalled = await Raw.open(endpoint, head + INITIALIZE[:10])
        flowing = await Raw.open(endpoint, head)
        for start in range(0, len(INITIALIZE), 12):  # slower overall than both timeouts, never idle long
            await flowing.send(INITIALIZE[start : start + 12])
            await asyncio.sleep(0.1)  # the slow peer's pace is the subject
        assert await stalled.closed_within(2.0)
        assert stalled.received == b""
        assert not await flowing.closed_within(0.3)
        assert flowing.received.startswith(b"HTTP/1.1 200 ")
        flowing.close()


async def test_over_the_cap_the_oldest_half_open_goes_first_then_the_oldest_idle() -> None:
    async with endpoint_with(LONG) as endpoint, mcp_client(
        {"endpoint": endpoint.url, "token": endpoint.token}, "legacy"
    ) as client:
        await client.call_tool("current", {})  # its GET stream stays open: being served
        await wait_until(lambda: len(endpoint.connections) == 1, what="only the SSE stream left")
        idle = await Raw.open(endpoint, request_head(endpoint, "GET", "/elsewhere"))
        assert (await idle.response()).startswith(b"HTTP/1.1 404 ")
        half_open = [await Raw.open(endpoint, b"POST / HT") for _ in range(6)]
        await wait_until(lambda: len(endpoint.connections) == 8, what="8 connections")
        newcomers = [await Raw.open(endpoint) for _ in range(3)]
        for old in half_open[:3]:
            assert await old.closed_within(2.0)
        for young in half_open[3:] + newcomers:
            assert not await young.closed_within(0.05)
        assert not await idle.closed_within(0.05)
        for connection in half_open[3:] + newcomers:  # the peers leave: only idle and serving remain
            connection.close()
        await wait_until(lambda: len(endpoint.connections) == 2, what="the half-open ones to leave")
        idles = [await Raw.open(endpoint, request_head(endpoint, "GET", "/elsewhere")) for _ in range(6)]
        for connection in idles:
            await connection.response()
        await wait_until(lambda: len(endpoint.connections) == 8, what="8 connections")
        newcomer = await Raw.open(endpoint)
        assert await idle.closed_within(2.0)  # the oldest idle one
        assert not await idles[0].closed_within(0.05)
        assert not await newcomer.closed_within(0.05)
        answer = await client.call_tool("current", {})  # the session and its stream survived
        assert answer.is_error is False


async def test_the_handoff_closes_a_dripped_handshake_at_the_header_deadline() -> None:
    """The hand-off WebSocket (websockets' `open_timeout`, 10 s by default) has the endpoint's
    header deadline."""
    server = HandoffServer()
    url = await server.start("right")
    port = urlsplit(url).port
    assert port is not None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        started = time.monotonic()
        try:
            with contextlib.suppress(ConnectionError):
                while not reader.at_eof() and time.monotonic() - started < HEADER_TIMEOUT_S + 3:
                    writer.write(b"G")  # never idle, never a complete request
                    await writer.drain()
                    await asyncio.sleep(0.2)  # the dripping peer's pace is the subject
                await reader.read()
            assert time.monotonic() - started < HEADER_TIMEOUT_S + 1.0
        finally:
            writer.close()
    finally:
        await server.stop()


async def test_a_peer_that_pipelines_requests_and_reads_nothing_is_closed() -> None:
    """Without the token: pipelined requests, none of the 401s read, so the handler waits on a full
    write buffer (a connection being served, which no header or body deadline covers)."""
    async with endpoint_with(replace(SHORT, write_stall_timeout_s=0.5)) as endpoint:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        await loop.sock_connect(sock, ("127.0.0.1", endpoint.port))
        requests = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{endpoint.port}\r\n\r\n".encode() * 1000
        closed = False
        try:
            async with asyncio.timeout(15):
                while not closed:
                    try:
                        await loop.sock_sendall(sock, requests)
                    except OSError:  # reset or broken pipe: the server closed it
                        closed = True
        except TimeoutError:
            pass
        finally:
            sock.close()
        assert closed
        assert len(endpoint.connections) == 0


async def test_when_every_connection_is_being_served_the_newcomer_is_closed() -> None:
    era = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "current", "arguments": {}, "_meta": era}
    calls = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}).encode()
    async with endpoint_with(replace(LONG, max_connections=2), answer=HANG) as endpoint:
        head = request_head(
            endpoint,
            Content_Type="application/json",
            Content_Length=str(len(calls)),
            MCP_Protocol_Version="2026-07-28",
            Mcp_Method="tools/call",
            Mcp_Name="current",
        )
        served = [await Raw.open(endpoint, head + calls) for _ in range(2)]  # `current` never answers
        await wait_until(lambda: len(endpoint.connections) == 2, what="2 connections")
        for connection in served:  # no answer: `current` hangs, the handler runs
            assert not await connection.closed_within(0.2)
            assert connection.received == b""
        newcomer = await Raw.open(endpoint, request_head(endpoint, "GET", "/elsewhere"))
        assert await newcomer.closed_within(2.0), newcomer.received
        assert newcomer.received == b""
        for connection in served:
            assert not await connection.closed_within(0.05)
