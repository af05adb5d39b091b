"""The provider's page resources through the bridge (design.md §2 "The page on demand").

```
resources/list   → the bridge's own `webctx://current` (server.py), then ProviderResources.page():
                   the live provider's `resources/list`, page resources only (protocol/resources.py)
resources/read   → a page-resource URI goes to the live provider as is (`_meta` names our client,
                   the activity log); its JSON-RPC error (`gone: …`, `switched_off: …`) comes back as is
list_changed     ← the provider's `notifications/resources/list_changed` (ProviderLink), and the
                   bridge's own when it follows another provider instance or none: every URI of
                   the old instance is then gone (design.md §2)
```

A URI is only forwarded when it is exactly a page resource (`webctx://<instance>/<pageId>/<kind>`),
the kind of URI the bridge lists; anything else (e.g. the provider's unlisted `webctx://activity`)
is an unknown resource. The instance in the URI is not checked here: the
provider answers `gone` for another instance's URI (one rule, in provider/page_resources.py).
"""

from __future__ import annotations

import logging
from typing import Final, cast

import anyio
import httpx2
from mcp import types
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT

from native_host.host import READ_TIMEOUT_S, send_read_resource
from native_host.protocol.client_info import ON_BEHALF_OF_META_KEY
from native_host.protocol.resources import RESOURCE_NOT_FOUND, parse_page_uri
from native_host.stdio.notify import ClientNotifier
from native_host.stdio.provider_link import NO_PROVIDER_MESSAGE, ProviderLink, Upstream

log = logging.getLogger(__name__)

LIST_TIMEOUT_S: Final = 5.0
"""Limit for the provider's `resources/list`, in seconds; after it the bridge lists its own only."""

_TRANSPORT_ERRORS: Final = (httpx2.HTTPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)


class ProviderResources:
    """The live provider's page resources as the bridge serves them (see the module docstring).

    `link` is the bridge's ProviderLink; `notifier` delivers `resources/list_changed` to the
    bridge's clients. Call `follow(upstream)` on every provider change and `changed(upstream)`
    on the provider's own resources list_changed (ProviderLink's `on_resources_change`)."""

    def __init__(
        self, link: ProviderLink, notifier: ClientNotifier, *, read_timeout_s: float = READ_TIMEOUT_S
    ) -> None:
        self.link = link
        self.notifier = notifier
        self.read_timeout_s = read_timeout_s
        self._instance: str | None = None

    async def follow(self, upstream: Upstream | None) -> None:
        """The bridge now follows `upstream` (None: no provider). When its instance is not the one
        followed before, every listed page URI changed: `resources/list_changed` to every client."""
        instance = upstream.descriptor.instance if upstream is not None else None
        if instance != self._instance:
            self._instance = instance
            log.info("resources changed: now those of instance %s", "none" if instance is None else "new")
            await self.notifier.resources_changed()

    async def changed(self, upstream: Upstream) -> None:
        """The provider `upstream` said its resource list changed: pass it on to every client
        (unless the bridge has since let go of that provider; `follow` told them then)."""
        if not upstream.gone.is_set():
            await self.notifier.resources_changed()

    async def page(self, cursor: str | None) -> tuple[list[types.Resource], str | None]:
        """One page of the live provider's `resources/list` (the page resources among them; others
        are logged and left out) and its `nextCursor`. `([], None)` when there is no provider or
        it does not answer within LIST_TIMEOUT_S: the bridge still lists its own resource."""
        upstream = self.link.upstream
        if upstream is None:
            return [], None
        client = upstream.session.client
        try:
            with anyio.fail_after(LIST_TIMEOUT_S):
                listed = await upstream.unless_gone(lambda: client.list_resources(cursor=cursor))
        except (MCPError, TimeoutError, *_TRANSPORT_ERRORS, ExceptionGroup) as exc:
            log.info("upstream resources/list failed (%s): listing the bridge's own", type(exc).__name__)
            return [], None
        if listed is None:
            return [], None
        kept = [r for r in listed.resources if parse_page_uri(r.uri) is not None]
        if len(kept) != len(listed.resources):
            log.warning("not listing %d upstream resource(s) that are not page resources",
                        len(listed.resources) - len(kept))
        return kept, listed.next_cursor

    async def read(self, uri: str, on_behalf_of: dict[str, str] | None) -> types.ReadResourceResult:
        """Forward `resources/read` of page resource `uri` to the live provider and return its
        result as is; `on_behalf_of` (our client's clientInfo) goes along in `_meta`.

        Raises MCPError: RESOURCE_NOT_FOUND for a URI that is not a page resource; the provider's
        own error as it is (`gone: …`, `switched_off: …`: reason word first, fix last);
        INTERNAL_ERROR with a sentence when there is no provider (within the link's grace), it
        goes away or stops answering mid-read, or does not answer within `read_timeout_s`.
        """
        if parse_page_uri(uri) is None:
            raise MCPError(RESOURCE_NOT_FOUND, f"Unknown resource: {uri[:200]}")
        upstream = await self.link.live()
        if upstream is None:
            raise MCPError(INTERNAL_ERROR, NO_PROVIDER_MESSAGE)
        meta = cast(types.RequestParamsMeta, {ON_BEHALF_OF_META_KEY: on_behalf_of}) if on_behalf_of else None
        client = upstream.session.client
        try:
            with anyio.fail_after(self.read_timeout_s + 1):
                result = await upstream.unless_gone(
                    lambda: send_read_resource(client, uri, timeout_s=self.read_timeout_s, meta=meta)
                )
        except MCPError as exc:
            if exc.error.code == CONNECTION_CLOSED:
                raise self._stopped_answering() from None
            if exc.error.code != REQUEST_TIMEOUT:
                raise  # the provider's own error, passed on as is
            raise self._too_slow() from None
        except TimeoutError:
            raise self._too_slow() from None
        except (*_TRANSPORT_ERRORS, ExceptionGroup):
            raise self._stopped_answering() from None
        if result is None:
            log.info("resources/read: the provider went away mid-read")
            gone = f"The browser provider went away during the read. {NO_PROVIDER_MESSAGE}"
            raise MCPError(INTERNAL_ERROR, gone)
        return result

    def _too_slow(self) -> MCPError:
        slow = f"The browser did not answer within {self.read_timeout_s:g} s; try again in a moment."
        return MCPError(INTERNAL_ERROR, slow)

    def _stopped_answering(self) -> MCPError:
        log.info("resources/read: transport failure; re-discovering", exc_info=True)
        self.link.wake()
        return MCPError(INTERNAL_ERROR, f"The browser provider stopped answering. {NO_PROVIDER_MESSAGE}")
