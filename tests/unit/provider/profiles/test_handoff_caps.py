"""The hand-off port's connection caps (provider/profiles/handoff_limits.py): token-less
connections cannot hold the provider's descriptors, and followers are capped; a real follower
still connects (docs/internals/native-host.md "Threat model")."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect

from native_host.provider.http.connections import ACCEPT_BATCH
from native_host.provider.profiles.handoff_limits import (
    CLOSE_TRY_AGAIN,
    MAX_FOLLOWERS,
    MAX_HANDOFF_CONNECTIONS,
)
from native_host.provider.profiles.handoff_server import HandoffServer
from tests.support import half_open
from tests.support.host_process import Host, log_text, mcp_client, ready_descriptor, wait_until

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="counts the host's descriptors in /proc (Linux)"
)

CONNECTIONS = 3000
WATCH_S = 6.0
"""How long the attacker holds its connections, in seconds (past the 5 s handshake limit)."""


def open_fds(pid: int) -> int:
    """How many descriptors process `pid` has open (Linux /proc)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


async def test_3000_token_less_connections_leave_fds_bounded_and_a_follower_connects(
    spawn: Callable[[], Any],
) -> None:
    """On main every connection was held (12 → 1,600 descriptors) until its 5 s handshake limit."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    port = urlsplit(descriptor["handoff"]).port
    baseline = open_fds(host.process.pid)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    attacker = await asyncio.create_subprocess_exec(
        sys.executable, half_open.__file__, str(port), str(CONNECTIONS), str(min(hard, CONNECTIONS + 256)),
        str(WATCH_S), stdout=asyncio.subprocess.PIPE,
    )
    assert attacker.stdout is not None
    fds: list[int] = []
    try:
        opened = json.loads(await asyncio.wait_for(attacker.stdout.readline(), 60))
        fds.append(open_fds(host.process.pid))
        # a real follower, while the attacker still holds what the host left it
        async with connect(
            descriptor["handoff"], additional_headers={"Authorization": f"Bearer {descriptor['token']}"},
            open_timeout=10,
        ) as ws:
            await ws.send(json.dumps({"type": "follower.hello", "instance": "real"}))
            root = {"id": "app", "role": "Application", "children": [
                {"id": "win-1", "role": "Window", "children": [{"id": "tab-1", "role": "Page"}]}]}
            await ws.send(json.dumps({"type": "tree", "complete": True, "root": root}))
            fds.append(open_fds(host.process.pid))
            async with mcp_client(descriptor, "auto") as client:
                seen: list[Any] = []

                async def merged() -> bool:
                    answer = await client.call_tool("current", {})
                    seen.append(answer.structured_content)
                    return "f1-win-1" in json.dumps(answer.structured_content)

                async with asyncio.timeout(20):
                    while not await merged():
                        await asyncio.sleep(0.1)
        summary = json.loads(await asyncio.wait_for(attacker.stdout.readline(), WATCH_S + 30))
    finally:
        if attacker.returncode is None:
            attacker.kill()
        await attacker.wait()
    lines = log_text().count("hand-off connection")
    assert lines <= 12, f"{lines} log lines about hand-off connections"  # a budget, not one per connection
    print(f"\nhand-off flood: attacker {opened} {summary}; host fds baseline {baseline}, flood {fds}")
    assert opened["connected"] + opened["failed"] == CONNECTIONS
    # live connections, one accept batch not yet admitted, and a few aborted ones not yet closed
    assert max(fds) <= baseline + MAX_HANDOFF_CONNECTIONS + 2 * ACCEPT_BATCH + 16, fds


async def test_a_follower_over_the_cap_is_closed_with_the_reason() -> None:
    server = HandoffServer()
    url = await server.start("right")
    headers = {"Authorization": "Bearer right"}
    followers = []
    try:
        for n in range(MAX_FOLLOWERS):
            ws = await connect(url, additional_headers=headers)
            await ws.send(json.dumps({"type": "follower.hello", "instance": f"i-{n}"}))
            followers.append(ws)
        await wait_until(lambda: len(server.followers) == MAX_FOLLOWERS, what="the followers")
        async with connect(url, additional_headers=headers) as extra:
            await extra.send(json.dumps({"type": "follower.hello", "instance": "one-too-many"}))
            await asyncio.wait_for(extra.wait_closed(), 10)
        assert extra.close_code == CLOSE_TRY_AGAIN
        assert f"{MAX_FOLLOWERS} followers" in (extra.close_reason or "")
        assert len(server.followers) == MAX_FOLLOWERS
        await followers.pop().close()  # one leaves: the next one is let in
        await wait_until(lambda: len(server.followers) == MAX_FOLLOWERS - 1, what="the follower gone")
        async with connect(url, additional_headers=headers) as again:
            await again.send(json.dumps({"type": "follower.hello", "instance": "next"}))
            await wait_until(lambda: len(server.followers) == MAX_FOLLOWERS, what="the next follower")
    finally:
        for ws in followers:
            await ws.close()
        await server.stop()
