"""handoff.py: later native hosts of one browser hand their windows to the provider (SPEC §3)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from native_host.errors import ExtensionError, ProviderUnavailable
from native_host.protocol.handoff import FollowerTree, HandoffError, HandoffResult
from native_host.protocol.native import ErrorBody
from native_host.provider import security
from native_host.provider.correlator import numbered_ids
from native_host.provider.profiles.follower_link import FollowerLink
from native_host.provider.profiles.handoff import ProfileHandoff
from native_host.provider.profiles.handoff_server import FollowerConnection, HandoffServer
from native_host.provider.profiles.merge import merge_windows, prefix_ids
from tests.support.requester import FakeRequester, SentRequest


def window(id_: str, *, focused: bool = False, tab: str = "tab-1") -> dict[str, Any]:
    element: dict[str, Any] = {"id": id_, "role": "Window", "children": [{"id": tab, "role": "Page"}]}
    if focused:
        element["focused"] = True
        element["children"][0]["focused"] = True
    return element


class FakeExtension(FakeRequester):
    """Answers `current` with a root holding `windows`; `focused` is its `windowFocused`."""

    def __init__(self, *windows: dict[str, Any], focused: bool = False) -> None:
        super().__init__()
        self.windows = list(windows)
        self.focused = focused

    async def answer(self, sent: SentRequest) -> Any:
        assert sent.type == "current"
        root = {"id": "app", "role": "Application", "children": self.windows}
        return {"root": root, "windowFocused": self.focused}


def test_follower_ids_are_prefixed_all_the_way_down() -> None:
    assert prefix_ids(window("win-1"), "f2-") == {
        "id": "f2-win-1", "role": "Window", "children": [{"id": "f2-tab-1", "role": "Page"}]
    }


def test_merging_keeps_the_providers_focus_path_when_no_profile_has_focus() -> None:
    own = {"root": {"id": "app", "role": "Application", "children": [window("win-1", focused=True)]}}
    merged = merge_windows(own, [([prefix_ids(window("win-1", focused=True), "f1-")], False)])
    children = merged["root"]["children"]
    assert [w["id"] for w in children] == ["win-1", "f1-win-1"]
    assert children[0]["focused"] and "focused" not in children[1]
    assert "focused" not in children[1]["children"][0]


def test_the_profile_whose_window_really_has_focus_keeps_the_focus_path() -> None:
    own = {
        "root": {"id": "app", "role": "Application", "children": [window("win-1", focused=True)]},
        "windowFocused": False,
    }
    merged = merge_windows(
        own, [([window("f1-win-1", focused=True)], False), ([window("f2-win-1", focused=True)], True)]
    )
    focused = [w["id"] for w in merged["root"]["children"] if w.get("focused")]
    assert focused == ["f2-win-1"]
    assert "focused" not in merged["root"]["children"][0]["children"][0]


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
    """The same check, in the same place, as the MCP endpoint's (security.py; SPEC §1)."""

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


