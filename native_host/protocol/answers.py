"""The answers of the two protocol tools: `current` (the element tree) and `location` (design.md §1, §2)."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from native_host.protocol.base import ID_PATTERN, WireModel

SUBROLES: Final[dict[str, str]] = {
    "tab": "Page",
    "frame": "Group",
    "textbox": "Group",
    "pdf": "Document",
}
"""The subroles webctx's tree uses, each with the role it goes with (design.md §2): a browser tab,
a frame holding what the user points at, the editable field holding the caret, a PDF (the tab's,
or one in an iframe, <embed> or <object>); scripts/gen_wire.py writes them into extension/wire.js.
Receivers ignore subroles they do not know."""


class Element(WireModel):
    """One element of the tree (design.md §2; concepts page, "Elements"). Tolerant of unknown fields.

    States are written only where they differ from the default: `selected`/`focused`/`hovered`
    default to false, `visible` inherits the parent's (the root is visible).
    """

    model_config = ConfigDict(extra="allow")

    id: str = Field(pattern=ID_PATTERN.pattern)
    role: str
    subrole: str | None = None
    title: str | None = None
    content: list[dict[str, Any]] | None = None
    url: str | None = None
    selected: bool | None = None
    focused: bool | None = None
    visible: bool | None = None
    hovered: bool | None = None
    children: list[Element] | None = None
    attributes: dict[str, Any] | None = None


class CurrentAnswer(WireModel):
    """The `structuredContent` of the `current` MCP tool: exactly these three fields (design.md §1.1)."""

    model_config = ConfigDict(extra="allow")

    protocol: str
    instance: str
    root: Element


class Rect(WireModel):
    """A rectangle in global display coordinates, in points (design.md §1.2): origin at the top-left
    of the primary display, y down. Tolerant of unknown fields."""

    model_config = ConfigDict(extra="allow")

    x: float
    y: float
    w: float = Field(ge=0)
    h: float = Field(ge=0)


class LocationAnswer(WireModel):
    """The `structuredContent` of the `location` MCP tool (design.md §1.2). `window` is the OS window
    number (X11 window id on Linux), omitted where there is none (headless)."""

    model_config = ConfigDict(extra="allow")

    state: Literal["visible", "offscreen", "gone"]
    rects: list[Rect]
    window: int | None = None
    avoid: Rect | None = None
    edge: Literal["top", "bottom", "left", "right"] | None = None


class WindowBounds(WireModel):
    """The browser window's outer bounds in points (chrome.windows `left/top/width/height`), which
    the host matches against the platform's windows to find `window`."""

    model_config = ConfigDict(extra="allow")

    left: float
    top: float
    width: float
    height: float
