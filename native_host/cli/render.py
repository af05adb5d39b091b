"""A context tree (SPEC §2) as readable indented text for the terminal."""

from __future__ import annotations

from typing import Final

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
    for key in ("version", "author", "lang", "length", "truncated", "tabsOmitted"):
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
