"""The rules the extension applies to what pages give it, and the error codes its service worker
answers with: written once here and generated into the extension (extension/wire.js and its
classic-script twin content/wire.js, by scripts/gen_wire.py; docs/internals/extension.md "Generated wire
constants"). The host relies on them (hand-off sizes, the tools/list it builds, the codes it
matches) even where only the extension enforces them.

Three title caps, three rules (not one cap written three ways):

```
MAX_TITLE_CHARS        1024  an element's title in the tree: a tab's title, a field's label, a link's text
MAX_TOOL_TITLE_CHARS    256  a page tool's `title` and `pageTitle`, as tools.changed carries them
provider/activity.py     80  a page title in an activity entry (the popup's "Who read it"; host only)
```

Standard library only, like protocol/resources.py, whose page-read codes it reuses.
"""

from __future__ import annotations

import re
from typing import Final

from native_host.protocol.resources import (
    NOT_CAPTURABLE,
    NOT_SHARED,
    PAGE_GONE,
    READ_FAILED,
    SWITCHED_OFF,
    UNKNOWN_PAGE,
)

MAX_TOOLS_PER_PAGE: Final = 128
"""Most page tools listed per page (design.md §5): the polyfill posts at most this many, the
content script reports at most this many, the worker lists at most this many; the rest are counted
in the Page's `attributes.toolsOmitted`."""

MAX_TOOL_RESULT_BYTES: Final = 48 << 20
"""Largest page-tool result: its text as a JSON string, in UTF-8 bytes (48 MiB; docs/internals/protocol.md
"Page tools"). The browser's 64 MiB per message, with room for the envelope; the content script
and the worker both answer TOOL_RESULT_TOO_LARGE above it."""

TOOL_RESULT_TOO_LARGE: Final = (
    "The tool's result is larger than 48 MiB of UTF-8 (the most a page-tool result may be); "
    "it was not sent. Ask the tool for less."
)
"""The error a page-tool result over MAX_TOOL_RESULT_BYTES answers (content script and worker)."""

WEBMCP_TOOL_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
"""A page's own WebMCP tool name (webmcp.md §1.3 step 5); its exposed MCP name follows
protocol/native.py PAGE_TOOL_NAME_PATTERN."""

MAX_TOOL_DESCRIPTION_CHARS: Final = 4096
"""A page tool's description longer than this many UTF-16 code units is cut (and ends with "…"),
in the content script and again in the worker."""

MAX_TOOL_SCHEMA_CHARS: Final = 64 * 1024
"""A page tool's inputSchema whose JSON is longer than this many UTF-16 code units is dropped (the
tool is listed with `{"type": "object"}`)."""

MAX_PAGE_SCHEMA_CHARS: Final = 1024 * 1024
"""All input schemas of one page's tools together, in UTF-16 code units; the later tools' schemas
over it are dropped, so a page cannot make every change cost megabytes."""

MAX_TOOL_TITLE_CHARS: Final = 256
"""The titles a `tools.changed` entry carries, a page tool's `title` and its page's `pageTitle`, are
cut to this many UTF-16 code units (the content script cuts the tool's title too)."""

MAX_ORIGIN_CHARS: Final = 256
"""Longest origin a page tool may name (its `origin`, a cross-origin frame's `frameOrigin`), in
characters: a longer one is dropped (protocol/native.py PageTool `frame_origin` refuses it too)."""

MAX_TITLE_CHARS: Final = 1024
"""An element's title in the tree (a tab's title, a field's label, a link's text or an image's
alt) is cut to this many UTF-16 code units (protocol/handoff.py MAX_TREE_MESSAGE_BYTES counts on it)."""

MAX_URL_CHARS: Final = 4096
"""An element's url in the tree is cut to this many UTF-16 code units (a data: URL can be
megabytes long)."""

UNKNOWN_TYPE: Final = "unknown_type"
DEADLINE_EXCEEDED: Final = "deadline_exceeded"
INTERNAL_ERROR: Final = "internal_error"
UNKNOWN_ID: Final = "unknown_id"
INVALID_ID: Final = "invalid_id"
PORT_CLOSED: Final = "port_closed"

WORKER_ERROR_CODES: Final[dict[str, str]] = {
    UNKNOWN_TYPE: "The host sent a request type the worker does not know (docs/internals/protocol.md).",
    DEADLINE_EXCEEDED: "A request got no reply within its deadline (docs/internals/protocol.md).",
    INTERNAL_ERROR: "The worker failed while answering; the message says why, never page content.",
    UNKNOWN_ID: "`location`: this instance never issued the id (design.md §1.2).",
    INVALID_ID: "`location`: the id does not match protocol/base.py ID_PATTERN (design.md §1.2).",
    PAGE_GONE: "The tab of a page-tool call closed or navigated, or the tool is gone (design.md §5).",
    UNKNOWN_PAGE: "A `tools.call` or `page.read` named a Page id this worker never minted, or one not shown.",
    NOT_SHARED: "`page.read`: the page is on an excluded site, in incognito without the opt-in, "
    "browser-internal, or the browser does not let extensions script it.",
    SWITCHED_OFF: "`page.read`: the user switched page text / screenshots off in the options page.",
    NOT_CAPTURABLE: "`page.read` screenshot: the tab is not the active tab of a window on screen.",
    READ_FAILED: "`page.read`: the extraction script threw or the capture failed (the message says what).",
    PORT_CLOSED: "The port closed before a reply came (worker-side only; never sent).",
}
"""Every `error.code` the service worker uses (stable snake_case, as in native_host/errors.py) →
what it means. The extension's ERROR_CODES names each in camelCase (`unknown_type` → `unknownType`)."""
