"""merge_layer.py: `current` on a host with followers merges a follower's pushed tree once,
without asking it, and asks it again while it has no complete tree (design.md §3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from native_host.protocol.native import CurrentRequest
from native_host.provider.profiles.handoff import ProfileHandoff
from tests.support.profiles import FakeExtension, served, window
from tests.support.requester import SentRequest
from tests.support.waiting import until


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

    try:
        await until(lambda: any(f.tree for f in provider.server.followers.values()))
        first = await served(provider).request(CurrentRequest(), deadline_ms=2000)
        again = await served(provider).request(CurrentRequest(), deadline_ms=2000)
        assert [w["id"] for w in first["root"]["children"]] == ["win-1", "f1-win-9"]
        assert first["root"]["children"][1]["children"][0]["id"] == "f1-tab-9"
        assert again is first  # merged once per pushed tree
        assert follower_ext.asked == 0
        # A change: the new tree replaces the old one; focus moves to the follower's window.
        focused_root = {**pushed["root"], "children": [window("win-9", focused=True)]}
        follower.set_tree({"root": focused_root, "windowFocused": True})
        await until(lambda: next(iter(provider.server.followers.values())).tree["windowFocused"])
        answer = await served(provider).request(CurrentRequest(), deadline_ms=2000)
        assert [w["id"] for w in answer["root"]["children"] if w.get("focused")] == ["f1-win-9"]
        # No complete tree (its worker needs a page asked): the provider asks it as before.
        follower.set_tree(None)
        await until(lambda: next(iter(provider.server.followers.values())).tree is None)
        answer = await served(provider).request(CurrentRequest(), deadline_ms=2000)
        assert [w["id"] for w in answer["root"]["children"]] == ["win-1", "f1-win-1"]
        assert follower_ext.asked == 1
    finally:
        await follower.stop()
        await provider.stop()
