"""The page resources' URI rule and wire names (design.md §2 "The page on demand";
docs/hosts.md "Page resources"). Standard library only: the provider
(provider/page_resources.py), the stdio bridge and the CLI (`webctx read`) all import it, so the
rule lives in one place.

```
webctx://<instance>/<pageId>/text         text/markdown   the page's readable text, read at read time
webctx://<instance>/<pageId>/screenshot   image/png|jpeg  the visible part of the tab (when switched on)
   │          │
   │          └─ the Page element id as `current` answers it (`tab-3`; `f1-tab-3` through a provider
   │             with followers), ^[A-Za-z0-9_-]{1,128}$
   └─ the native host's instance (hello reply / descriptor `instance`): a URI of another instance
      (a restarted provider) is `gone` (design.md §2)
```

`uri` is a plain string in MCP: no normalisation (case, percent-encoding, trailing slash) — a URI
that is not exactly this shape is not a page resource. `webctx://activity` (provider) and
`webctx://current` (stdio bridge) have no path, so they never parse as page resources.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal, NamedTuple

SCHEME: Final = "webctx"
"""The URI scheme of every webctx resource."""

TEXT: Final = "text"
SCREENSHOT: Final = "screenshot"
PageKind = Literal["text", "screenshot"]
PAGE_KINDS: Final[tuple[PageKind, ...]] = (TEXT, SCREENSHOT)
"""The kinds of page resource, in the order a Page lists its links."""

TEXT_MIME_TYPE: Final = "text/markdown"
"""mimeType of a text resource (link, list entry and read result)."""

SCREENSHOT_MIME_TYPES: Final = ("image/png", "image/jpeg")
"""mimeTypes a screenshot may have; the first is what links and list entries announce (the read
result carries the real one)."""

MIME_TYPES: Final[dict[PageKind, str]] = {TEXT: TEXT_MIME_TYPE, SCREENSHOT: SCREENSHOT_MIME_TYPES[0]}
"""The mimeType a link / `resources/list` entry of each kind announces."""

TEXT_MAX_BYTES: Final = 262_144
"""The host's cap of a page's Markdown, in UTF-8 bytes (256 KiB): sent as `page.read` `maxBytes`
(the worker clamps to [1024, 4 MiB]), and the worker's default when none is sent: text large enough
for an article, small enough for a model's context."""

SCREENSHOT_MAX_SIDE: Final = 1600
"""Longest side of a screenshot, in output px (the worker scales down, never up)."""

# `_meta` keys of a read result (TextResourceContents / BlobResourceContents `_meta`).
META_TRUNCATED: Final = "truncated"
"""bool: the text was cut at `maxBytes`."""
META_BYTES: Final = "bytes"
"""int: UTF-8 length of the page's whole Markdown, before any cut."""
META_SOURCE: Final = "source"
""""readability" (an article was found), "visible-text" (the fallback) or "pdf" (a PDF's text)."""
META_DEVICE_PIXEL_RATIO: Final = "devicePixelRatio"
"""float: captured image px per CSS px of the viewport."""
META_WIDTH: Final = "width"
META_HEIGHT: Final = "height"
"""int: the screenshot's size in output px."""
META_SCALE: Final = "scale"
"""float ≤ 1: output px / captured px."""
TEXT_META_KEYS: Final = (META_TRUNCATED, META_BYTES, META_SOURCE)
SCREENSHOT_META_KEYS: Final = (META_DEVICE_PIXEL_RATIO, META_WIDTH, META_HEIGHT, META_SCALE)

# `page.read` error codes (the worker's `error` frame codes; design16 "page.read") and the reason
# word each one's MCP error message names first.
UNKNOWN_PAGE: Final = "unknown_page"
PAGE_GONE: Final = "page_gone"
NOT_SHARED: Final = "not_shared"
SWITCHED_OFF: Final = "switched_off"
NOT_CAPTURABLE: Final = "not_capturable"
READ_FAILED: Final = "read_failed"
# Reasons the host itself finds (no `page.read` code): a URI not of the page-resource shape, no
# answer in time, no extension connected.
INVALID_URI: Final = "invalid_uri"
TIMEOUT: Final = "timeout"
UNAVAILABLE: Final = "unavailable"
REASON_WORDS: Final[dict[str, str]] = {
    UNKNOWN_PAGE: "unknown",
    PAGE_GONE: "gone",
    NOT_SHARED: "not_shared",
    SWITCHED_OFF: "switched_off",
    NOT_CAPTURABLE: "not_capturable",
    READ_FAILED: "read_failed",
    INVALID_URI: "invalid",
    TIMEOUT: "timeout",
    UNAVAILABLE: "unavailable",
}
"""Error code → the word an MCP error message starts with (`gone: …`) and its `data.reason`. A
client may match on the word; the rest of the message is for people and ends with the fix."""

READ_ERROR_FIXES: Final[dict[str, str]] = {
    "unknown": "Ask `current` (or list resources) again for the open pages' links.",
    "gone": "Ask `current` (or list resources) again for the open pages.",
    "not_shared": "Choose another page.",
    "switched_off": "Only the user can switch it on.",
    "not_capturable": "webctx does not switch tabs for a screenshot: ask the user to bring the tab to "
    "the front of a visible window, then read it again, or read the page's text instead.",
    "read_failed": "Try again once the page has loaded; if it keeps failing, the user can reload the tab.",
}
"""Reason word → the one fix an MCP client (a model) gets after what happened (provider/
page_resources.py read_error). The worker's sentences (page_read.js) say only what happened, so
nothing is said twice; `webctx read` (cli/read.py) swaps this fix for one for a person at a terminal."""

