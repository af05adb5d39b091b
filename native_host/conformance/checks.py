"""The conformance checks: one plain function per rule, `Evidence -> Outcome` (rules.py names them).

Every check reads only the `Evidence` the runner collected, treats every value the provider wrote
as untrusted JSON, and returns an `Outcome`; none raises on a garbage answer (tests feed them
random JSON). Sources are the concepts page ("Concepts: <section>") and SPEC §1-§3; each
docstring names its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from mcp import types
from pydantic import TypeAdapter, ValidationError

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

# The kit keeps its own copies of the protocol's constants instead of importing webctx's provider
# modules (mcp_server.py, wire.py): it judges any provider by the protocol, not by how webctx
# builds its own answers, so a change there cannot quietly change what "conforms" means.

EXTENSION_ID: Final = "dev.context-providers/context"
"""The provider protocol's MCP extension identifier (SPEC §1 "Server capabilities")."""

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

PROTOCOL_PATTERN: Final = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
"""A protocol version: three dot-separated numbers, matched in full (Concepts: Versions)."""

STATES: Final = ("selected", "focused", "visible", "hovered")
LOCATION_STATES: Final = frozenset(("visible", "offscreen", "gone"))
EDGES: Final = frozenset(("top", "bottom", "left", "right"))
MAX_LISTED: Final = 3
"""How many offending ids or values a message quotes."""

_CONTENT_BLOCK: Final[TypeAdapter[types.ContentBlock]] = TypeAdapter(types.ContentBlock)


# ---------------------------------------------------------------------------------------------
# Helpers over untrusted JSON


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listed(values: list[Any]) -> str:
    shown = ", ".join(_short(v) for v in values[:MAX_LISTED])
    return shown + (f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else "")


def _descriptor_field(ev: Evidence, name: str) -> Any:
    return ev.descriptor.get(name) if isinstance(ev.descriptor, dict) else None


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
# Descriptor (Concepts: Discovery, Security, Versions; SPEC §3)

_DESCRIPTOR_STRINGS: Final = ("protocol", "bundleId", "name", "version", "instance", "endpoint", "token")


def descriptor_fields(ev: Evidence) -> Outcome:
    """protocol, bundleId, name, version, instance, endpoint, token are non-empty strings; pid is a
    positive integer; listenerPid, when present, too (Concepts: Discovery; SPEC §3)."""
    if ev.descriptor_error is not None:
        return failed(f"the descriptor cannot be read: {ev.descriptor_error}")
    d = ev.descriptor
    if not isinstance(d, dict):
        return failed(f"the descriptor is not a JSON object but {type(d).__name__}")
    problems = [
        f"`{n}` is missing or not a non-empty string"
        for n in _DESCRIPTOR_STRINGS
        if not isinstance(d.get(n), str) or not d.get(n)
    ]
    for name in ("pid", "listenerPid"):
        value = d.get(name)
        if name == "listenerPid" and value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            problems.append(f"`{name}` is {_short(value)}, not a positive integer")
    if problems:
        return failed("; ".join(problems))
    return passed("every field is present and typed")


def descriptor_protocol_format(ev: Evidence) -> Outcome:
    """`protocol` is a string of three numbers, `X.Y.Z` (Concepts: Versions)."""
    protocol = _descriptor_field(ev, "protocol")
    if not isinstance(protocol, str):
        return skipped("the descriptor has no protocol string")
    if PROTOCOL_PATTERN.fullmatch(protocol):
        return passed(f"protocol {protocol}")
    return failed(f"protocol {_short(protocol)} is not X.Y.Z")


SUPPORTED_PROTOCOL: Final = (0, 2)
"""The major.minor whose rules this kit checks (Concepts: Versions: while major is 0, major and
minor must agree; a patch only adds things a receiver may ignore)."""


