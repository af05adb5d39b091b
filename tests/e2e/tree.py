"""Small helpers to search an element tree (plain dicts, as `current` returns it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

Element = dict[str, Any]


def walk(element: Element) -> Iterator[Element]:
    """Yield `element` and every descendant, depth first, in document order."""
    yield element
    for child in element.get("children", []) or []:
        yield from walk(child)


def find_all(root: Element, predicate: Callable[[Element], bool]) -> list[Element]:
    """Every element under `root` (inclusive) for which `predicate` holds, in document order."""
    return [e for e in walk(root) if predicate(e)]


def find_one(root: Element, predicate: Callable[[Element], bool]) -> Element:
    """The single element matching `predicate`; AssertionError if there are none or several."""
    found = find_all(root, predicate)
    assert len(found) == 1, f"expected one match, found {len(found)}"
    return found[0]


def selected_texts(answer: dict[str, Any]) -> list[Element]:
    """The Text elements with `selected: true` in a `current` answer."""
    return find_all(answer["root"], lambda e: e["role"] == "Text" and e.get("selected"))
