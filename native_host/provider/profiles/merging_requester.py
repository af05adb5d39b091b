"""The MCP endpoint's requester on a host with followers: `current` is every profile's windows,
`location` of a follower's id goes to that follower (design.md §3 "Several profiles, one provider").

```
current  ─► own extension ─┐  every follower pushed its tree: merged at once, no round trip
            followers ─────┴─► else asked at once (own and followers together), a follower that
                               fails or misses the deadline left out   ─► merge.merge_windows
location f<k>-… ─► follower k (prefix stripped); gone when k is not connected
page.read f<k>-… ─► follower k (prefix stripped); ExtensionError `page_gone` when k is not connected
anything else, or while we stand by ─► own extension
```
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from native_host.errors import ExtensionError
from native_host.provider.profiles.merge import Windows, merge_windows

if TYPE_CHECKING:
    from native_host.provider.port.bridge import Requester
    from native_host.provider.profiles.handoff_server import HandoffServer

GONE_REPLY: Final[dict[str, Any]] = {"location": {"state": "gone", "rects": []}}
"""The `location` reply for an id of a follower connection that is gone (design.md §1.2 `gone`)."""

FOLLOWER_MARGIN_MS: Final = 200
"""Followers asked for `current` get this much less than the request's deadline, in ms (at least
100 ms), so their answers arrive before our own caller gives up."""


class MergingRequester:
    """A `bridge.Requester`: `own` (our extension) plus every follower of `server`, while
    `is_provider()` (we hold the provider lock); otherwise just `own`."""

    def __init__(self, own: Requester, server: HandoffServer, is_provider: Callable[[], bool]) -> None:
        self._own = own
        self._server = server
        self._is_provider = is_provider
        self._memo: tuple[tuple[Any, ...], Any] | None = None

    def new_request_id(self) -> str:
        """As `Bridge.new_request_id` (page-tool calls name their id for `tools.cancel`)."""
        return self._own.new_request_id()

    async def request(
        self,
        type_: str,
        body: Mapping[str, Any] | None = None,
        *,
        deadline_ms: int,
        request_id: str | None = None,
    ) -> Any:
        """As `Bridge.request`; for `current` on the provider, follower windows are appended;
        `location` and `page.read` of a follower's id (`f<k>-…`) go to that follower (`gone`, or
        ExtensionError `page_gone`, when it is not connected)."""
        if type_ == "page.read" and self._is_provider():
            page_id = (body or {}).get("pageId")
            is_follower, follower = self._server.follower_of(page_id if isinstance(page_id, str) else "")
            if is_follower:
                if follower is None:
                    raise ExtensionError(
                        "That page is in another profile whose native host disconnected.", code="page_gone"
                    )
                return await follower.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        if type_ == "location" and self._is_provider():
            element_id = (body or {}).get("elementId")
            element_id = element_id if isinstance(element_id, str) else ""
            is_follower, follower = self._server.follower_of(element_id)
            if is_follower:
                if follower is None:
                    return GONE_REPLY
                return await follower.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        if type_ != "current" or not self._server.followers or not self._is_provider():
            return await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        cached = self._server.cached_follower_windows()
        if cached is not None:  # every follower pushed its tree: no round trip to them
            own = await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
            return self._merged(own, cached)
        own_task = asyncio.ensure_future(
            self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        )
        others = await self._server.follower_windows(max(100, deadline_ms - FOLLOWER_MARGIN_MS))
        return merge_windows(await own_task, others)

    def cached_current(self, own: Any) -> Any:
        """The `current` result `request` would give with `own` (our pushed tree's reply), when no
        follower needs asking: `own` merged with every follower's pushed tree; None when some
        follower has none (page_resources.py compares the resource list without I/O)."""
        if own is None or not self._server.followers or not self._is_provider():
            return own
        cached = self._server.cached_follower_windows()
        return None if cached is None else self._merged(own, cached)

    def _merged(self, own: Any, others: list[Windows]) -> Any:
        """`merge_windows(own, others)`, the same object while neither changed (pushed trees are
        the same objects until their next push), so the endpoint checks and encodes it once."""
        key = (own, *(windows for windows, _ in others), *(focused for _, focused in others))
        memo = self._memo
        if memo is not None and len(memo[0]) == len(key) and all(map(operator.is_, memo[0], key)):
            return memo[1]
        merged = merge_windows(own, others)
        self._memo = (key, merged)
        return merged
