"""Reading an answer's element tree: the walk every tree check shares, and the answers it walks.

Plain functions over untrusted JSON: a non-object element is yielded but not descended into, a
non-list `children` is ignored, so nothing here raises on a garbage answer. The checks that use
them are tree_checks.py (shape and ids), state_checks.py (roles and states) and
location_checks.py; runner's MCP conversation walks `current` for the ids it passes to `location`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from native_host.conformance.checks import MAX_LISTED
from native_host.conformance.evidence import Evidence, Outcome, failed, passed, skipped

# Like checks.py, the kit keeps its own copies of the protocol's constants (see there).

ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""Element ids, matched with `fullmatch` (Concepts: Ids and instances; design.md §2). No `^…$`: with
Python's `re`, `$` also matches before a trailing newline, so `"sel-1\\n"` would pass."""

STATES: Final = ("selected", "focused", "visible", "hovered")
"""The four element states, booleans that are omitted when they hold their default (Concepts: States)."""


@dataclass(frozen=True)
class Node:
    """One element of an answer's tree as a walk sees it: the raw object, its parent (None for the
    root), and the inherited `visible` value of its parent (the root's parent counts as visible)."""

    element: Any
    parent: Node | None
    parent_visible: bool


def walk(root: Any) -> Iterator[Node]:
    """Every element under `root` (depth first, document order), tolerating any JSON: a non-object
    element is yielded but not descended into, and a non-list `children` is ignored."""
    stack: list[Node] = [Node(root, None, True)]
    while stack:
        node = stack.pop()
        yield node
        element = node.element
        if not isinstance(element, dict):
            continue
        children = element.get("children")
        if not isinstance(children, list):
            continue
        own = element.get("visible")
        visible = own if isinstance(own, bool) else node.parent_visible
        stack.extend(Node(child, node, visible) for child in reversed(children))


def element_id(element: Any) -> Any:
    """The element's `id` as written (anything), or None when the element is not an object."""
    return element.get("id") if isinstance(element, dict) else None


def has_state(element: Any, state: str) -> bool:
    """True when the element is an object whose `state` (one of STATES) is exactly `true`."""
    return isinstance(element, dict) and element.get(state) is True


def answers(ev: Evidence) -> list[tuple[str, dict[str, Any]]]:
    """(label, answer object) for every `current` call that gave a JSON object."""
    return [
        (f"answer {i} ({call.era})", call.structured)
        for i, call in enumerate(ev.currents, 1)
        if call.error is None and not call.is_error and isinstance(call.structured, dict)
    ]


def roots(ev: Evidence) -> list[tuple[str, Any]]:
    """(label, root) for every `current` answer that has a `root` (the root may be anything)."""
    return [(label, answer.get("root")) for label, answer in answers(ev) if "root" in answer]


def over_trees(ev: Evidence, problems_of: Callable[[Any], list[str]]) -> Outcome:
    """Run `problems_of(root) -> list[str]` over every answer's tree; fail on the first answer with
    problems (quoting up to MAX_LISTED of them), skip when no answer has a root."""
    found = roots(ev)
    if not found:
        return skipped("no `current` answer with a root to check")
    for label, root in found:
        problems = problems_of(root)
        if problems:
            return failed(f"{label}: {'; '.join(problems[:MAX_LISTED])}")
    return passed(f"{len(found)} answer(s) checked")