RESOURCE_NOT_FOUND: Final = -32002
"""JSON-RPC error code for a resource that is unknown or gone (MCP spec, "Resources" → "Error
Handling"; the SDK has no constant for it)."""

_PART: Final = r"[A-Za-z0-9_-]{1,128}"
PAGE_URI_PATTERN: Final = re.compile(
    rf"{SCHEME}://(?P<instance>{_PART})/(?P<page_id>{_PART})/(?P<kind>text|screenshot)"
)
"""A page-resource URI, whole (`fullmatch`): the extension's links are checked against the same
pattern (scripts/gen_wire.py writes it into extension/wire.js)."""

RESOURCE_URI_PREFIX: Final = f"{SCHEME}://"
"""What every webctx resource URI starts with."""


class PageUri(NamedTuple):
    """A parsed page-resource URI: `instance`, `page_id` (as `current` answers it) and `kind`."""

    instance: str
    page_id: str
    kind: PageKind


def format_page_uri(instance: str, page_id: str, kind: PageKind) -> str:
    """`webctx://<instance>/<page_id>/<kind>`. Raises ValueError when a part does not fit the rule
    (instance and page id: 1-128 of `[A-Za-z0-9_-]`; kind: "text" or "screenshot")."""
    uri = f"{SCHEME}://{instance}/{page_id}/{kind}"
    if parse_page_uri(uri) is None:
        raise ValueError(f"not a valid page resource: instance {instance!r}, page {page_id!r}, kind {kind!r}")
    return uri


def parse_page_uri(uri: object) -> PageUri | None:
    """The parts of a page-resource URI, or None when `uri` is not exactly one (not a string, another
    scheme, `webctx://activity`, a kind other than text/screenshot, a part outside the rule).
    No normalisation: MCP compares URIs as plain strings."""
    if not isinstance(uri, str):
        return None
    match = PAGE_URI_PATTERN.fullmatch(uri)
    if match is None:
        return None
    kind: PageKind = TEXT if match["kind"] == TEXT else SCREENSHOT
    return PageUri(match["instance"], match["page_id"], kind)


def format_size(count: int) -> str:
    """A byte count for people: `900 bytes`, `256 KiB`, `1.2 MiB` (binary units, one decimal above
    1 MiB and below 10 KiB when not whole)."""
    if count < 1024:
        return f"{count} bytes" if count != 1 else "1 byte"
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            value = count / size
            if value >= 10 or value == int(value):
                return f"{round(value)} {unit}"
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def truncation_notice(max_bytes: int, total_bytes: int) -> str:
    """The first line (and the blank line after it) a truncated text resource starts with, e.g.
    `> webctx: truncated to the first 256 KiB of 1.2 MiB of this page's text.` (design16 "Host").
    `max_bytes`: the cap sent in `page.read`; `total_bytes`: the result's `bytes`."""
    return (
        f"> webctx: truncated to the first {format_size(max_bytes)} of {format_size(total_bytes)}"
        " of this page's text.\n\n"
    )


def without_background_links(root: Any) -> Any:
    """`root` (a `current` tree's Application element) with the page-resource links taken out of
    every background Page (`visible: false`): the shape `current` answers. Other elements, and
    the foreground Pages' links, are the same objects; nothing is changed in place (a pushed tree
    is shared until its next push, tree_cache.py). Anything not of the tree's shape is returned
    as it is (the caller validates).

    Why: the extension links every Page, so `resources/list` (which reads the whole tree) offers
    every open page, but a link on each of 100 background tabs made `current` 86 % bigger
    (bench/README.md: "`current` itself stays as small as today"). A background tab's
    text is still read with its link from `resources/list`, or by this module's URI rule."""
    if not isinstance(root, Mapping) or not isinstance(root.get("children"), list):
        return root
    windows: list[Any] = []
    changed = False
    for window in root["children"]:
        pages = window.get("children") if isinstance(window, Mapping) else None
        if not isinstance(pages, list) or not any(_background_with_links(page) for page in pages):
            windows.append(window)
            continue
        changed = True
        kept = [
            {key: value for key, value in page.items() if key != "content"}
            if _background_with_links(page) else page
            for page in pages
        ]
        windows.append({**window, "children": kept})
    return {**root, "children": windows} if changed else root


def _background_with_links(page: Any) -> bool:
    """A background Page (`visible: false`) whose `content` holds a page-resource link."""
    return isinstance(page, Mapping) and page.get("visible") is False and any(page_links(page))


def page_links(page: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], PageUri]]:
    """The page-resource links in a Page element's `content`: each `resource_link` block whose `uri`
    parses as a page resource (of any instance), with its parsed URI. Other blocks are skipped;
    `content` of the wrong shape holds none."""
    content = page.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, Mapping) and block.get("type") == "resource_link":
            parsed = parse_page_uri(block.get("uri"))
            if parsed is not None:
                yield block, parsed
