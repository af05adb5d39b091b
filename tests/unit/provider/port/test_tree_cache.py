"""tree_cache.py: `current` from the worker's pushed tree, else from the worker as before."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from native_host.protocol.native import BROWSER_FRAME_ADAPTER, TreePush
from native_host.provider.port.tree_cache import CachingRequester, TreeCache
from tests.support.requester import FakeRequester

ROOT = {"id": "app", "role": "Application", "title": "Chromium", "children": [{"id": "w1", "role": "Window"}]}
PULLED = {"root": {"id": "pulled", "role": "Application"}, "windowFocused": False}


class FakeBridge(FakeRequester):
    """Counts the requests that reach the worker; answers `current` with PULLED."""

    def __init__(self) -> None:
        super().__init__({"current": PULLED}, default=lambda sent: {"type": sent.type})


def push(cache: TreeCache, frame: dict[str, Any]) -> None:
    parsed = BROWSER_FRAME_ADAPTER.validate_python(frame)
    assert isinstance(parsed, TreePush)
    cache.update(parsed, frame)


async def test_current_is_answered_from_a_complete_pushed_tree_without_asking() -> None:
    bridge, cache = FakeBridge(), TreeCache()
    requester = CachingRequester(bridge, cache)
    push(cache, {"type": "tree", "complete": True, "root": ROOT, "windowFocused": True})
    first = await requester.request("current", deadline_ms=100)
    second = await requester.request("current", deadline_ms=100)
    assert first == {"root": ROOT, "windowFocused": True}
    assert second is first  # one object per push: the endpoint checks and encodes it once
    assert bridge.request_types() == []


async def test_without_a_tree_or_with_an_incomplete_one_it_asks_the_worker() -> None:
    bridge, cache = FakeBridge(), TreeCache()
    requester = CachingRequester(bridge, cache)
    assert await requester.request("current", deadline_ms=100) == PULLED
    push(cache, {"type": "tree", "complete": True, "root": ROOT})
    push(cache, {"type": "tree", "complete": False})
    assert await requester.request("current", deadline_ms=100) == PULLED
    assert bridge.request_types() == ["current", "current"]
    assert cache.pushes == 2


async def test_other_requests_always_go_to_the_worker() -> None:
    bridge, cache = FakeBridge(), TreeCache()
    requester = CachingRequester(bridge, cache)
    push(cache, {"type": "tree", "complete": True, "root": ROOT})
    await requester.request("location", {"elementId": "x"}, deadline_ms=100)
    assert await requester.request("current", {"x": 1}, deadline_ms=100) == PULLED  # a body: not ours
    assert bridge.request_types() == ["location", "current"]
    assert requester.new_request_id() == "h-1"


async def test_it_forgets_the_tree_on_clear_and_once_the_port_is_closed() -> None:
    bridge, cache = FakeBridge(), TreeCache()
    alive = [True]
    requester = CachingRequester(bridge, cache, lambda: alive[0])
    push(cache, {"type": "tree", "complete": True, "root": ROOT})
    cache.clear()  # a new hello
    assert await requester.request("current", deadline_ms=100) == PULLED
    push(cache, {"type": "tree", "complete": True, "root": ROOT})
    alive[0] = False  # the port closed: the bridge says why it cannot answer
    assert await requester.request("current", deadline_ms=100) == PULLED
    assert cache.reply() is None
    assert bridge.request_types() == ["current", "current"]


def test_a_tree_of_the_wrong_shape_is_refused_when_it_arrives() -> None:
    with pytest.raises(ValidationError):
        BROWSER_FRAME_ADAPTER.validate_python(
            {"type": "tree", "complete": True, "root": {"id": "bad id!", "role": "X"}}
        )
    with pytest.raises(ValidationError):
        BROWSER_FRAME_ADAPTER.validate_python({"type": "tree", "root": ROOT})  # `complete` is required
