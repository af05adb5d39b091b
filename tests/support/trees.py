"""Element trees as `current` answers them (design.md §2), built instead of written out.

    app(window("win-1", page("tab-1", text("sel-1", "hello", selected=True), focused=True),
               focused=True))

Each builder returns the wire dict: `id`, `role`, then the given fields as they are (wire names:
a keyword is used as it is spelled, `futureField=…` too), then
`children` when there are any. `None` fields are left out, as the extension leaves them out.
"""

from __future__ import annotations

from typing import Any

Element = dict[str, Any]


def element(id_: str, role: str, *children: Element, **fields: Any) -> Element:
    """`{"id": id_, "role": role, **fields, "children": [...]}`; no `children` key without any."""
    out: Element = {"id": id_, "role": role}
    out.update({key: value for key, value in fields.items() if value is not None})
    if children:
        out["children"] = list(children)
    return out


def app(*windows: Element, id_: str = "app", **fields: Any) -> Element:
    """The Application root holding `windows`."""
    return element(id_, "Application", *windows, **fields)


def window(id_: str, *pages: Element, **fields: Any) -> Element:
    """A Window holding `pages`."""
    return element(id_, "Window", *pages, **fields)


def page(id_: str, *children: Element, subrole: str | None = "tab", **fields: Any) -> Element:
    """A Page (subrole `tab` unless told otherwise) holding `children`."""
    return element(id_, "Page", *children, subrole=subrole, **fields)


def text(id_: str, content: str, **fields: Any) -> Element:
    """A Text element whose content is one text block."""
    return element(id_, "Text", **fields, content=[{"type": "text", "text": content}])
