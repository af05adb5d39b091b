"""handoff.py: later native hosts of one browser hand their windows to the provider (design.md §3):
ProfileHandoff ties the server, the merging requester and the follower link together, whatever the
host's role. The parts have their own tests: test_handoff_server.py, test_merge.py,
test_merge_layer.py, test_follower_link.py."""

from __future__ import annotations

import json
from pathlib import Path

from native_host.protocol.native import CurrentRequest
from native_host.provider.profiles.handoff import ProfileHandoff
from tests.support.profiles import FakeExtension, served, window
from tests.support.waiting import until


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
        await until(lambda: provider.server.followers, timeout_s=5, message="the follower")
        answer = await served(provider).request(CurrentRequest(), deadline_ms=2000)
        ids = [w["id"] for w in answer["root"]["children"]]
        assert ids == ["win-1", "f1-win-1"]
        assert answer["root"]["children"][1]["children"][0]["id"] == "f1-tab-7"
        # the follower's window has the focus now: the focus path is its own
        assert [w["id"] for w in answer["root"]["children"] if w.get("focused")] == ["f1-win-1"]
        # The follower's own endpoint (if asked) answers for its own profile only.
        own = await served(follower).request(CurrentRequest(), deadline_ms=2000)
        assert [w["id"] for w in own["root"]["children"]] == ["win-1"]
    finally:
        await follower.stop()
        await provider.stop()
