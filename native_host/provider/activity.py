"""Who read what: the provider's record of MCP reads, for the popup and `webctx activity`.

```
tools/call current | location | p<n>_… (endpoint.py on_call_tool)
   └─ ActivityLog.record_call(client_of(ctx), tool, …)     ids, roles and page titles; never content
        ├─ the last MAX_ENTRIES entries, in memory only (a new instance starts empty)
        ├─ on_record(entry) ──► serving.py: event `activity {entry}` to worker (docs/internals/protocol.md)
        │                        ──► the popup's "Who read it" list and the toolbar badge's flash
        └─ entries() ◄── the unlisted MCP resource `webctx://activity` ◄── `webctx activity`
```

Who: the client's self-declared `clientInfo` (name, version), in both MCP eras, or the client
`webctx mcp` forwards for (protocol/client_info.py `client_of`); "unknown client" without one.
The name is the client's own claim, not verified: any local program holding the token can call
itself "Claude Code".

What: the tool, whether it succeeded, and which elements it returned, as ids, roles and page
titles only (ELEMENT_KINDS): a `current` answer's shown pages and their selection, focused field,
hover and PDF; `location`'s element id; a page tool's name and page. Never a selection's or a
field's text, a URL, a page tool's arguments or result. Entries are never written to the log.

Imports `mcp` (the resource handlers): only endpoint.py imports this module, in the thread that
imports the endpoint (app.py MCP_MODULE).
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mcp import types
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from native_host.protocol.client_info import ClientName, cut
from native_host.protocol.display_text import display_line
from native_host.protocol.tools import ACTIVITY_RESOURCE_URI

MAX_ENTRIES: Final = 50
"""Entries kept per native-host instance ("the last 50")."""

MAX_ELEMENTS: Final = 20
"""Elements kept per entry: a `current` of 30 windows would otherwise list every page."""

MAX_TITLE_CHARS: Final = 80
"""Page titles are cut to this many characters (with "…"): enough to recognise the page."""

ELEMENT_KINDS: Final = ("page", "selection", "field", "hover", "pdf", "element")
"""What an entry's element was: a shown Page, a selection (Text `selected`), the focused field
(Group `textbox`), the hovered element, a PDF Document, or an id (`location`)."""


def _kind(element: Mapping[str, Any]) -> str | None:
    if element.get("selected") is True and element.get("role") == "Text":
        return "selection"
    if element.get("subrole") == "textbox":
        return "field"
    if element.get("hovered") is True:
        return "hover"
    if element.get("role") == "Document" and element.get("subrole") == "pdf":
        return "pdf"
    return None


def _walk(element: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every element below `element` (iterative: a tree is at most MAX_JSON_DEPTH deep anyway)."""
    stack = list(reversed(element.get("children") or []))
    while stack:
        child = stack.pop()
        if isinstance(child, Mapping):
            yield child
            stack.extend(reversed(child.get("children") or []))


def current_elements(root: Mapping[str, Any]) -> list[dict[str, str]]:
    """What a `current` answer's `root` showed, as `[{kind, id, page, title?}]`: each shown page
    (not `visible: false`), then its selection, focused field, hover or PDF; at most MAX_ELEMENTS.
    Ids, roles and titles only: never `content`, `url` or attributes."""
    found: list[dict[str, str]] = []
    for window in root.get("children") or []:
        for page in window.get("children") or [] if isinstance(window, Mapping) else []:
            if not isinstance(page, Mapping) or page.get("visible") is False:
                continue
            page_id = str(page.get("id", ""))
            entry = {"kind": "page", "id": page_id, "page": page_id}
            if isinstance(page.get("title"), str) and page["title"]:
                entry["title"] = cut(display_line(page["title"]), MAX_TITLE_CHARS)  # shown: "Who read it"
            found.append(entry)
            for element in _walk(page):
                kind = _kind(element)
                if kind is not None:
                    found.append({"kind": kind, "id": str(element.get("id", "")), "page": page_id})
    return found[:MAX_ELEMENTS]


