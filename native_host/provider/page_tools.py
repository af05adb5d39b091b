"""Page tools: the WebMCP tools of visible pages as MCP tools (design.md §5;
docs/internals/protocol.md "Page tools").

```
worker ── tools.changed {tools:[PageTool]} ──► PageToolTable.update() ──► McpEndpoint tools/list
                                                                  └─► list_changed (both eras)
desktop host ── tools/call p1_add ──► PageToolTable.call()
    check arguments against inputSchema (page_schemas.py, in a worker thread: never fetches, 100 ms budget)
        invalid, a ref outside the schema, out of time → isError
    Requester.request(ToolCallRequest(page_id, name, input), deadline) ──► worker ──► page
        ok → map_result(text)      error page_gone → isError "page gone"
        deadline → isError + tools.cancel      client cancels → tools.cancel, re-raise
```

The table is data built from the worker's list; every page-controlled string reaching the
desktop host is marked as coming from the page (description prefix, `_meta`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from mcp import types

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.display_text import display_block, display_line
from native_host.protocol.native import (
    MAX_JSON_DEPTH,
    PAGE_TOOL_DEADLINE_MS,
    PageTool,
    ToolCallReply,
    ToolCallRequest,
    ToolCancelRequest,
    exceeds_depth,
)
from native_host.protocol.tools import tool_error
from native_host.provider.page_schemas import InputSchema, check_input, compile_schema
from native_host.provider.port.chain import Requester

log = logging.getLogger(__name__)

META_UNTRUSTED: Final = "dev.context-providers/untrusted"
"""`_meta` key set to true on every page tool: its description, schema and results come from a web
page (design.md §5 "mark the tool as page-provided (untrusted)")."""

MAX_PAGE_TITLE_CHARS: Final = 120
"""The page title in a tool's description prefix is cut to this many characters."""

MAX_ERROR_CHARS: Final = 2000
"""Page-supplied error messages are cut to this many characters."""

PAGE_GONE_SENTENCE: Final = (
    "Page gone: the tab was closed or navigated away while the tool ran. "
    "Call tools/list again and use a tool of the page that is shown now."
)


TOO_DEEP_SENTENCE: Final = (
    f"The page tool's result is nested deeper than {MAX_JSON_DEPTH} levels of JSON arrays and "
    "objects, so it was not passed on. The page must return a flatter result."
)
"""The `isError` text for a page-tool result over MAX_JSON_DEPTH."""


def map_result(text: str | None) -> types.CallToolResult:
    """Map a page tool's result string (what `executeTool` resolves to) to a CallToolResult (design.md §5).

    - an object with a `content` array that is a valid CallToolResult passes through (its
      `isError`, `structuredContent` kept);
    - any other JSON object becomes `structuredContent` plus one text block with the text;
      other JSON values (arrays, numbers, …) become `structuredContent: {"result": value}` plus
      the text (MCP's `structuredContent` is an object);
    - anything else is one text block;
    - None (the call navigated the page, webmcp.md §1.5) is a text block saying so;
    - JSON nested deeper than MAX_JSON_DEPTH (also what `json.loads` cannot parse for its depth:
      RecursionError) is `isError` TOO_DEEP_SENTENCE: the MCP SDK could not send it.
    """
    if text is None:
        return types.CallToolResult(
            content=[types.TextContent(text="The tool navigated the page and returned no result.")]
        )
    try:
        value = json.loads(text)
    except ValueError:
        return types.CallToolResult(content=[types.TextContent(text=text)])
    except RecursionError:  # nested deeper than Python's json parser goes (~1000 levels)
        return tool_error(TOO_DEEP_SENTENCE)
    if exceeds_depth(value):
        return tool_error(TOO_DEEP_SENTENCE)
    if isinstance(value, dict):
        if isinstance(value.get("content"), list):
            try:
                return types.CallToolResult.model_validate(value)
            except ValueError:
                log.info("a page tool returned a `content` array that is not MCP content; sent as JSON")
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=value)
    if isinstance(value, str):
        return types.CallToolResult(content=[types.TextContent(text=value)])
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content={"result": value})


def describe(tool: PageTool) -> str:
    """The MCP description: the page's title and origin (and a cross-origin frame's origin) first,
    then the page's own text. Page strings are cleaned here, where page tools become MCP tools
    (`display_text`: no ESC, NUL, BEL, bidi override reaches a client), whatever browser sent them."""
    title = display_line(tool.page_title).strip() or tool.url or "an untitled page"
    if len(title) > MAX_PAGE_TITLE_CHARS:
        title = title[:MAX_PAGE_TITLE_CHARS] + "…"
    origin = tool.origin or "unknown origin"
    frame = f", from its embedded frame {tool.frame_origin}" if tool.frame_origin else ""
    said = display_block(tool.description)
    return f"[Page tool of “{title}” ({origin}){frame}; page-provided, untrusted] {said}"


def mcp_tool(tool: PageTool) -> types.Tool:
    """The `tools/list` entry of one page tool (design.md §5 "Exposure")."""
    annotations = tool.annotations
    read_only = bool(annotations and annotations.read_only_hint)
    schema = tool.input_schema if tool.input_schema is not None else {"type": "object"}
    if schema.get("type") != "object":  # MCP requires an object schema at the top
        schema = {"type": "object"}
    meta: dict[str, Any] = {
        "pageId": tool.page_id,
        "toolName": tool.tool_name,
        "origin": tool.origin,
        "url": tool.url,
        META_UNTRUSTED: True,
    }
    if tool.frame_origin:
        meta["frameOrigin"] = tool.frame_origin
        if tool.frame_url:
            meta["frameUrl"] = tool.frame_url
    if annotations and annotations.consequential_hint:
        meta["consequential"] = True
    return types.Tool(
        name=tool.name,
        title=display_line(tool.title or "").strip() or None,
        description=describe(tool),
        input_schema=schema,
        annotations=types.ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else bool(annotations and annotations.consequential_hint),
            open_world_hint=True,
        ),
        _meta=meta,
    )