def descriptor_protocol_supported(ev: Evidence) -> Outcome:
    """The protocol's major.minor is 0.2, the version whose rules this kit checks; another version
    is a warning, since its rules may differ (Concepts: Versions)."""
    protocol = _descriptor_field(ev, "protocol")
    if not isinstance(protocol, str) or not PROTOCOL_PATTERN.fullmatch(protocol):
        return skipped("no X.Y.Z protocol to compare")
    major, minor = (int(part) for part in protocol.split(".")[:2])
    if (major, minor) == SUPPORTED_PROTOCOL:
        return passed(f"{protocol} is 0.2.x")
    return warned(f"{protocol} is not 0.2.x; this kit checks the rules of 0.2, which may not all apply")


def descriptor_mode_0600(ev: Evidence) -> Outcome:
    """The descriptor file has permissions 0600 (Concepts: Security; SPEC §3)."""
    if ev.file_mode is None:
        return skipped("the descriptor file could not be inspected")
    mode = ev.file_mode & 0o777
    if mode == 0o600:
        return passed("mode 0600")
    return failed(f"mode {mode:04o}; write the descriptor with mode 0600")


def descriptor_folder_0700(ev: Evidence) -> Outcome:
    """The providers folder has permissions 0700, is no symlink and is the user's own (Concepts:
    Security; SPEC §3)."""
    if ev.folder_is_symlink:
        return failed("the providers folder is a symlink")
    if ev.folder_mode is None:
        return skipped("the providers folder could not be inspected")
    if ev.folder_owned_by_user is False:
        return failed("the providers folder belongs to another user")
    mode = ev.folder_mode & 0o777
    if mode == 0o700:
        return passed("mode 0700")
    return failed(f"mode {mode:04o}; the providers folder must be 0700")


def descriptor_pid_alive(ev: Evidence) -> Outcome:
    """The process `pid` names is running (Concepts: Discovery: a host ignores a stale descriptor)."""
    if ev.process_running is None:
        return skipped("no pid to look up")
    pid = _descriptor_field(ev, "pid")
    return passed(f"pid {pid} is running") if ev.process_running else failed(f"pid {pid} is not running")


def descriptor_bundle_id(ev: Evidence) -> Outcome:
    """`bundleId` is the bundle identifier of the process `pid` (Concepts: Discovery). Skipped when
    the kit cannot tell an app's bundle identifier from its executable."""
    bundle = _descriptor_field(ev, "bundleId")
    if ev.expected_bundle_id is None or not isinstance(bundle, str):
        return skipped("the kit cannot tell this process's bundle identifier")
    if bundle == ev.expected_bundle_id:
        return passed(f"{bundle}")
    return failed(f"the descriptor says {_short(bundle)}, the process is {ev.expected_bundle_id}")


def endpoint_port(endpoint: Any) -> int | None:
    """The port of `http://127.0.0.1:<port><path>`, or None when `endpoint` is anything else."""
    if not isinstance(endpoint, str):
        return None
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or port is None or parts.netloc != f"127.0.0.1:{port}":
        return None
    if parts.query or parts.fragment:
        return None
    return port


def descriptor_endpoint_loopback(ev: Evidence) -> Outcome:
    """`endpoint` is `http://127.0.0.1:<port><path>` (Concepts: Discovery, Security)."""
    endpoint = _descriptor_field(ev, "endpoint")
    if endpoint is None:
        return skipped("the descriptor has no endpoint")
    if endpoint_port(endpoint) is None:
        return failed(f"{_short(endpoint)} is not http://127.0.0.1:<port><path>")
    return passed(endpoint if isinstance(endpoint, str) else "")


def descriptor_listener_loopback(ev: Evidence) -> Outcome:
    """Whatever listens on the endpoint's port listens on 127.0.0.1 only (Concepts: Security)."""
    if ev.listeners is None:
        return skipped("the endpoint has no port on 127.0.0.1 to look at")
    if not ev.listeners:
        return failed("nothing is listening on the endpoint's port")
    wide = sorted({lst.address for lst in ev.listeners if lst.address != "127.0.0.1"})
    if wide:
        return failed(f"the port is also bound on {_listed(wide)}; bind 127.0.0.1 only")
    return passed("bound on 127.0.0.1 only")