@dataclass(frozen=True)
class ActivityEntry:
    """One MCP read: when (`at`, ms since the epoch), who (`client`), which `tool` (`current`,
    `location` or a page tool's MCP name), `ok` (false: the answer was an `isError`), and which
    `elements` it returned (`[{kind, id, page?, title?}]`, ELEMENT_KINDS; never content)."""

    at: int
    client: ClientName
    tool: str
    ok: bool
    elements: tuple[dict[str, str], ...] = field(default=())

    def to_wire(self) -> dict[str, Any]:
        """`{at, client: {name, version?}, tool, ok, elements}` (docs/internals/protocol.md `activity`)."""
        return {
            "at": self.at,
            "client": self.client.to_wire(),
            "tool": self.tool,
            "ok": self.ok,
            "elements": [dict(element) for element in self.elements],
        }


class ActivityLog:
    """The last MAX_ENTRIES reads of one native-host instance, in memory.

    `on_record` hears every new entry (serving.py sends it to the worker as an `activity` event);
    it must not block. `clock` gives ms since the epoch (tests pass their own)."""

    def __init__(
        self,
        on_record: Callable[[ActivityEntry], None] | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._entries: deque[ActivityEntry] = deque(maxlen=MAX_ENTRIES)
        self.on_record = on_record
        self._clock = clock

    def record(
        self, client: ClientName, tool: str, *, ok: bool, elements: list[dict[str, str]] | None = None
    ) -> ActivityEntry:
        """Keep one read (the oldest goes beyond MAX_ENTRIES) and tell `on_record`; return it."""
        entry = ActivityEntry(
            at=int(self._clock() * 1000),
            client=client,
            tool=cut(tool, 128),
            ok=ok,
            elements=tuple(dict(element) for element in (elements or [])[:MAX_ELEMENTS]),
        )
        self._entries.append(entry)
        if self.on_record is not None:
            self.on_record(entry)
        return entry

    def record_call(
        self,
        client: ClientName,
        tool: str,
        arguments: Mapping[str, Any] | None,
        is_error: bool,
        structured: Any,
        page: dict[str, str] | None,
    ) -> ActivityEntry:
        """Keep one `tools/call` (endpoint.py): `current`'s shown pages and parts (from its
        `structured` answer), `location`'s id (from `arguments`), or a page tool's `page`
        (`{kind: "page", id, page, title?}`, looked up before the call). Nothing else of the
        arguments or the answer is kept."""
        elements: list[dict[str, str]] = []
        if tool == "current" and not is_error and isinstance(structured, Mapping):
            root = structured.get("root")
            elements = current_elements(root) if isinstance(root, Mapping) else []
        elif tool == "location":
            element_id = (arguments or {}).get("id")
            if isinstance(element_id, str):
                elements = [{"kind": "element", "id": cut(element_id, 128)}]
        elif page is not None:
            elements = [page]
        return self.record(client, tool, ok=not is_error, elements=elements)

    def entries(self) -> list[ActivityEntry]:
        """The kept entries, newest first."""
        return list(reversed(self._entries))

    def to_wire(self) -> dict[str, Any]:
        """`{entries: [entry, …]}`, newest first: the `webctx://activity` resource's JSON."""
        return {"entries": [entry.to_wire() for entry in self.entries()]}

    # The MCP resource `webctx://activity` (`webctx activity`), the endpoint's `resources/*`
    # handlers. Unlisted on purpose (`resources/list` is empty): clients would show it beside
    # the user's resources; `webctx activity` asks for it by name (docs/internals/native-host.md).

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """`resources/list`: empty (the activity resource is read by its URI only)."""
        return types.ListResourcesResult(resources=[])

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """`resources/read` of ACTIVITY_RESOURCE_URI: `to_wire()` as JSON text. Raises MCPError
        (invalid params) for any other URI."""
        if str(params.uri) != ACTIVITY_RESOURCE_URI:
            raise MCPError(INVALID_PARAMS, "Unknown resource; webctx has only webctx://activity.")
        text = json.dumps(self.to_wire(), ensure_ascii=False)
        contents = types.TextResourceContents(
            uri=ACTIVITY_RESOURCE_URI, mime_type="application/json", text=text
        )
        return types.ReadResourceResult(contents=[contents])
