"""The conformance checks on the answers: `current` (the element tree), `location` when offered,
and id stability. Plain functions `Evidence -> Outcome` over untrusted JSON, like checks.py: none
raises on a garbage answer. Sources: the concepts page ("Concepts: <section>") and SPEC §1.1,
§1.2, §2; each docstring names its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from mcp import types
from pydantic import TypeAdapter, ValidationError

from native_host.conformance.checks import MAX_LISTED, descriptor_field, listed, short
from native_host.conformance.evidence import (
    ERA_2026,
    Call,
    Evidence,
    Outcome,
    failed,
    passed,
    skipped,
    warned,
)

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

ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""Element ids, matched with `fullmatch` (Concepts: Ids and instances; SPEC §2). No `^…$`: with
Python's `re`, `$` also matches before a trailing newline, so `"sel-1\\n"` would pass."""

STATES: Final = ("selected", "focused", "visible", "hovered")
LOCATION_STATES: Final = frozenset(("visible", "offscreen", "gone"))
EDGES: Final = frozenset(("top", "bottom", "left", "right"))
_CONTENT_BLOCK: Final[TypeAdapter[types.ContentBlock]] = TypeAdapter(types.ContentBlock)


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


def _id(element: Any) -> Any:
    return element.get("id") if isinstance(element, dict) else None


def _is(element: Any, state: str) -> bool:
    return isinstance(element, dict) and element.get(state) is True


def _answers(ev: Evidence) -> list[tuple[str, dict[str, Any]]]:
    """(label, answer object) for every `current` call that gave a JSON object."""
    return [
        (f"answer {i} ({call.era})", call.structured)
        for i, call in enumerate(ev.currents, 1)
        if call.error is None and not call.is_error and isinstance(call.structured, dict)
    ]


def _roots(ev: Evidence) -> list[tuple[str, Any]]:
    return [(label, answer.get("root")) for label, answer in _answers(ev) if "root" in answer]


def _over_trees(ev: Evidence, problems_of: Any) -> Outcome:
    """Run `problems_of(root) -> list[str]` over every answer's tree; fail on the first problems."""
    roots = _roots(ev)
    if not roots:
        return skipped("no `current` answer with a root to check")
    for label, root in roots:
        problems: list[str] = problems_of(root)
        if problems:
            return failed(f"{label}: {'; '.join(problems[:MAX_LISTED])}")
    return passed(f"{len(roots)} answer(s) checked")


# ---------------------------------------------------------------------------------------------
# `current` (Concepts: Elements, States, Ids and instances; SPEC §1.1, §2)


def current_answers(ev: Evidence) -> Outcome:
    """Every `current` call answers with a JSON object (structuredContent, or a text block of
    JSON), not an error (SPEC §1.1)."""
    if not ev.currents:
        return skipped(ev.mcp_skipped or "`current` was not called")
    for i, call in enumerate(ev.currents, 1):
        if call.error is not None:
            return failed(f"call {i} ({call.era}) failed: {call.error}")
        if call.is_error:
            return failed(f"call {i} ({call.era}) answered isError: {short(call.content, 120)}")
        if not isinstance(call.structured, dict):
            return failed(f"call {i} ({call.era}) answered {short(call.structured)}, not a JSON object")
    return passed(f"{len(ev.currents)} call(s) answered")


def current_fields(ev: Evidence) -> Outcome:
    """The answer has exactly `protocol`, `instance` and `root` (Concepts: Elements; SPEC §1.1)."""
    answers = _answers(ev)
    if not answers:
        return skipped("no `current` answer")
    for label, answer in answers:
        keys = set(answer)
        if keys != {"protocol", "instance", "root"}:
            return failed(f"{label} has fields {listed(sorted(keys))}; want exactly protocol, instance, root")
    return passed("exactly protocol, instance, root")


def _equal_to_descriptor(ev: Evidence, name: str) -> Outcome:
    answers = _answers(ev)
    if not answers:
        return skipped("no `current` answer")
    want = descriptor_field(ev, name)
    for label, answer in answers:
        if answer.get(name) != want or want is None:
            return failed(f"{label}: {name} {short(answer.get(name))} ≠ the descriptor's {short(want)}")
    return passed(f"{name} equals the descriptor's")


