"""The conformance checks on the `current` answer's shape and its ids: the answer's fields, every
element's fields, the single Application, id format, uniqueness and stability, content blocks.
Plain functions `Evidence -> Outcome` over untrusted JSON, like checks.py: none raises on a garbage
answer. The roles and the four states are checked in state_checks.py, `location` in
location_checks.py; all three walk the tree with trees.py. Sources: the concepts page
("Concepts: <section>") and design.md §1.1, §2; each docstring names its own.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from mcp import types
from pydantic import TypeAdapter, ValidationError

from native_host.conformance.checks import descriptor_field, listed, short
from native_host.conformance.evidence import ERA_2026, Evidence, Outcome, failed, passed, skipped
from native_host.conformance.trees import (
    ID_PATTERN,
    STATES,
    answers,
    element_id,
    over_trees,
    roots,
    walk,
)

_CONTENT_BLOCK: Final[TypeAdapter[types.ContentBlock]] = TypeAdapter(types.ContentBlock)


# ---------------------------------------------------------------------------------------------
# The answer (Concepts: Elements, Discovery, Versions; design.md §1.1)


def current_answers(ev: Evidence) -> Outcome:
    """Every `current` call answers with a JSON object (structuredContent, or a text block of
    JSON), not an error (design.md §1.1)."""
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
    """The answer has exactly `protocol`, `instance` and `root` (Concepts: Elements; design.md §1.1)."""
    objects = answers(ev)
    if not objects:
        return skipped("no `current` answer")
    for label, answer in objects:
        keys = set(answer)
        if keys != {"protocol", "instance", "root"}:
            return failed(f"{label} has fields {listed(sorted(keys))}; want exactly protocol, instance, root")
    return passed("exactly protocol, instance, root")


def _equal_to_descriptor(ev: Evidence, name: str) -> Outcome:
    objects = answers(ev)
    if not objects:
        return skipped("no `current` answer")
    want = descriptor_field(ev, name)
    for label, answer in objects:
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
    strings, the four states booleans, `children`/`content` lists, `attributes` an object (design.md §2)."""
    return over_trees(ev, _element_problems)


# ---------------------------------------------------------------------------------------------
# The tree, its ids and content (Concepts: Elements, Ids and instances; design.md §2)


def current_single_application(ev: Evidence) -> Outcome:
    """The root is an Application and the only one (Concepts: Elements)."""

    def problems(root: Any) -> list[str]:
        if not isinstance(root, dict) or root.get("role") != "Application":
            return ["the root is not an Application"]
        others = [
            element_id(n.element)
            for n in walk(root)
            if n.parent is not None and isinstance(n.element, dict) and n.element.get("role") == "Application"
        ]
        return [f"Application below the root: {listed(others)}"] if others else []

    return over_trees(ev, problems)


def current_id_format(ev: Evidence) -> Outcome:
    """Every id is 1 to 128 letters, digits, `-` or `_` (Concepts: Ids and instances; design.md §2)."""

    def problems(root: Any) -> list[str]:
        bad = [
            element_id(n.element)
            for n in walk(root)
            if not (isinstance(element_id(n.element), str) and ID_PATTERN.fullmatch(element_id(n.element)))
        ]
        return [f"ids not matching ^[A-Za-z0-9_-]{{1,128}}$: {listed(bad)}"] if bad else []

    return over_trees(ev, problems)


def current_ids_unique(ev: Evidence) -> Outcome:
    """No id appears twice in one answer (Concepts: Ids and instances)."""

    def problems(root: Any) -> list[str]:
        counts = Counter(i for n in walk(root) if isinstance(i := element_id(n.element), str))
        twice = sorted(i for i, c in counts.items() if c > 1)
        return [f"ids used more than once: {listed(twice)}"] if twice else []

    return over_trees(ev, problems)


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
                        f"element {short(element_id(n.element))}: {short(block)} is not an MCP content block"
                    )
        return found

    return over_trees(ev, problems)


def _without_ids(element: Any) -> Any:
    if isinstance(element, dict):
        return {k: _without_ids(v) for k, v in element.items() if k != "id"}
    if isinstance(element, list):
        return [_without_ids(v) for v in element]
    return element


def ids_stable(ev: Evidence) -> Outcome:
    """Two `current` calls in a row, with nothing changed in between, give the same ids (Concepts:
    Ids and instances: an id keeps referring to the thing it was minted for)."""
    trees = [(label, root) for label, root in roots(ev) if ERA_2026 in label]
    if len(trees) < 2:
        trees = roots(ev)
    if len(trees) < 2:
        return skipped("fewer than two `current` answers")
    (_, first), (_, second) = trees[0], trees[1]
    ids_first = [element_id(n.element) for n in walk(first)]
    ids_second = [element_id(n.element) for n in walk(second)]
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
