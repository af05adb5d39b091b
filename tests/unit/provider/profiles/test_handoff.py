"""handoff.py: later native hosts of one browser hand their windows to the provider (SPEC §3)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from native_host.provider.profiles.handoff import HandoffServer, ProfileHandoff, merge_windows, prefix_ids
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


async def test_a_standby_host_follows_the_provider_and_its_windows_join_current(tmp_path: Path) -> None:
    provider = ProfileHandoff(FakeExtension(window("win-1", focused=True)), instance="A")
    focused_window = window("win-1", tab="tab-7", focused=True)
    follower = ProfileHandoff(FakeExtension(focused_window, focused=True), instance="B")
    descriptor = tmp_path / "org.chromium.Chromium-1.json"
    url = await provider.start("token-A")
    await follower.start("token-B")
    descriptor.write_text(json.dumps({"instance": "A", "token": "token-A", "handoff": url}))
    provider.on_role_change("provider")
    follower.descriptor_path = descriptor
    follower.on_role_change("standby")
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
    follower.descriptor_path = descriptor
    pushed = {"root": {"id": "app", "role": "Application", "children": [window("win-9", tab="tab-9")]}}
    follower.set_tree({**pushed, "windowFocused": False})  # before it follows: sent at connect
    follower.on_role_change("standby")

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
    from native_host.provider.profiles.handoff import _Follower

    follower = _Follower(1, None, lambda: "p-1")  # type: ignore[arg-type]
    follower.set_tree({"type": "tree", "complete": True, "root": {"id": "bad id!", "role": "Application"}})
    assert follower.cached_windows() is None
    follower.set_tree({"type": "tree", "complete": True, "root": {"id": "app", "role": "Application"}})
    assert follower.cached_windows() == ([], False)
