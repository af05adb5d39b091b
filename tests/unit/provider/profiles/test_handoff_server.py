"""handoff_server.py: the provider's hand-off WebSocket refuses what the MCP endpoint refuses
(security.py: Origin 403 → Host 421 → bearer 401, then the path 404), and a follower connection
sends the request bytes it always sent, fails its requests when the follower goes, and keeps only
a pushed tree of the right shape (design.md §3)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from native_host.errors import ExtensionError, ProviderUnavailable
from native_host.protocol.handoff import FollowerTree, HandoffError, HandoffResult
from native_host.protocol.native import (
    CurrentRequest,
    ErrorBody,
    HostRequest,
    LocationRequest,
    ToolCallRequest,
)
from native_host.provider.http import security
from native_host.provider.port.correlator import numbered_ids
from native_host.provider.profiles.handoff_server import FollowerConnection, HandoffServer
from tests.support.profiles import RecordingConnection
from tests.support.waiting import until


async def test_the_server_refuses_origin_and_wrong_tokens() -> None:
    server = HandoffServer()
    url = await server.start("right")
    try:
        for headers, status in (
            ({"Authorization": "Bearer right", "Origin": "https://evil.example"}, 403),
            ({"Authorization": "Bearer wrong"}, 401),
            ({}, 401),
        ):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(url, additional_headers=headers, open_timeout=5):
                    pass
            assert refused.value.response.status_code == status
    finally:
        await server.stop()


@pytest.fixture
async def handoff_port() -> AsyncIterator[int]:
    """A HandoffServer's port; its token is `right`."""
    server = HandoffServer()
    url = await server.start("right")
    try:
        yield int(url.rsplit(":", 1)[1].split("/")[0])
    finally:
        await server.stop()


async def status_of(
    port: int, headers: dict[str, str], *, host: str | None = None, path: str = "/handoff"
) -> int:
    """The HTTP status the hand-off answers a WebSocket handshake with (101 when it opens); `host`
    is the Host header sent (the URL's host, while the socket goes to 127.0.0.1:`port`)."""
    sock = socket.create_connection(("127.0.0.1", port))
    try:
        async with connect(
            f"ws://{host or f'127.0.0.1:{port}'}{path}", sock=sock, additional_headers=headers, open_timeout=5
        ):
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


async def test_the_handoff_refuses_an_origin_before_it_reads_the_token(
    handoff_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same check, in the same place, as the MCP endpoint's (security.py; design.md §1)."""

    def token_must_not_be_read(authorization: bytes, token: bytes) -> bool:
        raise AssertionError("the token was looked at")

    monkeypatch.setattr(security, "token_matches", token_must_not_be_read)
    for origin in ("https://evil.example", "null", "chrome-extension://abc"):
        assert await status_of(handoff_port, {"Authorization": "Bearer right", "Origin": origin}) == 403


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "[::1]:{port}", "localhost:1"])
async def test_the_handoff_refuses_a_host_other_than_loopback_with_its_port(
    handoff_port: int, host: str
) -> None:
    headers = {"Authorization": "Bearer right"}
    assert await status_of(handoff_port, headers, host=host.format(port=handoff_port)) == 421


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic right"}, {"Authorization": "right"},
     {"Authorization": "Bearer"}, {"Authorization": "Bearer righ"}],
)
async def test_the_handoff_refuses_a_missing_or_wrong_token(
    handoff_port: int, headers: dict[str, str]
) -> None:
    assert await status_of(handoff_port, headers) == 401


async def test_the_handoff_lets_in_loopback_hosts_with_the_token_and_knows_its_path(
    handoff_port: int,
) -> None:
    good = {"Authorization": "bEaReR right"}
    assert await status_of(handoff_port, good) == 101
    assert await status_of(handoff_port, good, host=f"localhost:{handoff_port}") == 101
    assert await status_of(handoff_port, good, path="/other") == 404


async def test_the_provider_sends_each_request_in_one_envelope_without_the_followers_prefix() -> None:
    connection = RecordingConnection()
    follower = FollowerConnection(2, connection, numbered_ids("p-"))  # type: ignore[arg-type]

    async def answered(request: HostRequest, deadline_ms: int) -> Any:
        before = len(connection.sent)
        task = asyncio.create_task(follower.request(request, deadline_ms=deadline_ms))
        await until(lambda: len(connection.sent) > before, interval_s=0, message=f"{request.type} sent")
        follower.on_reply(HandoffResult(id=json.loads(connection.sent[-1])["id"], result="ok"))
        return await task

    assert await answered(LocationRequest(element_id="f2-sel-1"), 3000) == "ok"
    assert await answered(ToolCallRequest(page_id="f2-tab-7", name="add", input={"a": 1}), 60000) == "ok"
    assert await answered(CurrentRequest(), 2800) == "ok"
    assert connection.sent == [
        b'{"type":"location","elementId":"sel-1","id":"p-1","deadlineMs":3000}',
        b'{"type":"tools.call","pageId":"tab-7","name":"add","input":{"a":1},"id":"p-2","deadlineMs":60000}',
        b'{"type":"current","id":"p-3","deadlineMs":2800}',
    ]


async def test_a_followers_error_reply_raises_its_code_and_a_gone_follower_fails_every_request() -> None:
    connection = RecordingConnection()
    follower = FollowerConnection(1, connection, numbered_ids("p-"))  # type: ignore[arg-type]
    task = asyncio.create_task(follower.request(CurrentRequest(), deadline_ms=2000))
    await until(lambda: len(connection.sent) == 1, interval_s=0, message="the first request sent")
    follower.on_reply(HandoffError(id="p-1", error=ErrorBody(code="page_gone", message="x")))
    with pytest.raises(ExtensionError) as failed:
        await task
    assert failed.value.code == "page_gone"
    waiting = asyncio.create_task(follower.request(CurrentRequest(), deadline_ms=2000))
    await until(lambda: len(connection.sent) == 2, interval_s=0, message="the second request sent")
    follower.close()
    with pytest.raises(ProviderUnavailable):
        await waiting
    with pytest.raises(ProviderUnavailable):
        await follower.request(CurrentRequest(), deadline_ms=2000)
    assert follower.pending.pending_count == 0


def test_a_follower_tree_of_the_wrong_shape_is_not_kept() -> None:
    follower = FollowerConnection(1, None, lambda: "p-1")  # type: ignore[arg-type]
    follower.set_tree(FollowerTree(complete=True, root={"id": "bad id!", "role": "Application"}))
    assert follower.cached_windows() is None
    follower.set_tree(FollowerTree(complete=True, root={"id": "app", "role": "Application"}))
    assert follower.cached_windows() == ([], False)
