"""A browser quit while an MCP client holds the notification stream is a normal quit.

A real `python -m native_host` (tests/support/host_process.py, `spawn` in conftest.py) with a real
MCP client holding its notification stream: the 2025-11-25 GET/SSE stream, or the 2026-07-28
`subscriptions/listen` stream. The browser quits (stdin closes); the host must exit well before the
browser's SIGKILL (~2 s) and its log must hold no ERROR and no traceback. Before the fix, a held
GET stream made uvicorn log `Cancel 1 running task(s), timeout graceful shutdown exceeded` and an
`Exception in ASGI application` traceback (endpoint.py `McpEndpoint.stop`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.host_process import WAIT_S, Host, log_text, mcp_client, ready_descriptor

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

BROWSER_KILL_S = 2.0
"""Chromium SIGKILLs a native host this long after closing its stdin (serving.py STOP_TIMEOUT_S)."""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_quit_with_a_held_notification_stream_logs_no_error_and_is_fast(
    spawn: Callable[[], Any], tmp_path: Path, mode: Literal["legacy", "auto"]
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    holding = asyncio.Event()
    leave = asyncio.Event()

    async def client_holding_the_stream() -> None:
        with contextlib.suppress(Exception):
            async with mcp_client(descriptor, mode) as client:
                await client.call_tool("current", {})
                if mode == "legacy":  # the SDK opens the GET stream after `initialized`
                    holding.set()
                    await leave.wait()
                else:
                    async with client.listen(tools_list_changed=True):
                        holding.set()
                        await leave.wait()

    task = asyncio.create_task(client_holding_the_stream())
    try:
        async with asyncio.timeout(WAIT_S):
            await holding.wait()
        await asyncio.sleep(0.3)  # the GET stream is opened in the background: let it reach the host
        quit_at = time.monotonic()
        host.close_stdin()
        code = await host.wait_exit(BROWSER_KILL_S)
        exit_s = time.monotonic() - quit_at
    finally:
        leave.set()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    print(f"{mode}: exit {exit_s * 1e3:.0f} ms after stdin closed")
    assert code == 0
    assert exit_s < 1.5, "the host must be gone well before the browser's SIGKILL"
    log = log_text()
    assert "stopping: stdin EOF" in log and "MCP endpoint stopped" in log
    stderr = (tmp_path / "host-0.stderr").read_text(errors="replace")
    for text in (log, stderr):
        assert " ERROR " not in text
        assert "Traceback" not in text
        assert "graceful shutdown exceeded" not in text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_call_in_flight_at_the_quit_still_gets_its_answer_quietly(
    spawn: Callable[[], Any], tmp_path: Path, mode: Literal["legacy", "auto"]
) -> None:
    """Ending the notification streams must not cut the answer of a call the quit interrupts
    (app.py fails pending requests with "no longer connected" before the endpoint stops)."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    host.answer_current = False  # the extension never answers: the call is still running at the quit
    connected = asyncio.Event()

    async def call() -> Any:
        async with mcp_client(descriptor, mode) as client:
            connected.set()
            return await client.call_tool("current", {})

    task = asyncio.create_task(call())
    async with asyncio.timeout(WAIT_S):
        await connected.wait()
    frame = await host.receive()  # the call has reached the host and waits for the extension
    assert frame["type"] == "current"
    host.close_stdin()
    assert await host.wait_exit(BROWSER_KILL_S) == 0
    async with asyncio.timeout(5):
        result = await task
    assert result.is_error is True
    assert "no longer connected" in result.content[0].text
    log = log_text() + (tmp_path / "host-0.stderr").read_text(errors="replace")
    assert " ERROR " not in log and "Traceback" not in log