def descriptor_listener_process(ev: Evidence) -> Outcome:
    """The process listening on the port is `pid` or a descendant of it (Concepts: Discovery; SPEC §3)."""
    if ev.listeners is None:
        return skipped("the endpoint has no port on 127.0.0.1 to look at")
    if not ev.listeners:
        return failed("nothing is listening on the endpoint's port")
    strangers = sorted({lst.pid for lst in ev.listeners if not lst.is_provider})
    if strangers:
        return failed(f"the port is held by pid {_listed(strangers)}, not the named process or a descendant")
    return passed(f"held by pid {_listed(sorted({lst.pid for lst in ev.listeners}))}")


def descriptor_endpoint_as_given(ev: Evidence) -> Outcome:
    """MCP answers at the endpoint exactly as published, path included; the kit never assumes
    `/mcp` and follows no redirect (Concepts: Discovery)."""
    if ev.mcp_skipped is not None or not ev.eras:
        return skipped(ev.mcp_skipped or "no MCP connection was tried")
    if any(era.error is None for era in ev.eras):
        return passed("MCP answered at the published endpoint")
    return failed(f"no MCP connection at the published endpoint: {ev.eras[0].error}")


# ---------------------------------------------------------------------------------------------
# Security (Concepts: Security; SPEC §1 "Request checks")


def _probe(ev: Evidence, name: str, expected: int | None) -> tuple[bool, str] | None:
    got = ev.probes.get(name)
    if got is None:
        return None
    if isinstance(got, int) and not isinstance(got, bool):
        ok = got == expected if expected is not None else 400 <= got < 500
        return ok, f"{name} → {got}"
    return False, f"{name} → {_short(got)}"


def security_origin_403(ev: Evidence) -> Outcome:
    """A request with an `Origin` header is refused with 403, even with the right token (Concepts:
    Security; SPEC §1)."""
    seen = _probe(ev, "origin", 403)
    if seen is None:
        return skipped("not probed (no usable endpoint and token)")
    return passed(seen[1]) if seen[0] else failed(f"{seen[1]}; refuse any Origin header with 403")


def security_bearer_401(ev: Evidence) -> Outcome:
    """No token, a wrong token, or the token in the query string → 401 (Concepts: Security; SPEC §1)."""
    seen = [_probe(ev, name, 401) for name in ("no_token", "wrong_token", "query_token")]
    results = [s for s in seen if s is not None]
    if not results:
        return skipped("not probed (no usable endpoint and token)")
    bad = [text for ok, text in results if not ok]
    if bad:
        return failed(f"{'; '.join(bad)}; require `Authorization: Bearer <token>` and answer 401")
    return passed(", ".join(text for _, text in results))


def security_host_refused(ev: Evidence) -> Outcome:
    """A request whose `Host` is not the loopback address is refused, even with the right token
    (SPEC §1: 421, a DNS-rebinding guard; any 4xx passes)."""
    seen = _probe(ev, "bad_host", None)
    if seen is None:
        return skipped("not probed (no usable endpoint and token)")
    return passed(seen[1]) if seen[0] else failed(f"{seen[1]}; refuse a non-loopback Host (421)")


# ---------------------------------------------------------------------------------------------
# MCP (SPEC §1)


def _era_outcome(ev: Evidence, mode: str, what: str, wanted: str | None) -> Outcome:
    if ev.mcp_skipped is not None:
        return skipped(ev.mcp_skipped)
    eras = [era for era in ev.eras if era.mode == mode]
    if not eras:
        return skipped(f"{what} was not tried")
    era = eras[0]
    if era.error is not None:
        return failed(f"{what} failed: {era.error}")
    if wanted is not None and era.protocol_version != wanted:
        return failed(f"{what} negotiated {_short(era.protocol_version)}, not {wanted}")
    return passed(f"{what}: MCP {era.protocol_version}")


def mcp_era_2025(ev: Evidence) -> Outcome:
    """The handshake era (`initialize`, MCP up to 2025-11-25) works (SPEC §1)."""
    return _era_outcome(ev, "legacy", "initialize", None)


def mcp_era_2026(ev: Evidence) -> Outcome:
    """The stateless era (`server/discover`, MCP 2026-07-28) works (SPEC §1)."""
    return _era_outcome(ev, "auto", "server/discover", ERA_2026)


