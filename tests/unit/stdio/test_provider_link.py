"""provider_link.py: which browser provider `webctx mcp` serves (`pick_provider`, design.md §7, issue #8).
The link's live connection (restarts, list_changed) is exercised through the bridge in test_server.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.errors import ProviderUnavailable
from native_host.host import ProviderInfo
from native_host.stdio.provider_link import pick_provider
from tests.support.descriptors import make_descriptor

BUNDLE = "org.chromium.Chromium"


def _info(pid: int, bundle_id: str = BUNDLE) -> ProviderInfo:
    descriptor = make_descriptor(
        bundle_id=bundle_id, name=f"B{pid}", pid=pid, instance=f"i{pid}", listener_pid=None
    )
    return ProviderInfo(Path(f"{pid}.json"), descriptor)


def test_the_front_browser_wins_else_the_most_recently_started() -> None:
    providers = [_info(10), _info(20), _info(30)]
    started = {10: 100.0, 20: 300.0, 30: 200.0}
    newest = pick_provider(providers, front_pid=lambda: 4242, started=lambda d: started[d.pid])
    front = pick_provider(providers, front_pid=lambda: 30, started=lambda d: started[d.pid])
    pinned = pick_provider(providers, 10, front_pid=lambda: 30, started=lambda d: started[d.pid])
    assert (newest.pid, front.pid, pinned.pid) == (20, 30, 10)
    assert pick_provider([_info(7)], front_pid=lambda: None).pid == 7
    # While the MCP client is in front, the browser last seen in front keeps serving.
    last = pick_provider(providers, front_pid=lambda: 4242, started=lambda d: started[d.pid], last_front=10)
    assert last.pid == 10


def test_only_browser_providers_are_considered() -> None:
    """The providers folder is shared with native apps; the bridge serves the browser's context."""
    editor = _info(50, bundle_id="com.example.Editor")
    assert pick_provider([editor, _info(10)], front_pid=lambda: 50).pid == 10
    with pytest.raises(ProviderUnavailable):
        pick_provider([editor], front_pid=lambda: None)
