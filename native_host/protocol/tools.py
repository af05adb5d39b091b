"""The MCP tools every webctx server offers, and the result shapes of a call (design.md §1, §1.1, §1.2).

```
CURRENT_TOOL, LOCATION_TOOL   the `tools/list` entries of `current` and `location`
READ_PAGE_TOOL                the `tools/list` entry of `read_page` (a Page's text or screenshot)
tool_error / id_error         `isError` results: one sentence, never an internal exception text
json_result                   `structuredContent` plus the same JSON as one text block
ProviderServer                the SDK's low-level server with `tools.listChanged` in both eras and,
                              when given `extensions`, those advertised to handshake-era clients too
```

Both MCP servers use these: the provider's endpoint (provider/http/endpoint.py, which runs the two
tools) and `webctx mcp` (stdio/server.py, which lists `current` alone while no provider is live),
so a tool's description and schema are written once. Imports `mcp`: early_hello.py never imports it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.server.lowlevel.server import NotificationOptions

from native_host.protocol.version import PROTOCOL_VERSION

SERVER_NAME: Final = "webctx"
"""`serverInfo.name` of every webctx MCP server."""

ACTIVITY_RESOURCE_URI: Final = "webctx://activity"
"""The provider's unlisted MCP resource: its last reads, `{entries: [...]}` (provider/activity.py;
`webctx activity` reads it; docs/internals/native-host.md "Who read it")."""

EXTENSION_ID: Final = "dev.context-providers/context"
"""The provider protocol's MCP extension identifier (design.md §1 "Server capabilities")."""

EXTENSIONS: Final[dict[str, dict[str, Any]]] = {EXTENSION_ID: {"protocol": PROTOCOL_VERSION}}
"""`capabilities.extensions` of a provider, declared to clients of both eras (design.md §1)."""

NO_ARGUMENTS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}
"""`inputSchema` of tools that take no arguments (`current`)."""

LOCATION_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "An element id from the `current` answer of this provider instance.",
        }
    },
    "required": ["id"],
    "additionalProperties": False,
}
"""`inputSchema` of `location` (design.md §1.2)."""

_READ_ONLY: Final = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)

CURRENT_TOOL: Final = types.Tool(
    name="current",
    title="Current browser context",
    description=(
        "What the user has open in the browser and is pointing at: windows, tabs (title, URL), "
        "the focused tab and the selected text, as a tree of elements. Takes no arguments."
    ),
    input_schema=NO_ARGUMENTS_SCHEMA,
    annotations=_READ_ONLY,
)
"""The `tools/list` entry of `current` (design.md §1.1). Shared: callers must not change it."""

LOCATION_TOOL: Final = types.Tool(
    name="location",
    title="Where an element is on screen",
    description=(
        "Where the element with this id (from `current`) is on screen now: `state` visible, "
        "offscreen or gone; `rects` in global display points (one per line of selected text); "
        "`window`, the OS window number; `avoid`, a region a popover should not cover."
    ),
    input_schema=LOCATION_SCHEMA,
    annotations=_READ_ONLY,
)
"""The `tools/list` entry of `location` (design.md §1.2). Shared: callers must not change it."""

READ_PAGE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "A Page id from `current` (e.g. `tab-3`), or a Page's `webctx://` link.",
        },
        "kind": {
            "type": "string",
            "enum": ["text", "screenshot"],
            "default": "text",
            "description": "`text` (default): the readable text as Markdown; `screenshot`: the visible "
            "part of the tab, only when the user switched screenshots on.",
        },
    },
    "required": ["id"],
    "additionalProperties": False,
}
"""`inputSchema` of `read_page` (docs/hosts.md "read_page")."""

READ_PAGE_TOOL: Final = types.Tool(
    name="read_page",
    title="Read a page",
    description=(
        "The readable text (Markdown, at most 256 KiB) of a Page from `current`, by its id (e.g. "
        "`tab-3`) or its `webctx://` link; with kind `screenshot`, an image of the visible part of its "
        "tab, when the user switched screenshots on. The same as `resources/read` of the Page's link, "
        "for clients that cannot read resources."
    ),
    input_schema=READ_PAGE_SCHEMA,
    annotations=_READ_ONLY,
)
"""The `tools/list` entry of `read_page` (provider/read_page.py runs it). Shared: callers must not
change it."""


def tool_error(sentence: str, **structured: Any) -> types.CallToolResult:
    """An `isError: true` tool result whose only content is `sentence` (design.md §1: never an
    internal exception text); `structured` becomes `structuredContent` when given."""
    return types.CallToolResult(
        content=[types.TextContent(text=sentence)], is_error=True, structured_content=structured or None
    )


def id_error(code: str, sentence: str) -> types.CallToolResult:
    """The `location` error result: `isError` with `structuredContent: {"error": {code, message}}`
    (design.md §1.2; `code` is `unknown_id` or `invalid_id`)."""
    return tool_error(sentence, error={"code": code, "message": sentence})


def json_result(value: dict[str, Any], text: str | None = None) -> types.CallToolResult:
    """A tool result with `structuredContent` = `value` and one text block holding the same JSON
    (compact, UTF-8), as design.md §1.1 asks of `current`; `text` is that JSON when already made."""
    if text is None:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=value)


class ProviderServer(Server[Any]):
    """The low-level SDK server with `tools.listChanged: true` (and `resources.listChanged: true`
    when it serves resources) in both eras.

    The SDK derives handshake-era `listChanged` from NotificationOptions, which its runner never
    passes, so `get_capabilities` sets it; in the 2026-07-28 era it follows from the registered
    `subscriptions/listen` handler.

    `extensions` (e.g. EXTENSIONS) go into `capabilities.extensions` for clients of both eras:
    the SDK's per-version sieve drops them from a handshake-era `initialize` result, so a
    middleware puts them back (design.md §1). `middleware` is appended to the
    SDK's own, outermost first. Every other keyword argument is the SDK `Server`'s (`version`,
    `on_list_tools`, …).
    """

    def __init__(
        self,
        name: str = SERVER_NAME,
        *,
        extensions: Mapping[str, dict[str, Any]] | None = None,
        middleware: Sequence[ServerMiddleware[Any]] = (),
        **options: Any,
    ) -> None:
        super().__init__(name, **options)
        if extensions:
            self.extensions.update(extensions)
            self.middleware.append(self._advertise_extensions)
        self.middleware.extend(middleware)

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        """The SDK's capabilities with `tools.listChanged` (design.md §1) and, when resources are served,
        `resources.listChanged` forced on."""
        capabilities = super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        if capabilities.tools is not None:
            capabilities.tools = types.ToolsCapability(list_changed=True)
        if capabilities.resources is not None:  # page resources come and go with tabs
            capabilities.resources = types.ResourcesCapability(
                subscribe=capabilities.resources.subscribe, list_changed=True
            )
        return capabilities

    async def _advertise_extensions(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """ServerMiddleware: put `capabilities.extensions` back into a handshake-era `initialize`
        result, whose per-version sieve drops it (design.md §1)."""
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                capabilities.setdefault("extensions", {}).update(self.extensions)
        return result