def mcp_extension_declared(ev: Evidence) -> Outcome:
    """`capabilities.extensions["dev.context-providers/context"].protocol` is declared in every era
    and equals the descriptor's protocol (Concepts: Versions; SPEC §1)."""
    connected = [era for era in ev.eras if era.error is None]
    if not connected:
        return skipped(ev.mcp_skipped or "no MCP connection")
    want = _descriptor_field(ev, "protocol")
    for era in connected:
        caps = era.capabilities
        ext = caps.get("extensions") if isinstance(caps, dict) else None
        decl = ext.get(EXTENSION_ID) if isinstance(ext, dict) else None
        got = decl.get("protocol") if isinstance(decl, dict) else None
        if got is None:
            return failed(
                f"MCP {era.protocol_version}: no capabilities.extensions[{EXTENSION_ID!r}].protocol"
            )
        if got != want:
            return failed(
                f"MCP {era.protocol_version}: declares {_short(got)}, the descriptor {_short(want)}"
            )
    return passed(f"protocol {want} in {len(connected)} era(s)")


def mcp_current_listed(ev: Evidence) -> Outcome:
    """`tools/list` offers `current` in every era (Concepts: Elements; SPEC §1)."""
    connected = [era for era in ev.eras if era.error is None]
    if not connected:
        return skipped(ev.mcp_skipped or "no MCP connection")
    for era in connected:
        if not isinstance(era.tools, list) or "current" not in era.tools:
            return failed(f"MCP {era.protocol_version}: tools/list has no `current` ({_short(era.tools)})")
    return passed("listed")


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
            return failed(f"call {i} ({call.era}) answered isError: {_short(call.content, 120)}")
        if not isinstance(call.structured, dict):
            return failed(f"call {i} ({call.era}) answered {_short(call.structured)}, not a JSON object")
    return passed(f"{len(ev.currents)} call(s) answered")


def current_fields(ev: Evidence) -> Outcome:
    """The answer has exactly `protocol`, `instance` and `root` (Concepts: Elements; SPEC §1.1)."""
    answers = _answers(ev)
    if not answers:
        return skipped("no `current` answer")
    for label, answer in answers:
        keys = set(answer)
        if keys != {"protocol", "instance", "root"}:
            return failed(
                f"{label} has fields {_listed(sorted(keys))}; want exactly protocol, instance, root"
            )
    return passed("exactly protocol, instance, root")


def _equal_to_descriptor(ev: Evidence, name: str) -> Outcome:
    answers = _answers(ev)
    if not answers:
        return skipped("no `current` answer")
    want = _descriptor_field(ev, name)
    for label, answer in answers:
        if answer.get(name) != want or want is None:
            return failed(f"{label}: {name} {_short(answer.get(name))} ≠ the descriptor's {_short(want)}")
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
            problems.append(f"an element is {_short(e)}, not an object")
            continue
        where = f"element {_short(e.get('id'))}"
        if not isinstance(e.get("id"), str):
            problems.append(f"{where}: `id` is not a string")
        if not isinstance(e.get("role"), str):
            problems.append(f"{where}: `role` is {_short(e.get('role'))}, not a string")
        for name in _OPTIONAL_STRINGS:
            if name in e and not isinstance(e[name], str):
                problems.append(f"{where}: `{name}` is not a string")
        for name in STATES:
            if name in e and not isinstance(e[name], bool):
                problems.append(f"{where}: `{name}` is {_short(e[name])}, not a boolean")
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
        return [f"Application below the root: {_listed(others)}"] if others else []

    return _over_trees(ev, problems)


def current_id_format(ev: Evidence) -> Outcome:
    """Every id is 1 to 128 letters, digits, `-` or `_` (Concepts: Ids and instances; SPEC §2)."""

    def problems(root: Any) -> list[str]:
        bad = [
            _id(n.element)
            for n in walk(root)
            if not (isinstance(_id(n.element), str) and ID_PATTERN.fullmatch(_id(n.element)))
        ]
        return [f"ids not matching ^[A-Za-z0-9_-]{{1,128}}$: {_listed(bad)}"] if bad else []

    return _over_trees(ev, problems)