def current_instance(ev: Evidence) -> Outcome:
    """The answer's `instance` equals the descriptor's (Concepts: Discovery: a host drops it otherwise)."""
    return _equal_to_descriptor(ev, "instance")


def current_protocol(ev: Evidence) -> Outcome:
    """The answer's `protocol` equals the descriptor's (Concepts: Versions, Discovery)."""
    return _equal_to_descriptor(ev, "protocol")


_OPTIONAL_STRINGS: Final = ("subrole", "title", "url")


def _element_problems(root: Any) -> list[str]:
    problems: list[str] = []
    for node in walk(root):
        e = node.element
        if not isinstance(e, dict):
            problems.append(f"an element is {short(e)}, not an object")
            continue
        where = f"element {short(e.get('id'))}"
        if not isinstance(e.get("id"), str):
            problems.append(f"{where}: `id` is not a string")
        if not isinstance(e.get("role"), str):
            problems.append(f"{where}: `role` is {short(e.get('role'))}, not a string")
        for name in _OPTIONAL_STRINGS:
            if name in e and not isinstance(e[name], str):
                problems.append(f"{where}: `{name}` is not a string")
        for name in STATES:
            if name in e and not isinstance(e[name], bool):
                problems.append(f"{where}: `{name}` is {short(e[name])}, not a boolean")
        for name, kind in (("children", list), ("content", list), ("attributes", dict)):
            if name in e and not isinstance(e[name], kind):
                problems.append(f"{where}: `{name}` is not a{'n object' if kind is dict else ' list'}")
    return problems


def current_elements(ev: Evidence) -> Outcome:
    """Every element is an object with a string `id` and `role`; `subrole`, `title`, `url` are
    strings, the four states booleans, `children`/`content` lists, `attributes` an object (SPEC §2)."""
    return _over_trees(ev, _element_problems)


def current_single_application(ev: Evidence) -> Outcome:
    """The root is an Application and the only one (Concepts: Elements)."""

    def problems(root: Any) -> list[str]:
        if not isinstance(root, dict) or root.get("role") != "Application":
            return ["the root is not an Application"]
        others = [
            _id(n.element)
            for n in walk(root)
            if n.parent is not None and isinstance(n.element, dict) and n.element.get("role") == "Application"
        ]
        return [f"Application below the root: {listed(others)}"] if others else []

    return _over_trees(ev, problems)


def current_id_format(ev: Evidence) -> Outcome:
    """Every id is 1 to 128 letters, digits, `-` or `_` (Concepts: Ids and instances; SPEC §2)."""

    def problems(root: Any) -> list[str]:
        bad = [
            _id(n.element)
            for n in walk(root)
            if not (isinstance(_id(n.element), str) and ID_PATTERN.fullmatch(_id(n.element)))
        ]
        return [f"ids not matching ^[A-Za-z0-9_-]{{1,128}}$: {listed(bad)}"] if bad else []

    return _over_trees(ev, problems)


def current_ids_unique(ev: Evidence) -> Outcome:
    """No id appears twice in one answer (Concepts: Ids and instances)."""

    def problems(root: Any) -> list[str]:
        counts = Counter(i for n in walk(root) if isinstance(i := _id(n.element), str))
        twice = sorted(i for i, c in counts.items() if c > 1)
        return [f"ids used more than once: {listed(twice)}"] if twice else []

    return _over_trees(ev, problems)


def current_roles(ev: Evidence) -> Outcome:
    """Roles are among the thirteen; an unknown role is tolerated as Group, with a warning
    (Concepts: Elements)."""
    roots = _roots(ev)
    if not roots:
        return skipped("no `current` answer with a root to check")
    unknown = sorted(
        {
            r
            for _, root in roots
            for n in walk(root)
            if isinstance(r := (n.element.get("role") if isinstance(n.element, dict) else None), str)
            and r not in ROLES
        }
    )
    if unknown:
        return warned(f"roles outside the thirteen, treated as Group: {listed(unknown)}")
    return passed("every role is one of the thirteen")


def current_content(ev: Evidence) -> Outcome:
    """Every `content` item is a valid MCP content block, unchanged from the MCP specification
    (Concepts: Elements)."""

    def problems(root: Any) -> list[str]:
        found: list[str] = []
        for n in walk(root):
            content = n.element.get("content") if isinstance(n.element, dict) else None
            for block in content if isinstance(content, list) else []:
                try:
                    _CONTENT_BLOCK.validate_python(block)
                except (ValidationError, ValueError, TypeError):
                    found.append(
                        f"element {short(_id(n.element))}: {short(block)} is not an MCP content block"
                    )
        return found

    return _over_trees(ev, problems)


