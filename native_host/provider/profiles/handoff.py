"""Several profiles, one provider: the hand-off between native hosts of one browser (design.md §3).

```
 profile A's native host (provider: holds the lock, publishes the descriptor)
   HandoffServer ws://127.0.0.1:<port>/handoff   (the descriptor's `handoff`, our addition)
     ▲  the MCP endpoint's loopback checks (security.py): Origin → 403, Host → 421,
     │  Bearer <the provider's token, read from the descriptor> → 401
     │  follower.hello {instance} ─►  tools.changed {tools} ─►  (follower_tools.py → tools/list)
     │  tree {complete, root?, windowFocused?} ─►  the follower's pushed tree, on every change
     │  ◄─ current | location | tools.call | tools.cancel | page.read {id, deadlineMs, …}
     │  ─► result {id, result} | error {id, error: {code, message}}
 profile B's native host (standby)            FollowerLink (follower_link.py): its own extension
```

The parts: the messages and their limits are protocol/handoff.py; the provider's server and its
follower connections handoff_server.py; the merged tree merge.py; the MCP endpoint's requester
(`current` = every profile, `location` and `page.read` of `f<k>-…` to follower k)
merging_requester.py; a follower's page tools as the provider's MCP tools follower_tools.py; the
standby host's link follower_link.py.
ProfileHandoff below ties them together for one host, whatever its role: it serves followers
while it is the provider and follows the provider while it stands by.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from native_host.provider.profiles.follower_link import FollowerLink
from native_host.provider.profiles.handoff_server import HandoffServer
from native_host.provider.profiles.merging_requester import MergingRequester

if TYPE_CHECKING:
    from native_host.provider.port.bridge import Requester
    from native_host.provider.profiles.follower_tools import FollowerTools


class ProfileHandoff:
    """The hand-off of one native host, whatever its role: the server it would serve followers on,
    the requester its MCP endpoint uses, and the link it follows the provider with while standing by.

    Usage (app.py): `McpEndpoint(handoff.requester, …)`; `tools` is the endpoint's
    `follower_tools`; `url = await handoff.start(token)` goes into the descriptor as `handoff`;
    the publisher's role changes reach `handoff.on_role_change(role, publisher.path)`;
    `handoff.set_page_tools(…)` on every `tools.changed` of our extension;
    `on_provider(port)` hears the provider's MCP port while we stand by (the popup shows it);
    `handoff.set_tree(…)` on every change of our pushed tree (tree_cache.py), passed on while we follow;
    `await handoff.stop()` at exit. `deadline_ms` bounds a `current` the provider asks us for
    without a deadline of its own, in ms.
    """

    def __init__(
        self,
        own: Requester,
        *,
        instance: str,
        deadline_ms: int = 3000,
        tools: FollowerTools | None = None,
        on_provider: Callable[[int], None] | None = None,
    ) -> None:
        self._own = own
        self._instance = instance
        self._deadline_ms = deadline_ms
        self._on_provider = on_provider
        self.server = HandoffServer(tools, instance=instance)
        self.role = "starting"
        self.requester = MergingRequester(own, self.server, lambda: self.role == "provider")
        """The descriptor the publisher keeps written (publisher.py): where a standby host reads
        the provider's `handoff` URL and token. Set by app.py once the publisher exists, which
        needs our `start` URL first."""
        self._link: FollowerLink | None = None
        self._page_tools: list[dict[str, Any]] = []
        self._tree: dict[str, Any] | None = None

    def set_tree(self, reply: dict[str, Any] | None) -> None:
        """Our own pushed tree (tree_cache.py `reply()`): passed on to the provider while we follow."""
        self._tree = reply
        if self._link is not None:
            self._link.set_tree(reply)

    async def start(self, token: str) -> str:
        """Start the hand-off server; return its URL for the descriptor."""
        return await self.server.start(token)

    def set_page_tools(self, tools: list[dict[str, Any]]) -> None:
        """Our extension's page tools (wire shape): streamed to the provider while we follow."""
        self._page_tools = tools
        if self._link is not None:
            self._link.set_tools(tools)

    def on_role_change(self, role: str, descriptor_path: Path | None = None) -> None:
        """Follow the published provider while standing by; stop following once we publish.
        `descriptor_path` is the browser's descriptor (the publisher's `path`), which names the
        provider to follow; without it a standby host does not follow."""
        self.role = role
        if role == "standby" and descriptor_path is not None:
            if self._link is None:
                self._link = FollowerLink(
                    descriptor_path, self._instance, self._own, deadline_ms=self._deadline_ms,
                    on_provider=self._on_provider, tools=self._page_tools, tree=self._tree,
                )
            self._link.start()
        elif self._link is not None:
            self._link.stop()

    async def stop(self) -> None:
        """Stop following and serving (bounded: handoff_server.STOP_TIMEOUT_S)."""
        if self._link is not None:
            self._link.stop()
        await self.server.stop()
