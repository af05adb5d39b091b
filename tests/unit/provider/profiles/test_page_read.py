"""Page resources across profiles (design.md §3 "Several profiles, one provider"): a
follower's resource links become the provider's (its instance, the `f<k>-` id), `page.read` of such
an id goes over the real hand-off WebSocket to follower k without the prefix (a ~3 MB screenshot
too), a follower that went away is `page_gone`, and the provider's resource list follows the
follower's tree."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from native_host.errors import ExtensionError
from native_host.protocol.handoff import MAX_MESSAGE_BYTES
from native_host.protocol.native import CurrentRequest, PageReadRequest
from native_host.protocol.resources import format_page_uri, parse_page_uri
from native_host.provider.activity import ActivityLog
from native_host.provider.page_resources import PageResources
from native_host.provider.profiles.handoff import ProfileHandoff
from native_host.provider.profiles.merge import prefix_ids
from tests.support.profiles import served, window
from tests.support.requester import FakeRequester, SentRequest
from tests.support.waiting import until

PROVIDER = "PPPPPPPPPPPPPPPPPPPPPP"
FOLLOWER = "FFFFFFFFFFFFFFFFFFFFFF"
OLD = "OOOOOOOOOOOOOOOOOOOOOO"
"""A restarted host's instance: links of it are gone and stay as they are."""
SCREENSHOT = "A" * (3 << 20)
"""About what a 1600 px PNG of a busy page is in base64."""


def linked_window(instance: str, window_id: str, tab: str, *, focused: bool = False) -> dict[str, Any]:
    element = window(window_id, tab=tab, focused=focused)
    element["children"][0]["content"] = [
        {"type": "resource_link", "uri": format_page_uri(instance, tab, "text"), "name": tab},
        {"type": "resource_link", "uri": format_page_uri(instance, tab, "screenshot"), "name": tab},
        {"type": "resource_link", "uri": format_page_uri(OLD, tab, "text"), "name": "old"},
    ]
    return element


class Extension(FakeRequester):
    """One profile's extension: `current` from `windows`, `page.read` answered from the page id."""

    def __init__(self, instance: str, *windows: dict[str, Any]) -> None:
        super().__init__()
        self.instance = instance
        self.windows = list(windows)

    async def answer(self, sent: SentRequest) -> Any:
        if sent.type == "current":
            root = {"id": "app", "role": "Application", "children": self.windows}
            return {"root": root, "windowFocused": False}
        assert sent.type == "page.read"
        if sent.body["kind"] == "text":
            return {"kind": "text", "markdown": f"# {sent.body['pageId']}", "truncated": False,
                    "bytes": 9, "source": "readability", "title": "T", "url": "https://example.org/"}
        return {"kind": "screenshot", "mimeType": "image/png", "data": SCREENSHOT, "width": 1600,
                "height": 1000, "devicePixelRatio": 1, "scale": 1}


def test_a_followers_links_become_the_providers_and_other_instances_stay_as_they_were() -> None:
    instances = (FOLLOWER, PROVIDER)
    [page] = prefix_ids(linked_window(FOLLOWER, "win-1", "tab-3"), "f2-", None, instances)["children"]
    uris = [block["uri"] for block in page["content"]]
    assert uris == [
        format_page_uri(PROVIDER, "f2-tab-3", "text"),
        format_page_uri(PROVIDER, "f2-tab-3", "screenshot"),
        format_page_uri(OLD, "tab-3", "text"),
    ]
    # An id the prefix would take over 128 characters loses its link rather than get a wrong one.
    [page] = prefix_ids(linked_window(FOLLOWER, "win-1", "t" * 127), "f2-", None, instances)["children"]
    kept = [parse_page_uri(block["uri"]) for block in page["content"]]
    assert kept == [parse_page_uri(format_page_uri(OLD, "t" * 127, "text"))]


async def test_page_read_reaches_the_follower_without_the_prefix_and_gone_after_it_left(
    tmp_path: Path,
) -> None:
    assert len(SCREENSHOT) * 1.1 < MAX_MESSAGE_BYTES  # the hand-off carries it as one message
    own = Extension(PROVIDER, linked_window(PROVIDER, "win-1", "tab-1", focused=True))
    theirs = Extension(FOLLOWER, linked_window(FOLLOWER, "win-1", "tab-9"))
    provider = ProfileHandoff(own, instance=PROVIDER)
    follower = ProfileHandoff(theirs, instance=FOLLOWER)
    descriptor = tmp_path / "org.chromium.Chromium-1.json"
    url = await provider.start("token-P")
    await follower.start("token-F")
    descriptor.write_text(json.dumps({"instance": PROVIDER, "token": "token-P", "handoff": url}))
    provider.on_role_change("provider")
    changes: list[int] = []
    own_reply = await own.request(CurrentRequest(), deadline_ms=1000)  # as our pushed tree
    resources = PageResources(served(provider), instance=PROVIDER, activity=ActivityLog(),
                              on_list_changed=lambda: changes.append(1),
                              cached_tree=lambda: provider.merge.cached_current(own_reply))
    provider.server.on_tree_change = resources.tree_changed
    follower.set_tree(await theirs.request(CurrentRequest(), deadline_ms=1000))
    follower.on_role_change("standby", descriptor)
    try:
        async with asyncio.timeout(10):
            await until(lambda: changes and provider.server.followers, message="the follower and a change")
            listed = [r.uri for r in (await resources.list_resources(None, None)).resources]
            assert listed == [format_page_uri(PROVIDER, p, k) for p, k in (  # type: ignore[arg-type]
                ("tab-1", "text"), ("tab-1", "screenshot"), ("f1-tab-9", "text"), ("f1-tab-9", "screenshot"))]
            text = await served(provider).request(
                PageReadRequest(page_id="f1-tab-9", kind="text", max_bytes=4096), deadline_ms=5000)
            assert text["markdown"] == "# tab-9"
            assert theirs.requests[-1].body == {"pageId": "tab-9", "kind": "text", "maxBytes": 4096}
            shot = await served(provider).request(
                PageReadRequest(page_id="f1-tab-9", kind="screenshot"), deadline_ms=5000)
            assert shot["data"] == SCREENSHOT
            assert theirs.requests[-1].body == {"pageId": "tab-9", "kind": "screenshot"}
            # Our own pages are read by our own extension.
            await served(provider).request(
                PageReadRequest(page_id="tab-1", kind="text"), deadline_ms=5000)
            assert own.requests[-1].body["pageId"] == "tab-1"
            # The follower leaves: its pages are gone, and the list changes.
            before = len(changes)
            await follower.stop()
            await until(lambda: not provider.server.followers and len(changes) > before,
                        message="the follower gone and a change")
            with pytest.raises(ExtensionError) as gone:
                await served(provider).request(
                    PageReadRequest(page_id="f1-tab-9", kind="text"), deadline_ms=5000)
            assert gone.value.code == "page_gone"
            listed = [r.uri for r in (await resources.list_resources(None, None)).resources]
            assert all("f1-" not in uri for uri in listed)
    finally:
        await follower.stop()
        await provider.stop()
