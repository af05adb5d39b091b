"""The page on demand: each Page's text and screenshot as MCP resources (design.md §2 "The
page on demand"; docs/internals/native-host.md "Page resources"; the URI rule: protocol/resources.py).
Just over 400 lines: listing, reading and wording a failed read of one family of resources, which
share the listed set and the pages' titles (the pure URI rule is already apart).

```
resources/list ──► Requester.request(CurrentRequest())  (tree_cache.py: a pushed tree, no round trip)
                    └─ listed(): each Page's resource_links of OUR instance, focused page first,
                       then visible pages, then the rest, tree order; ≤ MAX_LISTED; + description
resources/read webctx://activity ──► ActivityLog.read_resource (unlisted, unchanged)
resources/read webctx://<instance>/<pageId>/<kind>
   ├─ not this shape ──► MCPError INVALID_PARAMS "invalid: …"
   ├─ another instance ──► MCPError -32002 "gone: …"       (a restarted provider, design.md §2)
   └─ Requester.request(PageReadRequest(page_id, kind, max_bytes?))  (followers: merge_layer)
        ├─ text ──► TextResourceContents (the truncation line first when cut) + _meta
        ├─ screenshot ──► BlobResourceContents + _meta
        └─ error code ──► MCPError "<reason word>: … <fix>"  (-32002 for unknown/gone)
      every page read ──► ActivityLog.record("resources/read", page id + title + kind; never content)
each `current` answer a client gets (observe_current), each pushed tree and follower tree (tree_changed: the
merged tree when it is at hand without asking anyone, `cached_tree`)
   └─ observe(): the set of listed URIs changed ──► notifications/resources/list_changed (both eras)
```

Imports `mcp` (types, MCPError): only endpoint.py imports this module, in the thread that imports
the endpoint (app.py MCP_MODULE).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, NamedTuple

from mcp import types
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable, TooDeep
from native_host.protocol.client_info import client_of, cut
from native_host.protocol.display_text import display_line
from native_host.protocol.native import (
    CURRENT_DEADLINE_MS,
    PAGE_SCREENSHOT_DEADLINE_MS,
    PAGE_TEXT_DEADLINE_MS,
    CurrentRequest,
    PageReadRequest,
    PageScreenshotResult,
    PageTextResult,
)
from native_host.protocol.resources import (
    INVALID_URI,
    META_BYTES,
    META_DEVICE_PIXEL_RATIO,
    META_HEIGHT,
    META_SCALE,
    META_SOURCE,
    META_TRUNCATED,
    META_WIDTH,
    MIME_TYPES,
    NOT_CAPTURABLE,
    NOT_SHARED,
    PAGE_GONE,
    READ_ERROR_FIXES,
    READ_FAILED,
    REASON_WORDS,
    RESOURCE_NOT_FOUND,
    SCREENSHOT_MAX_SIDE,
    SWITCHED_OFF,
    TEXT,
    TEXT_MAX_BYTES,
    TIMEOUT,
    UNAVAILABLE,
    UNKNOWN_PAGE,
    PageKind,
    PageUri,
    format_size,
    page_links,
    parse_page_uri,
    truncation_notice,
)
from native_host.protocol.tools import ACTIVITY_RESOURCE_URI
from native_host.provider.activity import MAX_TITLE_CHARS, ActivityLog
from native_host.provider.http.error_bodies import MAX_MESSAGE_CHARS
from native_host.provider.port.chain import Requester

log = logging.getLogger(__name__)

MAX_LISTED: Final = 200
"""At most this many entries in `resources/list` (a list a client can show; 30 windows
of tabs would otherwise list hundreds). A page beyond it is still read by its URI (the rule in
protocol/resources.py; the front Pages in `current` carry theirs)."""

READ_TOOL: Final = "resources/read"
"""The activity entry's `tool` for a page read (the popup's "Who read it" shows it)."""

_NOT_FOUND_CODES: Final = frozenset({UNKNOWN_PAGE, PAGE_GONE})
_REFUSED_CODES: Final = frozenset({NOT_SHARED, SWITCHED_OFF, NOT_CAPTURABLE})

_FIXES: Final[dict[str, str]] = {
    **{code: READ_ERROR_FIXES[word] for code, word in REASON_WORDS.items() if word in READ_ERROR_FIXES},
    "unknown_type": "Update the webctx extension: this version cannot read pages.",
}


def _sentence(text: str, limit: int) -> str:
    """`text` on one line, as one sentence of at most `limit` characters: cut on a word boundary
    with "…" only when it is longer, else ended with a full stop when it has no end mark."""
    text = " ".join(text.split())
    if len(text) > limit:
        head = text[: max(limit - 1, 1)]
        space = head.rfind(" ")
        head = head[:space] if space > limit // 2 else head
        return head.rstrip(" ,;:.") + "…"
    return text if text.endswith((".", "!", "?", "…")) or len(text) >= limit else text + "."


def read_error(code: str, message: str, uri: str) -> MCPError:
    """The MCP error for a failed read: `<reason word>: <what happened> <fix>` (REASON_WORDS),
    `data: {reason, uri}`. -32002 (resource not found) for unknown and gone pages, INVALID_PARAMS
    for refusals (not shared, switched off, not capturable), INTERNAL_ERROR for the rest.
    The whole text stays within error_bodies.MAX_MESSAGE_CHARS (the worker's sentence is cut to
    fit): a longer one reaches 2026-07-28 clients, whose errors come back as HTTP 4xx bodies,
    rewritten by ShortErrorBodies into "Invalid request: …", without the reason word."""
    word = REASON_WORDS.get(code, READ_FAILED)
    if code in _NOT_FOUND_CODES:
        number = RESOURCE_NOT_FOUND
    elif code in _REFUSED_CODES or code == INVALID_URI:
        number = INVALID_PARAMS
    else:
        number = INTERNAL_ERROR
    fix = _FIXES.get(code, "")
    room = MAX_MESSAGE_CHARS - len(word) - len(": ") - (len(fix) + 1 if fix else 0)
    text = f"{word}: {_sentence(cut(message, 2000), room)}" + (f" {fix}" if fix else "")
    return MCPError(number, text, {"reason": word, "uri": uri[:300]})


def _pages(root: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], bool]]:
    """Every Page element under `root`, in tree order, with whether it is visible (`visible`
    inherits the parent's; answers.Element). Iterative; stops descending at a Page."""
    stack: list[tuple[Any, bool]] = [(root, root.get("visible") is not False)]
    while stack:
        element, visible = stack.pop()
        if not isinstance(element, Mapping):
            continue
        if element.get("role") == "Page":
            yield element, visible
            continue
        children = element.get("children")
        if isinstance(children, list):
            for child in reversed(children):
                shown = child.get("visible", visible) if isinstance(child, Mapping) else visible
                stack.append((child, shown is not False))


def _description(kind: str, title: str) -> str:
    what = f"the page “{cut(title, MAX_TITLE_CHARS)}”" if title else "this page"
    if kind == TEXT:
        return (f"Readable text of {what} as Markdown, extracted from the tab when read "
                f"(at most {format_size(TEXT_MAX_BYTES)}).")
    return (f"Screenshot of the visible part of {what}'s tab, captured when read "
            f"(longest side at most {SCREENSHOT_MAX_SIDE} px).")


class _Link(NamedTuple):
    """One listed link, before it becomes a `types.Resource` (only the first MAX_LISTED do)."""

    uri: str
    name: str
    title: str
    kind: PageKind


def links(reply: Any, instance: str) -> tuple[list[_Link], dict[str, str]]:
    """The page-resource links of a `current` result (`{root, …}`) in `resources/list` order: the
    Pages' `resource_link`s whose URI is a page resource of `instance` — the focused page first,
    then visible pages, then the rest, each group in tree order; at most MAX_LISTED. Also every
    such page id's title (for the activity entry of a later read). Walks windows and pages only,
    never a page's children."""
    root = reply.get("root") if isinstance(reply, Mapping) else None
    if not isinstance(root, Mapping):
        return [], {}
    groups: tuple[list[_Link], ...] = ([], [], [])
    titles: dict[str, str] = {}
    for page, visible in _pages(root):
        group = groups[0] if page.get("focused") is True else groups[1] if visible else groups[2]
        title = page.get("title")
        # A page wrote its title: no bidi override, line break or invisible character reaches a
        # client's list, as for page tools' titles (protocol/display_text.py).
        title = display_line(title).strip() if isinstance(title, str) else ""
        for block, parsed in page_links(page):
            if parsed.instance != instance:
                continue
            name = block.get("name")
            name = display_line(name).strip() if isinstance(name, str) else ""
            name = name or parsed.page_id
            group.append(_Link(block["uri"], name, title, parsed.kind))
            titles[parsed.page_id] = title
    return [*groups[0], *groups[1], *groups[2]][:MAX_LISTED], titles


def listed(found: list[_Link]) -> list[types.Resource]:
    """The `resources/list` entries of `links`' list, each with a `description`."""
    return [
        types.Resource(
            uri=link.uri,
            name=cut(link.name, 200),
            title=cut(link.title, 200) or None,
            mime_type=MIME_TYPES[link.kind],
            description=_description(link.kind, link.title),
        )
        for link in found
    ]


class PageResources:
    """`resources/list` and `resources/read` of one native-host instance (with `webctx://activity`).

    `requester` reaches the extension (the endpoint's request chain, serving.py); `instance` is
    ours; `activity` records reads and serves `webctx://activity`;
    `on_list_changed` is called (from the loop) when the set of listed URIs changed (the
    endpoint's ListChangedBroadcaster.notify("resources")); `cached_tree` gives the `current`
    result when it is at hand without a round trip (pushed trees), else None. Deadlines in ms."""

    def __init__(
        self,
        requester: Requester,
        *,
        instance: str,
        activity: ActivityLog,
        on_list_changed: Callable[[], None],
        cached_tree: Callable[[], Any] = lambda: None,
        current_deadline_ms: int = CURRENT_DEADLINE_MS,
        text_deadline_ms: int = PAGE_TEXT_DEADLINE_MS,
        screenshot_deadline_ms: int = PAGE_SCREENSHOT_DEADLINE_MS,
    ) -> None:
        self.requester: Final = requester
        self._instance = instance
        self._activity = activity
        self._on_list_changed = on_list_changed
        self._current_deadline_ms = current_deadline_ms
        self._deadlines = {TEXT: text_deadline_ms, "screenshot": screenshot_deadline_ms}
        self._listed: list[_Link] = []
        self._listed_uris: frozenset[str] = frozenset()
        self._listed_source: object = None
        self._titles: dict[str, str] = {}
        self._cached_tree = cached_tree

    # -- the listed set and its change notification ----------------------------------------------

    def observe(self, reply: Any) -> None:
        """Take a `current` result: remember its pages' titles, and call `on_list_changed` when the
        set of listed URIs differs from the last one seen. A pushed tree is the same object until
        the next push: seen once, it is not walked again."""
        if reply is self._listed_source:
            return
        self._listed, self._titles = links(reply, self._instance)
        self._listed_source = reply
        uris = frozenset(link.uri for link in self._listed)
        if uris != self._listed_uris:
            self._listed_uris = uris
            self._on_list_changed()

    def observe_current(self, reply: Any) -> None:
        """`observe(reply)` for a `current` answer a client got (resources/list here, the `current`
        tool: builtin_tools.py); never raises, so no `current` fails because of the resource list."""
        try:
            self.observe(reply)
        except Exception:
            log.exception("observing the tree for resources failed")

    def tree_changed(self) -> None:
        """A tree was pushed (ours or a follower's), or a follower left: compare the merged tree
        when it is at hand (`cached_tree`). Never a round trip: a tree that needs asking is
        compared when the next `current` asks anyway."""
        try:
            reply = self._cached_tree()
        except Exception:
            log.exception("the cached tree for resources failed")
            return
        if reply is not None:
            self.observe(reply)

    # -- MCP handlers ----------------------------------------------------------------------------

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """`resources/list`: the page resources of the current tree (`listed`); empty when the
        browser cannot answer (the links come back with the next tree). `webctx://activity` stays
        unlisted."""
        try:
            reply = await self.requester.request(CurrentRequest(), deadline_ms=self._current_deadline_ms)
        except (DeadlineExceeded, ExtensionError, ProviderUnavailable, TooDeep) as exc:
            log.info("resources/list: no tree (%s)", type(exc).__name__)
            return types.ListResourcesResult(resources=[])
        self.observe_current(reply)
        # observe() walked `reply` once; walk it here only if it did not.
        found = self._listed if reply is self._listed_source else links(reply, self._instance)[0]
        return types.ListResourcesResult(resources=listed(found))

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """`resources/read`: `webctx://activity`, or a page resource (see the module docstring).
        Raises MCPError as `read_error` says."""
        uri = str(params.uri)
        if uri == ACTIVITY_RESOURCE_URI:
            return await self._activity.read_resource(ctx, params)
        parsed = parse_page_uri(uri)
        if parsed is None:
            raise read_error(
                INVALID_URI,
                f"{uri[:200]!r} is not a webctx resource; webctx serves webctx://activity and "
                "webctx://<instance>/<pageId>/text or /screenshot",
                uri,
            )
        if parsed.instance != self._instance:
            self._record(ctx, parsed, ok=False)
            raise read_error(
                PAGE_GONE,
                "this link is of another webctx instance (the browser or webctx restarted since it was made)",
                uri,
            )
        try:
            result = await self._read(parsed, uri)
        except MCPError:
            self._record(ctx, parsed, ok=False)
            raise
        self._record(ctx, parsed, ok=True)
        return result

    async def _read(self, parsed: PageUri, uri: str) -> types.ReadResourceResult:
        max_bytes = TEXT_MAX_BYTES if parsed.kind == TEXT else None
        request = PageReadRequest(page_id=parsed.page_id, kind=parsed.kind, max_bytes=max_bytes)
        deadline_ms = self._deadlines[parsed.kind]
        try:
            reply = await self.requester.request(request, deadline_ms=deadline_ms)
        except DeadlineExceeded:
            raise read_error(
                TIMEOUT, f"the browser did not read the page within {deadline_ms / 1000:g} s", uri
            ) from None
        except ProviderUnavailable:
            raise read_error(
                UNAVAILABLE,
                "the browser extension is no longer connected; reopen the browser and try again",
                uri,
            ) from None
        except ExtensionError as exc:
            message = exc.message or f"the browser could not read the page ({exc.code})"
            raise read_error(exc.code, message, uri) from None
        try:
            if parsed.kind == TEXT:
                text = PageTextResult.model_validate(reply)
                if text.title:
                    self._titles[parsed.page_id] = display_line(text.title).strip()
                notice = truncation_notice(TEXT_MAX_BYTES, text.bytes) if text.truncated else ""
                meta = {META_TRUNCATED: text.truncated, META_BYTES: text.bytes, META_SOURCE: text.source}
                contents: types.TextResourceContents | types.BlobResourceContents
                contents = types.TextResourceContents(
                    uri=uri, mime_type=MIME_TYPES[TEXT], text=notice + text.markdown, _meta=meta
                )
            else:
                shot = PageScreenshotResult.model_validate(reply)
                meta = {META_DEVICE_PIXEL_RATIO: shot.device_pixel_ratio, META_WIDTH: shot.width,
                        META_HEIGHT: shot.height, META_SCALE: shot.scale}
                contents = types.BlobResourceContents(
                    uri=uri, mime_type=shot.mime_type, blob=shot.data, _meta=meta
                )
        except ValidationError as exc:
            log.warning("page.read: the extension's %s answer failed validation (%d errors)",
                        parsed.kind, exc.error_count())
            raise read_error(
                READ_FAILED,
                "the browser extension answered with a result of the wrong shape; update webctx",
                uri,
            ) from None
        return types.ReadResourceResult(contents=[contents])

    def _record(self, ctx: Any, parsed: PageUri, *, ok: bool) -> None:
        """One activity entry: `resources/read`, the page (`{kind: "page", id, page, title?}`) and
        what of it was asked for (`{kind: "text" | "screenshot", id, page}`, so "Who read it" can
        say which); never the content."""
        element = {"kind": "page", "id": parsed.page_id, "page": parsed.page_id}
        title = self._titles.get(parsed.page_id) if parsed.instance == self._instance else None
        if title:
            element["title"] = cut(title, MAX_TITLE_CHARS)
        what = {"kind": parsed.kind, "id": parsed.page_id, "page": parsed.page_id}
        self._activity.record(client_of(ctx), READ_TOOL, ok=ok, elements=[element, what])
