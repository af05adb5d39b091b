"""The conformance checks on `location`, when a provider offers it: the answer's shape and rects
for every id `current` issued, and errors for an unknown, a malformed and a foreign id. Plain
functions `Evidence -> Outcome` over untrusted JSON, like checks.py: none raises on a garbage
answer; each skips when `location` is not offered. Sources: the concepts page
("Concepts: Locations", "Concepts: Ids and instances") and design.md §1.2; each docstring names its own.
"""

from __future__ import annotations

from typing import Any, Final

from native_host.conformance.checks import short
from native_host.conformance.evidence import Call, Evidence, Outcome, failed, passed, skipped

# Like checks.py, the kit keeps its own copies of the protocol's constants (see there).

LOCATION_STATES: Final = frozenset(("visible", "offscreen", "gone"))
"""The `state` of a location answer (Concepts: Locations; design.md §1.2)."""

EDGES: Final = frozenset(("top", "bottom", "left", "right"))
"""The `edge` a location answer may name (Concepts: Locations)."""


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
    state = answer.get("state")
    if not isinstance(state, str) or state not in LOCATION_STATES:  # a list is unhashable
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
    offscreen or gone (Concepts: Locations; design.md §1.2). Skipped when `location` is not offered."""
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
    """An id the provider never issued is an error (Concepts: Locations; design.md §1.2 `unknown_id`)."""
    return _must_be_error(ev, "unknown", "an unknown id")


def location_malformed_id(ev: Evidence) -> Outcome:
    """A malformed id (not matching the id pattern) is an error (design.md §1.2 `invalid_id`)."""
    return _must_be_error(ev, "malformed", "a malformed id")


def location_foreign_id(ev: Evidence) -> Outcome:
    """An id shaped like this provider's but not issued by this instance (as another run or another
    provider might have) is an error, not a location of something else (Concepts: Ids and instances,
    Locations)."""
    return _must_be_error(ev, "foreign", "an id from another instance")
