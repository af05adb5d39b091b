"""refusal_log.py through a real `python -m native_host` (tests/support/host_process.py): a
token-less flood of the MCP endpoint and the hand-off leaves the start-up lines in the log and the
log folder far below the rotation size (item 6); and RefusalLog's window on its own."""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from native_host.__main__ import LOG_MAX_BYTES
from native_host.paths import log_dir
from native_host.provider.http.refusal_log import FIRST_PER_WINDOW, RefusalLog
from tests.support.host_process import Host, log_text, ready_descriptor
from tests.support.waiting import until

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

FLOOD_MCP = 3000
FLOOD_HANDOFF = 1000
FLOOD_GARBAGE = 300
PARALLEL = 50


async def _status(port: int, request: bytes) -> bytes:
    """Send `request` on a new connection to 127.0.0.1:`port`; the response's status line."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()


async def _flood(port: int, requests: list[bytes]) -> list[bytes]:
    """Every request in `requests`, PARALLEL at a time; their status lines."""
    gate = asyncio.Semaphore(PARALLEL)

    async def one(request: bytes) -> bytes:
        async with gate:
            try:
                return await _status(port, request)
            except (OSError, TimeoutError) as exc:
                return repr(exc).encode()

    return await asyncio.gather(*(one(r) for r in requests))


def _mcp_requests(port: int, path: str) -> list[bytes]:
    """Token-less (401), Origin (403), wrong-Host (421) and Upgrade (401) POSTs, in turn."""
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    kinds = [
        f"Host: 127.0.0.1:{port}\r\n",
        f"Host: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\n",
        "Host: evil.example\r\n",
        # uvicorn (ws="none") warned twice per request with an Upgrade header, then the guard refused it
        f"Host: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",
    ]
    return [
        (
            f"POST {path} HTTP/1.1\r\n{kinds[n % 4]}Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        for n in range(FLOOD_MCP)
    ]


def _handoff_requests(port: int) -> list[bytes]:
    """Token-less WebSocket handshakes (401), plain GETs and bytes that are not HTTP."""
    handshake = (
        f"GET /handoff HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    plain_get = f"GET /handoff HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    garbage = b"\x16\x03\x01 not http at all\r\n\r\n"
    return [handshake, handshake, plain_get, garbage] * (FLOOD_HANDOFF // 4)


async def test_a_token_less_flood_keeps_the_start_up_lines_and_the_log_small(
    spawn: Callable[[], Any],
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    start_up = log_text()
    assert "native host started" in start_up and "MCP endpoint listening" in start_up
    endpoint = urlsplit(descriptor["endpoint"])
    handoff = urlsplit(descriptor["handoff"])
    assert endpoint.port is not None and handoff.port is not None

    loop = asyncio.get_running_loop()
    began = loop.time()
    mcp = await _flood(endpoint.port, _mcp_requests(endpoint.port, endpoint.path))
    handed = await _flood(handoff.port, _handoff_requests(handoff.port))
    garbage = await _flood(endpoint.port, [b"\x16\x03\x01 not http at all\r\n\r\n"] * FLOOD_GARBAGE)
    took = loop.time() - began
    print(f"\n{FLOOD_MCP + FLOOD_HANDOFF + FLOOD_GARBAGE} refused requests in {took:.1f} s")
    assert {line.split(b" ")[1] for line in mcp} == {b"401", b"403", b"421"}
    # websockets closes the connection on a plain GET or on bytes that are not HTTP, without a
    # response and (its logger at WARNING: __main__.py) without a line; with 50 at once over the
    # hand-off's 8 pending connections, the oldest pending ones are aborted (handoff_limits.py)
    assert {line[:12] for line in handed} <= {b"", b"HTTP/1.1 401", b"ConnectionRe"}
    assert b"HTTP/1.1 401" in {line[:12] for line in handed}
    assert all(line.startswith(b"HTTP/1.1 400") for line in garbage)

    host.close_stdin()  # the endpoint's stop writes the summary of what was counted
    assert await host.wait_exit(10) == 0
    text = log_text()
    sizes = {path.name: path.stat().st_size for path in log_dir().iterdir()}
    print(f"log folder after the flood: {sizes}")
    assert list(sizes) == ["native-host.log"]  # nothing rotated
    assert sum(sizes.values()) < LOG_MAX_BYTES // 50  # far below the rotation size (~40 KiB)
    assert text.startswith(start_up)  # the start-up lines are still the file's first lines
    refusal_lines = [line for line in text.splitlines() if "refused" in line]
    assert len(refusal_lines) <= 2 * (FIRST_PER_WINDOW + 1)
    counted = sum(
        int(match.group(1).replace(",", ""))
        for match in re.finditer(r"refused ([\d,]+) (?:more )?requests? in the last \d+ s", text)
    )
    refused = sum(1 for line in [*mcp, *handed, *garbage] if line and not line.startswith(b"Connection"))
    assert counted >= refused - 2 * FIRST_PER_WINDOW
    assert descriptor["token"] not in text


def test_the_window_logs_the_first_few_then_one_summary(caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    logger = logging.getLogger("tests.refusals")
    refusals = RefusalLog(logger, window_s=60, first=3, clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="tests.refusals")
    for n in range(1000):  # over 59.94 s
        refusals.refused("MCP endpoint" if n % 4 else "hand-off", 401 if n % 2 else 403, "why")
        now[0] += 0.06
    assert [r.getMessage() for r in caplog.records] == [
        "refused a request to the hand-off with 403: why",
        "refused a request to the MCP endpoint with 401: why",
        "refused a request to the MCP endpoint with 403: why",
    ]
    now[0] += 1  # the next window: its first refusal writes the last window's summary first
    refusals.refused("hand-off", 421, "why")
    summary = caplog.records[3]
    assert summary.levelno == logging.WARNING
    assert summary.getMessage() == (
        "refused 997 more requests in the last 60 s "
        "(MCP endpoint 401: 499; MCP endpoint 403: 249; hand-off 403: 249)"
    )
    assert len(caplog.records) == 4  # the flood goes on: counted, not logged one by one
    refusals.flush()
    assert caplog.records[4].getMessage() == "refused 1 request in the last 1 s (hand-off 421: 1)"


def test_a_flood_that_goes_on_costs_one_line_an_hour_and_a_quiet_window_ends_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    logger = logging.getLogger("tests.refusals")
    refusals = RefusalLog(logger, window_s=60, max_window_s=3600, first=5, clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="tests.refusals")
    for _ in range(24 * 3600):  # a refusal a second for a day
        refusals.refused("MCP endpoint", 401, "why")
        now[0] += 1.0
    lines = [r.getMessage() for r in caplog.records]
    print(f"\n{len(lines)} lines for a day of a refusal a second")
    assert len(lines) <= 5 + 7 + 24  # the first five, windows of 1, 1, 2, 4, … 32 min, then hourly
    assert sum(int(line.split()[1].replace(",", "")) for line in lines[5:]) < 24 * 3600
    now[0] += 3601  # a whole window without a refusal: the flood is over
    caplog.clear()
    refusals.refused("hand-off", 403, "why")
    assert caplog.records[-1].getMessage() == "refused a request to the hand-off with 403: why"


async def test_the_summary_is_written_when_the_window_ends_without_another_refusal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("tests.refusals")
    refusals = RefusalLog(logger, window_s=0.2, first=1)
    caplog.set_level(logging.INFO, logger="tests.refusals")
    for _ in range(10):
        refusals.refused("MCP endpoint", 401, "why")
    await until(lambda: len(caplog.records) >= 2, timeout_s=2, message="the summary at the window's end")
    assert [r.getMessage() for r in caplog.records] == [
        "refused a request to the MCP endpoint with 401: why",
        "refused 9 more requests in the last 1 s (MCP endpoint 401: 9)",
    ]