@dataclass
class _Entry:
    info: PageTool
    tool: types.Tool
    validator: InputSchema | None = None
    compiled: bool = False

    def input_validator(self) -> InputSchema | None:
        """The compiled `inputSchema` (page_schemas.py), built on the first call of this tool."""
        if not self.compiled:
            self.validator = compile_schema(self.tool.input_schema)
            self.compiled = True
        return self.validator


@dataclass
class PageToolTable:
    """The exposed page tools (from the last `tools.changed`) and how to call them.

    `requester` reaches the worker; `deadline_ms` bounds one call (default 60 s, design.md §5);
    `on_change` runs (awaited) after each update that changed the list.
    """

    requester: Requester
    deadline_ms: int = PAGE_TOOL_DEADLINE_MS
    on_change: Callable[[], Awaitable[None]] | None = None
    _entries: dict[str, _Entry] = field(default_factory=dict)
    _signature: str = ""
    _cancels: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def names(self) -> list[str]:
        """Exposed names, in the worker's order."""
        return list(self._entries)

    def tools(self) -> list[types.Tool]:
        """The `tools/list` entries."""
        return [entry.tool for entry in self._entries.values()]

    def get(self, name: str) -> types.Tool | None:
        """The entry of exposed name `name`, or None."""
        entry = self._entries.get(name)
        return entry.tool if entry else None

    def info(self, name: str) -> PageTool | None:
        """What the worker said of exposed tool `name` (its page's id and title: activity.py), or None."""
        entry = self._entries.get(name)
        return entry.info if entry else None

    async def update(self, tools: list[PageTool]) -> bool:
        """Replace the table with `tools` (duplicates by name: the first wins). Returns whether
        the list changed; if so, awaits `on_change`."""
        signature = json.dumps([t.model_dump(mode="json") for t in tools], sort_keys=True)
        if signature == self._signature:
            return False
        self._signature = signature
        entries: dict[str, _Entry] = {}
        for info in tools:
            if info.name not in entries:
                entry = _Entry(info, mcp_tool(info))
                before = self._entries.get(info.name)
                same_schema = before is not None and before.tool.input_schema == entry.tool.input_schema
                if before is not None and before.compiled and same_schema:
                    # A tab switch or another page's change resends every tool: keep the compiled
                    # validator of an unchanged schema (compiled once per schema, on first call).
                    entry.validator, entry.compiled = before.validator, True
                entries[info.name] = entry
        self._entries = entries
        log.info("page tools: %d exposed", len(entries))
        if self.on_change is not None:
            await self.on_change()
        return True

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult | None:
        """Run exposed tool `name`; None when no such tool is exposed (the caller raises the
        JSON-RPC error). Every failure is an `isError` result (design.md §5 "Calls"). Cancellation of
        the awaiting task aborts the page's signal (`tools.cancel`) and re-raises."""
        entry = self._entries.get(name)
        if entry is None:
            return None
        info = entry.info
        # In a worker thread: a hostile schema's regex or size must not stall the loop;
        # page_schemas.CHECK_BUDGET_S ends the thread's work, so it cannot pile up.
        problem = await asyncio.to_thread(lambda: check_input(entry.input_validator(), arguments))
        if problem is not None:
            return tool_error(f"{problem} (tool `{name}`)")
        call_id = self.requester.new_request_id()
        # The port sends the deadline too: a confirmation prompt (extension/service_worker/confirm.js)
        # gives up before it.
        request = ToolCallRequest(page_id=info.page_id, name=info.tool_name, input=arguments)
        try:
            raw = await self.requester.request(request, deadline_ms=self.deadline_ms, request_id=call_id)
        except asyncio.CancelledError:
            self._cancel_later(call_id)
            raise
        except DeadlineExceeded:
            self._cancel_later(call_id)
            return tool_error(
                f"The page did not answer within {self.deadline_ms / 1000:g} s; the call was cancelled. "
                "The page may be busy or waiting for the user."
            )
        except ExtensionError as exc:
            if exc.code in ("page_gone", "unknown_page"):
                return tool_error(PAGE_GONE_SENTENCE)
            return tool_error(f"The browser extension could not run the page tool (code {exc.code}).")
        except ProviderUnavailable:
            return tool_error(
                "The browser extension is no longer connected. Reopen the browser and try again."
            )
        try:
            reply = ToolCallReply.model_validate(raw)
        except ValueError:
            return tool_error(
                "The browser extension sent a page-tool reply of the wrong shape. Update webctx."
            )
        if not reply.ok:
            message = reply.error[:MAX_ERROR_CHARS] or "The page tool failed without a message."
            return tool_error(message)
        return map_result(reply.text)

    def _cancel_later(self, call_id: str) -> None:
        """Send `tools.cancel` for `call_id` in the background (the caller is being cancelled)."""

        async def cancel() -> None:
            try:
                await self.requester.request(ToolCancelRequest(call_id=call_id))
            except (DeadlineExceeded, ExtensionError, ProviderUnavailable) as exc:
                log.info("tools.cancel %s: %s", call_id, exc.code)

        task = asyncio.get_running_loop().create_task(cancel(), name=f"tools.cancel {call_id}")
        self._cancels.add(task)
        task.add_done_callback(self._cancels.discard)
