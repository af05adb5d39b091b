"""The built-in MCP tool `read_page`: a Page's text or screenshot for clients that cannot read
MCP resources (docs/hosts.md "read_page"; the resources: page_resources.py).

```
tools/call read_page {id, kind?}
   id: a Page id (`tab-3`) → webctx://<our instance>/tab-3/<kind>
       a `webctx://…` link  → as it is (its kind, unless `kind` is given)
   └─ PageResources.read_resource (the same read, caps, exclusions, refusals and activity entry)
        ├─ text ──► TextContent (the Markdown, the truncation line first when cut)
        │           + _meta {uri, page, kind, mimeType, truncated, bytes, source}
        ├─ screenshot ──► ImageContent + _meta {uri, page, kind, mimeType, width, …}
        └─ MCPError ──► isError, text `<reason>: <what happened> <fix>` (page_resources.read_error),
                        structuredContent {error: {reason, uri}}
```

The metadata goes in the result's `_meta`, not `structuredContent`: clients that prefer
`structuredContent` (Codex) would hand their model the metadata and drop the text.

The tool stays listed when the user switched page text or screenshots off: a read is then refused
with `switched_off` like the resource, so the tool list does not change with a setting.
"""

from __future__ import annotations

from typing import Any, Final

from mcp import types
from mcp.shared.exceptions import MCPError

from native_host.protocol.base import ID_PATTERN
from native_host.protocol.resources import (
    INVALID_URI,
    MIME_TYPES,
    PAGE_KINDS,
    TEXT,
    PageKind,
    format_page_uri,
    parse_page_uri,
)
from native_host.protocol.tools import READ_PAGE_TOOL, tool_error
from native_host.provider.builtin_tools import ToolSpec
from native_host.provider.page_resources import PageResources, read_error

USAGE: Final = (
    "`read_page` takes {\"id\": \"<Page id from current, e.g. tab-3, or its webctx:// link>\", "
    "\"kind\": \"text\" or \"screenshot\"}."
)


def _refusal(exc: MCPError) -> types.CallToolResult:
    """The `isError` result of a failed read: the read error's text, and its data as `error`."""
    data = exc.error.data if isinstance(exc.error.data, dict) else {}
    return tool_error(exc.error.message, error={"reason": data.get("reason"), "uri": data.get("uri")})


class ReadPage:
    """`read_page` of one native-host instance: `resources` does the read (page_resources.py);
    `instance` is ours (a bare Page id is read from it). `spec` goes into the endpoint's table."""

    def __init__(self, resources: PageResources, *, instance: str) -> None:
        self._resources = resources
        self._instance = instance
        self.spec: Final = ToolSpec(READ_PAGE_TOOL, self.run_anonymous, in_context=self.run)

    def uri_of(self, arguments: dict[str, Any]) -> str | types.CallToolResult:
        """The page-resource URI `arguments` ask for, or the `isError` result saying what is wrong."""
        id_, kind = arguments.get("id"), arguments.get("kind")
        unknown = set(arguments) - {"id", "kind"}
        if unknown or not isinstance(id_, str) or (kind is not None and kind not in PAGE_KINDS):
            return _refusal(read_error(INVALID_URI, f"bad arguments. {USAGE}", str(id_)[:300]))
        chosen: PageKind | None = kind
        if id_.startswith("webctx://"):
            parsed = parse_page_uri(id_)
            if parsed is None:
                what = f"{id_[:200]!r} is not a page link; links look like webctx://<instance>/<pageId>/text"
                return _refusal(read_error(INVALID_URI, what, id_))
            return format_page_uri(parsed.instance, parsed.page_id, chosen or parsed.kind)
        if ID_PATTERN.fullmatch(id_) is None:
            return _refusal(read_error(INVALID_URI, f"{id_[:200]!r} is not a Page id. {USAGE}", id_[:300]))
        return format_page_uri(self._instance, id_, chosen or TEXT)

    async def run(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        """One call by the client of request context `ctx` (its activity entry names it): the
        Page's text or screenshot, or an `isError` result (see the module doc). Never raises."""
        uri = self.uri_of(arguments)
        if isinstance(uri, types.CallToolResult):
            return uri
        try:
            read = await self._resources.read_resource(ctx, types.ReadResourceRequestParams(uri=uri))
        except MCPError as exc:
            return _refusal(exc)
        parsed = parse_page_uri(uri)
        assert parsed is not None  # format_page_uri made it
        [contents] = read.contents
        meta: dict[str, Any] = {"uri": uri, "page": parsed.page_id, "kind": parsed.kind}
        meta["mimeType"] = contents.mime_type or MIME_TYPES[parsed.kind]
        meta.update(contents.meta or {})
        block: types.TextContent | types.ImageContent
        if isinstance(contents, types.TextResourceContents):
            block = types.TextContent(text=contents.text)
        else:
            block = types.ImageContent(data=contents.blob, mime_type=meta["mimeType"])
        return types.CallToolResult(content=[block], _meta=meta)

    async def run_anonymous(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """`run` without a request context (the activity entry says "unknown client")."""
        return await self.run(None, arguments)
