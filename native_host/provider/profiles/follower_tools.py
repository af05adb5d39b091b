"""The page tools of other profiles, on the provider (design.md §3 "Several profiles", §5 "Exposure").

```
follower host ── tools.changed {tools: PageTool[]} (its extension's list, its own names) ──►
    FollowerTools.update(k, requester, tools)
        page ids  tab-<n>   → f<k>-tab-<n>          (merge.py's follower prefix)
        names     p<n>_add  → p<n>f<k>_add          (follower_name; ≤ 48 of [A-Za-z0-9_])
        one PageToolTable per follower, its requester the follower's connection (handoff_server.py)
desktop host ── tools/call p<n>f<k>_add ──► that table: validation, deadline, tools.cancel,
    "page gone" exactly as for the provider's own tools (page_tools.py)
follower disconnects ──► FollowerTools.remove(k): its tools leave tools/list (on_change)
```

Naming (our decision, docs/internals/native-host.md): the page number of a follower's Page `f<k>-tab-<n>`
is written `<n>f<k>`, so its tools are `p<n>f<k>_<clean toolName>`. The provider's own tools are
`p<n>_…` (digits then `_`), so the two never collide, and two followers differ in `k`. `k` is
kept per follower host instance (handoff_server.py), so a follower that reconnects keeps its
names; the name is remembered per (k, the follower's name) for the provider's whole instance. A
name over 48 characters is cut with the same `_` + 6 base-36 digits of FNV-1a as the extension's
(tool_names.js), over `<k>\\0<the follower's name>`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcp import types

from native_host.protocol.native import PAGE_TOOL_DEADLINE_MS, PageTool
from native_host.protocol.tools import tool_error
from native_host.provider.page_tools import PageToolTable
from native_host.provider.port.chain import Requester

log = logging.getLogger(__name__)

MAX_NAME_CHARS: Final = 48
"""Longest exposed name (design.md §5), as extension/service_worker/tool_names.js."""

HASH_CHARS: Final = 6

FOLLOWER_GONE_SENTENCE: Final = (
    "Page gone: the browser profile of this page stopped serving (its webctx extension or native "
    "host went away) while the tool ran. Call tools/list again."
)

_EXPOSED = re.compile(r"p(\d+)_(.*)", re.DOTALL)
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def short_hash(text: str) -> str:
    """FNV-1a (32 bit) over the UTF-16 code units of `text`, as 6 base-36 digits (tool_names.js)."""
    value = 0x811C9DC5
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        value ^= data[i] | (data[i + 1] << 8)
        value = (value * 0x01000193) & 0xFFFFFFFF
    digits = ""
    while True:
        value, rest = divmod(value, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
        if value == 0:
            break
    return digits.rjust(HASH_CHARS, "0")[-HASH_CHARS:]


def follower_name(number: int, name: str, salt: int = 0) -> str:
    """The provider's exposed name for tool `name` (the follower's `p<n>_…`) of follower `number`:
    `p<n>f<number>_…`, cut to 48 characters with a hash suffix when longer (or when `salt` > 0,
    for the rare hashed collision)."""
    match = _EXPOSED.fullmatch(name)
    page, rest = (match.group(1), match.group(2)) if match else ("0", name)
    clean = _UNSAFE.sub("_", f"p{page}f{number}_{rest}")
    if len(clean) <= MAX_NAME_CHARS and salt == 0:
        return clean
    key = f"{number}\0{name}" + (f"\0{salt}" if salt else "")
    suffix = "_" + short_hash(key)
    return clean[: MAX_NAME_CHARS - len(suffix)] + suffix


def prefix_page_id(page_id: str, prefix: str) -> str:
    """`page_id` as the merged tree shows it (`f<k>-tab-<n>`)."""
    return prefix + page_id


class _FollowerTable:
    """One follower's tools: its table, and its names (follower's → provider's)."""

    def __init__(self, table: PageToolTable) -> None:
        self.table = table
        self.names: dict[str, str] = {}


class FollowerTools:
    """Every follower's page tools, as MCP tools of the provider.

    `deadline_ms` bounds one call (design.md §5, default 60 s); `on_change` is awaited after a change
    of the merged list (the endpoint sends `tools/list_changed`). Use from the event loop.
    """

    def __init__(
        self,
        *,
        deadline_ms: int = PAGE_TOOL_DEADLINE_MS,
        on_change: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.deadline_ms = deadline_ms
        self.on_change = on_change
        self._tables: dict[int, _FollowerTable] = {}
        self._names: dict[tuple[int, str], str] = {}
        """(k, the follower's name) → ours, for the provider's whole instance (stable names)."""
        self._taken: set[str] = set()

    def exposed_name(self, number: int, name: str) -> str:
        """Our name for follower `number`'s tool `name`, minted once and then remembered."""
        known = self._names.get((number, name))
        if known is not None:
            return known
        salt = 0
        exposed = follower_name(number, name)
        while exposed in self._taken:
            salt += 1
            exposed = follower_name(number, name, salt)
        self._names[(number, name)] = exposed
        self._taken.add(exposed)
        return exposed

    def names_of(self, number: int) -> dict[str, str]:
        """Follower `number`'s tool names → ours (for the merged tree's `attributes.tools`)."""
        entry = self._tables.get(number)
        return dict(entry.names) if entry else {}

    async def update(self, number: int, prefix: str, requester: Requester, raw_tools: Any) -> None:
        """Replace follower `number`'s tools with `raw_tools` (its `tools.changed` list, wire
        shape; entries of the wrong shape are dropped). Page ids get `prefix`; `requester` reaches
        the follower (calls strip the prefix again, handoff_server.py). Awaits `on_change` on a
        change."""
        tools: list[PageTool] = []
        names: dict[str, str] = {}
        for raw in raw_tools if isinstance(raw_tools, list) else []:
            try:
                tool = PageTool.model_validate(raw)
            except ValueError:
                continue
            exposed = self.exposed_name(number, tool.name)
            names[tool.name] = exposed
            page_id = prefix_page_id(tool.page_id, prefix)
            tools.append(tool.model_copy(update={"name": exposed, "page_id": page_id}))
        entry = self._tables.get(number)
        if entry is None:
            entry = _FollowerTable(PageToolTable(requester, self.deadline_ms))
            self._tables[number] = entry
        entry.table.requester = requester
        entry.names = names
        if await entry.table.update(tools) and self.on_change is not None:
            await self.on_change()

    async def remove(self, number: int) -> None:
        """Follower `number` disconnected: its tools leave the list (calls in flight end on their
        own: its requester fails them). Awaits `on_change` when it had tools."""
        entry = self._tables.pop(number, None)
        if entry is not None and entry.table.names and self.on_change is not None:
            await self.on_change()

    def tools(self) -> list[types.Tool]:
        """Every follower's `tools/list` entries, followers in connection order."""
        return [tool for entry in self._tables.values() for tool in entry.table.tools()]

    def get(self, name: str) -> types.Tool | None:
        """The entry of exposed name `name`, or None."""
        for entry in self._tables.values():
            tool = entry.table.get(name)
            if tool is not None:
                return tool
        return None

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult | None:
        """Run follower tool `name` as PageToolTable.call does; None when no follower exposes it.
        A call whose follower disconnected meanwhile ends as `isError` FOLLOWER_GONE_SENTENCE."""
        for number, entry in list(self._tables.items()):
            if entry.table.get(name) is not None:
                result = await entry.table.call(name, arguments)
                if result is not None and result.is_error and self._tables.get(number) is not entry:
                    return tool_error(FOLLOWER_GONE_SENTENCE)
                return result
        return None