def current_focus_path(ev: Evidence) -> Outcome:
    """`focused` forms one unbroken path starting at a child of the root, with no gaps and no
    branches; the root itself is not focused (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        focused = [n for n in walk(root) if _is(n.element, "focused")]
        if not focused:
            return []
        found: list[str] = []
        if any(n.parent is None for n in focused):
            found.append("the root is focused; the path starts at a child of the root")
        starts = [n for n in focused if n.parent is not None and n.parent.parent is None]
        gaps = [
            _id(n.element)
            for n in focused
            if n.parent is not None and n.parent.parent is not None and not _is(n.parent.element, "focused")
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

    return _over_trees(ev, problems)


def current_hovered(ev: Evidence) -> Outcome:
    """At most one element is `hovered`, and never an ancestor of another hovered element: hover
    goes on the innermost reported element under the pointer (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        hovered = [n for n in walk(root) if _is(n.element, "hovered")]
        if len(hovered) <= 1:
            return []
        found = [f"{len(hovered)} hovered elements: {listed([_id(n.element) for n in hovered])}"]
        for n in hovered:
            up = n.parent
            while up is not None:
                if _is(up.element, "hovered"):
                    found.append(
                        f"hovered {short(_id(up.element))} is an ancestor of hovered {short(_id(n.element))}"
                    )
                    break
                up = up.parent
        return found

    return _over_trees(ev, problems)


def current_visible(ev: Evidence) -> Outcome:
    """`visible` inherits the parent's value (the root is visible); nothing inside an element that
    is not visible says it is visible (Concepts: States)."""

    def problems(root: Any) -> list[str]:
        bad = [
            _id(n.element)
            for n in walk(root)
            if n.parent is not None and not n.parent_visible and _is(n.element, "visible")
        ]
        return [f"visible: true inside an element that is not visible: {listed(bad)}"] if bad else []

    return _over_trees(ev, problems)


def current_default_states(ev: Evidence) -> Outcome:
    """States are omitted when they hold their default: `selected`/`focused`/`hovered` false,
    `visible` equal to the parent's (Concepts: States; SPEC §2). A warning, not a fail."""
    roots = _roots(ev)
    if not roots:
        return skipped("no `current` answer with a root to check")
    spelled: list[str] = []
    for _, root in roots:
        for n in walk(root):
            e = n.element
            if not isinstance(e, dict):
                continue
            spelled += [
                f"{_id(e)}.{s}=false" for s in ("selected", "focused", "hovered") if e.get(s) is False
            ]
            if isinstance(e.get("visible"), bool) and e["visible"] == n.parent_visible:
                spelled.append(f"{_id(e)}.visible={str(e['visible']).lower()}")
    if spelled:
        return warned(f"states written with their default value: {listed(spelled)}")
    return passed("no default state written")


# ---------------------------------------------------------------------------------------------
# `location` (Concepts: Locations; SPEC §1.2)


def _location_calls(ev: Evidence, probe: str) -> list[Call] | Outcome:
    if not ev.eras or all(era.error is not None for era in ev.eras):
        return skipped(ev.mcp_skipped or "no MCP connection")
    offered = any(isinstance(era.tools, list) and "location" in era.tools for era in ev.eras)
    if not offered:
        return skipped("not offered")
    calls = [c for c in ev.locations if c.probe == probe]
    return calls if calls else skipped(f"no {probe} id to ask about")


def _rect_problem(rect: Any) -> str | None:
    if not isinstance(rect, dict):
        return f"{short(rect)} is not a rect"
    for key in ("x", "y", "w", "h"):
        value = rect.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
            return f"{short(rect)}: `{key}` is not a number"
    return None


def _location_problem(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return f"{short(answer)} is not an object"
    if answer.get("state") not in LOCATION_STATES:
        return f"state {short(answer.get('state'))} is not visible, offscreen or gone"
    rects = answer.get("rects")
    if not isinstance(rects, list):
        return "`rects` is not a list"
    for rect in rects + ([answer["avoid"]] if "avoid" in answer else []):
        problem = _rect_problem(rect)
        if problem:
            return problem
    window = answer.get("window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool)):
        return f"`window` {short(window)} is not an integer"
    if "edge" in answer and answer["edge"] not in EDGES:
        return f"`edge` {short(answer['edge'])} is not top, bottom, left or right"
    if answer.get("state") == "gone" and rects:
        return "`rects` is not empty for a gone element"
    return None


def location_shape(ev: Evidence) -> Outcome:
    """Every id from `current` answers `{state, rects, window?, avoid?, edge?}` with state visible,
    offscreen or gone (Concepts: Locations; SPEC §1.2). Skipped when `location` is not offered."""
    calls = _location_calls(ev, "issued")
    if isinstance(calls, Outcome):
        return calls
    for call in calls:
        if call.error is not None or call.is_error:
            return failed(f"id {short(call.arguments.get('id'))}: {call.error or short(call.content, 120)}")
        problem = _location_problem(call.structured)
        if problem:
            return failed(f"id {short(call.arguments.get('id'))}: {problem}")
    return passed(f"{len(calls)} id(s) located")


def location_rects(ev: Evidence) -> Outcome:
    """Rectangles (and `avoid`) have non-negative `w` and `h` (Concepts: Locations)."""
    calls = _location_calls(ev, "issued")
    if isinstance(calls, Outcome):
        return calls
    for call in calls:
        answer: dict[str, Any] = call.structured if isinstance(call.structured, dict) else {}
        listed = answer.get("rects")
        rects: list[Any] = listed if isinstance(listed, list) else []
        for rect in [*rects, answer.get("avoid")]:
            if isinstance(rect, dict) and _rect_problem(rect) is None and (rect["w"] < 0 or rect["h"] < 0):
                return failed(f"id {short(call.arguments.get('id'))}: negative size in {short(rect)}")
    return passed("no negative sizes")


def _must_be_error(ev: Evidence, probe: str, what: str) -> Outcome:
    calls = _location_calls(ev, probe)
    if isinstance(calls, Outcome):
        return calls
    for call in calls:
        if call.error is None and not call.is_error:
            return failed(
                f"{what} {short(call.arguments.get('id'))} answered {short(call.structured)}, not an error"
            )
    return passed(f"{what} is an error")


def location_unknown_id(ev: Evidence) -> Outcome:
    """An id the provider never issued is an error (Concepts: Locations; SPEC §1.2 `unknown_id`)."""
    return _must_be_error(ev, "unknown", "an unknown id")


def location_malformed_id(ev: Evidence) -> Outcome:
    """A malformed id (not matching the id pattern) is an error (SPEC §1.2 `invalid_id`)."""
    return _must_be_error(ev, "malformed", "a malformed id")


def location_foreign_id(ev: Evidence) -> Outcome:
    """An id shaped like this provider's but not issued by this instance (as another run or another
    provider might have) is an error, not a location of something else (Concepts: Ids and instances,
    Locations)."""
    return _must_be_error(ev, "foreign", "an id from another instance")


# ---------------------------------------------------------------------------------------------
# Ids and timing


def _without_ids(element: Any) -> Any:
    if isinstance(element, dict):
        return {k: _without_ids(v) for k, v in element.items() if k != "id"}
    if isinstance(element, list):
        return [_without_ids(v) for v in element]
    return element


def ids_stable(ev: Evidence) -> Outcome:
    """Two `current` calls in a row, with nothing changed in between, give the same ids (Concepts:
    Ids and instances: an id keeps referring to the thing it was minted for)."""
    roots = [(label, root) for label, root in _roots(ev) if ERA_2026 in label]
    if len(roots) < 2:
        roots = _roots(ev)
    if len(roots) < 2:
        return skipped("fewer than two `current` answers")
    (_, first), (_, second) = roots[0], roots[1]
    ids_first = [_id(n.element) for n in walk(first)]
    ids_second = [_id(n.element) for n in walk(second)]
    if ids_first == ids_second:
        return passed(f"{len(ids_first)} id(s) unchanged")
    try:
        same_tree = _without_ids(first) == _without_ids(second)
    except RecursionError:
        same_tree = False
    if not same_tree:
        return skipped("the context changed between the two calls")
    changed = [f"{a}→{b}" for a, b in zip(ids_first, ids_second, strict=False) if a != b]
    return failed(f"the same tree came back with other ids: {listed(changed)}")