def current_ids_unique(ev: Evidence) -> Outcome:
    """No id appears twice in one answer (Concepts: Ids and instances)."""

    def problems(root: Any) -> list[str]:
        counts = Counter(i for n in walk(root) if isinstance(i := _id(n.element), str))
        twice = sorted(i for i, c in counts.items() if c > 1)
        return [f"ids used more than once: {_listed(twice)}"] if twice else []

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
        return warned(f"roles outside the thirteen, treated as Group: {_listed(unknown)}")
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
                        f"element {_short(_id(n.element))}: {_short(block)} is not an MCP content block"
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
            found.append(f"focused elements whose parent is not focused (a gap): {_listed(gaps)}")
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
        found = [f"{len(hovered)} hovered elements: {_listed([_id(n.element) for n in hovered])}"]
        for n in hovered:
            up = n.parent
            while up is not None:
                if _is(up.element, "hovered"):
                    found.append(
                        f"hovered {_short(_id(up.element))} is an ancestor of "
                        f"hovered {_short(_id(n.element))}"
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
        return [f"visible: true inside an element that is not visible: {_listed(bad)}"] if bad else []

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
        return warned(f"states written with their default value: {_listed(spelled)}")
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
        return f"{_short(rect)} is not a rect"
    for key in ("x", "y", "w", "h"):
        value = rect.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
            return f"{_short(rect)}: `{key}` is not a number"
    return None


def _location_problem(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return f"{_short(answer)} is not an object"
    if answer.get("state") not in LOCATION_STATES:
        return f"state {_short(answer.get('state'))} is not visible, offscreen or gone"
    rects = answer.get("rects")
    if not isinstance(rects, list):
        return "`rects` is not a list"
    for rect in rects + ([answer["avoid"]] if "avoid" in answer else []):
        problem = _rect_problem(rect)
        if problem:
            return problem
    window = answer.get("window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool)):
        return f"`window` {_short(window)} is not an integer"
    if "edge" in answer and answer["edge"] not in EDGES:
        return f"`edge` {_short(answer['edge'])} is not top, bottom, left or right"
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
            return failed(f"id {_short(call.arguments.get('id'))}: {call.error or _short(call.content, 120)}")
        problem = _location_problem(call.structured)
        if problem:
            return failed(f"id {_short(call.arguments.get('id'))}: {problem}")
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
                return failed(f"id {_short(call.arguments.get('id'))}: negative size in {_short(rect)}")
    return passed("no negative sizes")


def _must_be_error(ev: Evidence, probe: str, what: str) -> Outcome:
    calls = _location_calls(ev, probe)
    if isinstance(calls, Outcome):
        return calls
    for call in calls:
        if call.error is None and not call.is_error:
            return failed(
                f"{what} {_short(call.arguments.get('id'))} answered {_short(call.structured)}, not an error"
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
    return failed(f"the same tree came back with other ids: {_listed(changed)}")


def timing_budget(ev: Evidence) -> Outcome:
    """Each MCP call answers within the budget (default 250 ms; Concepts: What a host must do,
    "Never wait on a provider"). Over budget is a warning; the report lists every call's latency."""
    calls = [*ev.listings, *ev.currents, *ev.locations]
    if not calls:
        return skipped(ev.mcp_skipped or "no call was made")
    per_tool: dict[str, list[float]] = {}
    for call in calls:
        per_tool.setdefault(call.tool, []).append(call.elapsed_ms)
    parts = []
    for tool, times in per_tool.items():
        shown = ", ".join(f"{t:.0f}" for t in times) if len(times) <= 3 else f"max {max(times):.0f}"
        parts.append(f"{tool} {shown} ms" + (f" ({len(times)} calls)" if len(times) > 3 else ""))
    over = [c for c in calls if c.elapsed_ms > ev.budget_ms]
    summary = f"{'; '.join(parts)} (budget {ev.budget_ms:.0f} ms)"
    if over:
        return warned(f"{len(over)} of {len(calls)} call(s) over budget: {summary}")
    return passed(summary)
