"""Half-open connections against a real host (issue 13, item 2; provider/connections.py): a local
process without the token holds 1,000 connections (no bytes, partial headers, headers and a
partial body) while a real MCP client calls `current` over fresh TCP connections."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from native_host.provider.connections import HEADER_TIMEOUT_S
from tests.support import half_open
from tests.support.host_process import Host, mcp_client, ready_descriptor

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
