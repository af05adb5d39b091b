"""The conformance checks on roles and the four states of the `current` answer's elements:
roles among the thirteen, one unbroken focus path, at most one innermost hover, inherited
`visible`, defaults left out. Plain functions `Evidence -> Outcome` over untrusted JSON, like
checks.py: none raises on a garbage answer. Sources: the concepts page ("Concepts: Elements",
"Concepts: States") and design.md §2; each docstring names its own.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from native_host.conformance.checks import listed, short
from native_host.conformance.evidence import Evidence, Outcome, passed, skipped, warned
from native_host.conformance.trees import element_id, has_state, over_trees, roots, walk

# Like checks.py, the kit keeps its own copies of the protocol's constants (see there).

ROLES: Final = frozenset(
    (
        "Application",
        "Window",
        "Group",
        "List",
        "Table",
        "Row",
        "Cell",
        "Text",
        "Heading",
        "Link",
        "Image",
        "Page",
        "Document",
    )
)
"""The thirteen roles (Concepts: Elements). Any other role is treated as Group."""


def current_roles(ev: Evidence) -> Outcome:
    """Roles are among the thirteen; an unknown role is tolerated as Group, with a warning
    (Concepts: Elements)."""
    trees = roots(ev)
    if not trees:
        return skipped("no `current` answer with a root to check")
    unknown = sorted(
        {
            r
            for _, root in trees
            for n in walk(root)
            if isinstance(r := (n.element.get("role") if isinstance(n.element, dict) else None), str)
            and r not in ROLES
        }
    )
    if unknown:
        return warned(f"roles outside the thirteen, treated as Group: {listed(unknown)}")
    return passed("every role is one of the thirteen")


def current_focus_path(ev: Evidence) -> Outcome:
    """`focused` forms one unbroken path starting at a child of the root, with no gaps and no
    branches; the root itself is not focused (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        focused = [n for n in walk(root) if has_state(n.element, "focused")]
        if not focused:
            return []
        found: list[str] = []
        if any(n.parent is None for n in focused):
            found.append("the root is focused; the path starts at a child of the root")
        starts = [n for n in focused if n.parent is not None and n.parent.parent is None]
        gaps = [
            element_id(n.element)
            for n in focused
            if n.parent is not None
            and n.parent.parent is not None
            and not has_state(n.parent.element, "focused")
        ]
        if len(starts) != 1:
            found.append(f"{len(starts)} focused children of the root; want exactly one")
        if gaps:
            found.append(f"focused elements whose parent is not focused (a gap): {listed(gaps)}")
        parents = Counter(
            id(n.parent) for n in focused if n.parent is not None and n.parent.parent is not None
        )
        if any(c > 1 for c in parents.values()):
            found.append("the path branches: an element has more than one focused child")
        return found

    return over_trees(ev, problems)


def current_hovered(ev: Evidence) -> Outcome:
    """At most one element is `hovered`, and never an ancestor of another hovered element: hover
    goes on the innermost reported element under the pointer (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        hovered = [n for n in walk(root) if has_state(n.element, "hovered")]
        if len(hovered) <= 1:
            return []
        found = [f"{len(hovered)} hovered elements: {listed([element_id(n.element) for n in hovered])}"]
        for n in hovered:
            up = n.parent
            while up is not None:
                if has_state(up.element, "hovered"):
                    above, below = short(element_id(up.element)), short(element_id(n.element))
                    found.append(f"hovered {above} is an ancestor of hovered {below}")
                    break
                up = up.parent
        return found

    return over_trees(ev, problems)


def current_visible(ev: Evidence) -> Outcome:
    """`visible` inherits the parent's value (the root is visible); nothing inside an element that
    is not visible says it is visible (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        bad = [
            element_id(n.element)
            for n in walk(root)
            if n.parent is not None and not n.parent_visible and has_state(n.element, "visible")
        ]
        return [f"visible: true inside an element that is not visible: {listed(bad)}"] if bad else []

    return over_trees(ev, problems)


def current_default_states(ev: Evidence) -> Outcome:
    """States are omitted when they hold their default: `selected`/`focused`/`hovered` false,
    `visible` equal to the parent's (Concepts: States; design.md §2). A warning, not a fail."""
    trees = roots(ev)
    if not trees:
        return skipped("no `current` answer with a root to check")
    spelled: list[str] = []
    for _, root in trees:
        for n in walk(root):
            e = n.element
            if not isinstance(e, dict):
                continue
            spelled += [
                f"{element_id(e)}.{s}=false" for s in ("selected", "focused", "hovered") if e.get(s) is False
            ]
            if isinstance(e.get("visible"), bool) and e["visible"] == n.parent_visible:
                spelled.append(f"{element_id(e)}.visible={str(e['visible']).lower()}")
    if spelled:
        return warned(f"states written with their default value: {listed(spelled)}")
    return passed("no default state written")
