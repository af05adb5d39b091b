"""A context tree (design.md §2), a tool list and a tool result (§5) as readable text for the terminal."""

from __future__ import annotations

import json
from typing import Any, Final

from mcp import types

from native_host.protocol.answers import Element

MAX_TEXT_CHARS: Final = 72
"""Selected text longer than this is shortened with "…" in the tree view (characters)."""

MAX_TOOL_NAMES: Final = 8
"""At most this many page-tool names are listed on an element's line; the rest are "+N more"."""

MAX_ID_CHARS: Final = 80
"""An element id echoed back to the terminal is cut to this many characters (ids come from
command lines and providers, so they can be any length)."""


def shorten(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """`text` on one line (whitespace runs collapsed), cut to `limit` characters with "…"."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def name_list(names: list[str], limit: int, separator: str = ", ") -> str:
    """`names` joined by `separator`, the first `limit` only, then "+N more" for the rest."""
    shown = separator.join(shorten(name, MAX_ID_CHARS) for name in names[:limit])
    rest = len(names) - limit
    return f"{shown} +{rest} more" if rest > 0 else shown


def describe(element: Element) -> str:
    """One line for `element`: role[/subrole], id, "title", <url>, [states], “text”, key attributes."""
    role = element.role + (f"/{element.subrole}" if element.subrole else "")
    parts = [f"{role} {shorten(element.id, MAX_ID_CHARS)}"]
    if element.title:
        parts.append(f'"{shorten(element.title, 60)}"')
    if element.url:
        parts.append(f"<{shorten(element.url, 80)}>")
    states = [
        name
        for name, on in (
            ("focused", element.focused),
            ("selected", element.selected),
            ("hovered", element.hovered),
        )
        if on
    ]
    if element.visible is False:
        states.append("hidden")
    if states:
        parts.append("[" + ", ".join(states) + "]")
    texts = [
        str(block.get("text", "")) for block in element.content or [] if block.get("type") == "text"
    ]
    if texts:
        parts.append(f"“{shorten(' '.join(texts))}”")
    attributes = element.attributes or {}
    for key in ("version", "author", "lang", "length", "truncated", "hiddenOmitted", "tabsOmitted"):
        if key in attributes:
            parts.append(f"{key}={attributes[key]}")
    tools = attributes.get("tools")
    if isinstance(tools, list) and tools:
        parts.append("tools=" + name_list([str(t) for t in tools], MAX_TOOL_NAMES, ","))
    return "  ".join(parts)


def render_tree(root: Element) -> str:
    """The whole tree, one element per line, children indented under box-drawing branches."""
    lines = [describe(root)]

    def walk(element: Element, prefix: str) -> None:
        children = element.children or []
        for index, child in enumerate(children):
            last = index == len(children) - 1
            lines.append(prefix + ("└─ " if last else "├─ ") + describe(child))
            walk(child, prefix + ("   " if last else "│  "))

    walk(root, "")
    return "\n".join(lines)


MAX_DESCRIPTION_CHARS: Final = 200
"""A tool's description is shortened to this many characters in `webctx tools` (characters); a
page tool's starts with the provider's "[Page tool of “title” (origin); …]" prefix."""


def describe_tool(tool: types.Tool) -> str:
    """A `tools/list` entry as a line: name, then for a page tool (design.md §5 "Exposure", from its
    `_meta`) `page=<pageId>`, `origin=`, `frame=` (a tool of an embedded frame), then `read-only`
    or `may act` (the `readOnlyHint`) and `asks first` (consequential: Allow/Deny); then the
    description, shortened, on a second line indented by 4."""
    meta = tool.meta or {}
    parts = [shorten(tool.name, MAX_ID_CHARS)]
    for key, label in (("pageId", "page"), ("origin", "origin"), ("frameOrigin", "frame")):
        value = meta.get(key)
        if isinstance(value, str) and value:
            parts.append(f"{label}={shorten(value, MAX_ID_CHARS)}")
    read_only = tool.annotations.read_only_hint if tool.annotations is not None else None
    parts.append("read-only" if read_only else "may act")
    if meta.get("consequential"):
        parts.append("asks first")
    line = "  ".join(parts)
    if tool.description:
        line += "\n    " + shorten(tool.description, MAX_DESCRIPTION_CHARS)
    return line


def result_text(result: types.CallToolResult) -> str:
    """A tool result's content for a person: text blocks as they are (one holding exactly the
    `structuredContent` as JSON is printed indented), other blocks as one bracketed line
    (`[image image/png, 2048 bytes]`); only `structuredContent` (no content): indented JSON."""
    structured = result.structured_content
    lines: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            lines.append(_text_block(block.text, structured))
        elif isinstance(block, types.ImageContent | types.AudioContent):
            kind = "image" if isinstance(block, types.ImageContent) else "audio"
            lines.append(f"[{kind} {block.mime_type}, {len(block.data) * 3 // 4} bytes]")
        elif isinstance(block, types.ResourceLink):
            lines.append(f"[link {block.uri}]")
        elif isinstance(block, types.EmbeddedResource):
            inner = block.resource
            text = getattr(inner, "text", None)
            lines.append(text if isinstance(text, str) else f"[resource {inner.uri}]")
    if not lines and structured is not None:
        lines.append(json.dumps(structured, indent=2, ensure_ascii=False))
    return "\n".join(lines)


def _text_block(text: str, structured: Any) -> str:
    if structured is not None and text.lstrip().startswith("{"):
        try:
            if json.loads(text) == structured:
                return json.dumps(structured, indent=2, ensure_ascii=False)
        except ValueError:
            pass
    return text