class RecordingConnection:
    """Stands in for a WebSocket connection: records what is sent."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send(self, data: bytes) -> None:
        self.sent.append(data)


async def test_the_provider_sends_the_requests_bytes_it_always_sent() -> None:
    connection = RecordingConnection()
    follower = FollowerConnection(2, connection, numbered_ids("p-"))  # type: ignore[arg-type]

    async def answered(type_: str, body: dict[str, Any] | None, deadline_ms: int) -> Any:
        task = asyncio.create_task(follower.request(type_, body, deadline_ms=deadline_ms))
        await asyncio.sleep(0)
        follower.on_reply(HandoffResult(id=json.loads(connection.sent[-1])["id"], result="ok"))
        return await task

    assert await answered("location", {"elementId": "f2-sel-1"}, 3000) == "ok"
    body = {"pageId": "f2-tab-7", "name": "add", "input": {"a": 1}, "deadlineMs": 60000}
    assert await answered("tools.call", body, 60000) == "ok"
    assert await answered("current", None, 2800) == "ok"
    assert connection.sent == [
        b'{"elementId":"sel-1","type":"location","id":"p-1","deadlineMs":3000}',
        b'{"pageId":"tab-7","name":"add","input":{"a":1},"deadlineMs":60000,"type":"tools.call","id":"p-2"}',
        b'{"type":"current","id":"p-3","deadlineMs":2800}',
    ]


async def test_a_followers_error_reply_raises_its_code_and_a_gone_follower_fails_every_request() -> None:
    follower = FollowerConnection(1, RecordingConnection(), numbered_ids("p-"))  # type: ignore[arg-type]
    task = asyncio.create_task(follower.request("current", deadline_ms=2000))
    await asyncio.sleep(0)
    follower.on_reply(HandoffError(id="p-1", error=ErrorBody(code="page_gone", message="x")))
    with pytest.raises(ExtensionError) as failed:
        await task
    assert failed.value.code == "page_gone"
    waiting = asyncio.create_task(follower.request("current", deadline_ms=2000))
    await asyncio.sleep(0)
    follower.close()
    with pytest.raises(ProviderUnavailable):
        await waiting
    with pytest.raises(ProviderUnavailable):
        await follower.request("current", deadline_ms=2000)
    assert follower.pending.pending_count == 0


async def test_the_follower_answers_with_the_bytes_it_always_sent(tmp_path: Path) -> None:
    link = FollowerLink(tmp_path / "none.json", "B", FakeExtension(window("win-1")), deadline_ms=3000)
    connection = RecordingConnection()
    await link._answer(connection, b'{"type":"current","id":"p-4","deadlineMs":2800}')  # type: ignore[arg-type]
    await link._answer(connection, b'{"callId":"p-9","type":"tools.cancel","id":"p-5","deadlineMs":2000}')  # type: ignore[arg-type]
    await link._answer(connection, b'{"type":"nope","id":"p-6"}')  # type: ignore[arg-type]
    assert connection.sent == [
        b'{"type":"result","id":"p-4","result":{"root":{"id":"app","role":"Application","children":'
        b'[{"id":"win-1","role":"Window","children":[{"id":"tab-1","role":"Page"}]}]},"windowFocused":false}}',
        b'{"type":"result","id":"p-5","result":{"cancelled":false}}',
    ]


async def test_a_standby_host_follows_the_provider_and_its_windows_join_current(tmp_path: Path) -> None:
    provider = ProfileHandoff(FakeExtension(window("win-1", focused=True)), instance="A")
    focused_window = window("win-1", tab="tab-7", focused=True)
    follower = ProfileHandoff(FakeExtension(focused_window, focused=True), instance="B")
    descriptor = tmp_path / "org.chromium.Chromium-1.json"
    url = await provider.start("token-A")
    await follower.start("token-B")
    descriptor.write_text(json.dumps({"instance": "A", "token": "token-A", "handoff": url}))
    provider.on_role_change("provider")
    follower.on_role_change("standby", descriptor)
    try:
        async with asyncio.timeout(5):
            while not provider.server.followers:
                await asyncio.sleep(0.01)
        answer = await provider.requester.request("current", deadline_ms=2000)
        ids = [w["id"] for w in answer["root"]["children"]]
        assert ids == ["win-1", "f1-win-1"]
        assert answer["root"]["children"][1]["children"][0]["id"] == "f1-tab-7"
        # the follower's window has the focus now: the focus path is its own
        assert [w["id"] for w in answer["root"]["children"] if w.get("focused")] == ["f1-win-1"]
        # The follower's own endpoint (if asked) answers for its own profile only.
        own = await follower.requester.request("current", deadline_ms=2000)
        assert [w["id"] for w in own["root"]["children"]] == ["win-1"]
    finally:
        await follower.stop()
        await provider.stop()


class CountingExtension(FakeExtension):
    """A FakeExtension that counts the `current` requests reaching it."""

    def __init__(self, *windows: dict[str, Any], focused: bool = False) -> None:
        super().__init__(*windows, focused=focused)
        self.asked = 0

    async def answer(self, sent: SentRequest) -> Any:
        self.asked += 1
        return await super().answer(sent)


class CachedExtension(FakeExtension):
    """Answers with the same object every time, as a host answering from its pushed tree does."""

    async def answer(self, sent: SentRequest) -> Any:
        if not hasattr(self, "cached"):
            self.cached = await super().answer(sent)
        return self.cached


async def test_a_follower_pushes_its_tree_and_the_provider_merges_it_without_asking(tmp_path: Path) -> None:
    provider = ProfileHandoff(CachedExtension(window("win-1", focused=True)), instance="A")
    follower_ext = CountingExtension(window("win-1", tab="tab-3"))
    follower = ProfileHandoff(follower_ext, instance="B")
    descriptor = tmp_path / "org.chromium.Chromium-1.json"
    url = await provider.start("token-A")
    await follower.start("token-B")
    descriptor.write_text(json.dumps({"instance": "A", "token": "token-A", "handoff": url}))
    provider.on_role_change("provider")
    pushed = {"root": {"id": "app", "role": "Application", "children": [window("win-9", tab="tab-9")]}}
    follower.set_tree({**pushed, "windowFocused": False})  # before it follows: sent at connect
    follower.on_role_change("standby", descriptor)

    async def wait_for(predicate: Any) -> None:
        async with asyncio.timeout(5):
            while not predicate():
                await asyncio.sleep(0.01)

    try:
        await wait_for(lambda: any(f.tree for f in provider.server.followers.values()))
        first = await provider.requester.request("current", deadline_ms=2000)
        again = await provider.requester.request("current", deadline_ms=2000)
        assert [w["id"] for w in first["root"]["children"]] == ["win-1", "f1-win-9"]
        assert first["root"]["children"][1]["children"][0]["id"] == "f1-tab-9"
        assert again is first  # merged once per pushed tree
        assert follower_ext.asked == 0
        # A change: the new tree replaces the old one; focus moves to the follower's window.
        focused_root = {**pushed["root"], "children": [window("win-9", focused=True)]}
        follower.set_tree({"root": focused_root, "windowFocused": True})
        await wait_for(lambda: next(iter(provider.server.followers.values())).tree["windowFocused"])
        answer = await provider.requester.request("current", deadline_ms=2000)
        assert [w["id"] for w in answer["root"]["children"] if w.get("focused")] == ["f1-win-9"]
        # No complete tree (its worker needs a page asked): the provider asks it as before.
        follower.set_tree(None)
        await wait_for(lambda: next(iter(provider.server.followers.values())).tree is None)
        answer = await provider.requester.request("current", deadline_ms=2000)
        assert [w["id"] for w in answer["root"]["children"]] == ["win-1", "f1-win-1"]
        assert follower_ext.asked == 1
    finally:
        await follower.stop()
        await provider.stop()


def test_a_follower_tree_of_the_wrong_shape_is_not_kept() -> None:
    follower = FollowerConnection(1, None, lambda: "p-1")  # type: ignore[arg-type]
    follower.set_tree(FollowerTree(complete=True, root={"id": "bad id!", "role": "Application"}))
    assert follower.cached_windows() is None
    follower.set_tree(FollowerTree(complete=True, root={"id": "app", "role": "Application"}))
    assert follower.cached_windows() == ([], False)
