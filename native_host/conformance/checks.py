"""The conformance checks on the descriptor, the endpoint's security, MCP and timing: one plain
function per rule, `Evidence -> Outcome` (rules.py names them); the checks on the answers are in
tree_checks.py (`current`'s shape and ids), state_checks.py (roles, states) and location_checks.py.

Every check reads only the `Evidence` the runner collected, treats every value the provider wrote
as untrusted JSON, and returns an `Outcome`; none raises on a garbage answer (tests feed them
random JSON). Sources are the concepts page ("Concepts: <section>") and design.md §1-§3; each
docstring names its own.
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import urlsplit

from native_host.conformance.evidence import (
    ERA_2026,
    Evidence,
    Outcome,
    failed,
    passed,
    skipped,
    warned,
)
from native_host.protocol.version import protocol_supported

# The kit keeps its own copies of the protocol's constants instead of importing webctx's provider
# modules (provider/, protocol/): it judges any provider by the protocol, not by how webctx
# builds its own answers, so a change there cannot quietly change what "conforms" means.

EXTENSION_ID: Final = "dev.context-providers/context"
"""The provider protocol's MCP extension identifier (design.md §1 "Server capabilities")."""

PROTOCOL_PATTERN: Final = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
"""A protocol version: three dot-separated numbers, matched in full (Concepts: Versions)."""

MAX_LISTED: Final = 3
"""How many offending ids or values a message quotes."""

# ---------------------------------------------------------------------------------------------
# Helpers over untrusted JSON


def short(value: Any, limit: int = 60) -> str:
    """`repr(value)`, cut to `limit` characters with an ellipsis (messages quote untrusted values)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(values: list[Any]) -> str:
    """The first MAX_LISTED values, shortened, and how many more there are."""
    shown = ", ".join(short(v) for v in values[:MAX_LISTED])
    return shown + (f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else "")


def descriptor_field(ev: Evidence, name: str) -> Any:
    """The descriptor's field `name`, or None when the descriptor is not an object."""
    return ev.descriptor.get(name) if isinstance(ev.descriptor, dict) else None


# ---------------------------------------------------------------------------------------------
# Descriptor (Concepts: Discovery, Security, Versions; design.md §3)

_DESCRIPTOR_STRINGS: Final = ("protocol", "bundleId", "name", "version", "instance", "endpoint", "token")


def descriptor_fields(ev: Evidence) -> Outcome:
    """protocol, bundleId, name, version, instance, endpoint, token are non-empty strings; pid is a
    positive integer; listenerPid, when present, too (Concepts: Discovery; design.md §3)."""
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
            problems.append(f"`{name}` is {short(value)}, not a positive integer")
    if problems:
        return failed("; ".join(problems))
    return passed("every field is present and typed")


def descriptor_protocol_format(ev: Evidence) -> Outcome:
    """`protocol` is a string of three numbers, `X.Y.Z` (Concepts: Versions)."""
    protocol = descriptor_field(ev, "protocol")
    if not isinstance(protocol, str):
        return skipped("the descriptor has no protocol string")
    if PROTOCOL_PATTERN.fullmatch(protocol):
        return passed(f"protocol {protocol}")
    return failed(f"protocol {short(protocol)} is not X.Y.Z")


def descriptor_protocol_supported(ev: Evidence) -> Outcome:
    """The protocol's major.minor is 0.2, the version whose rules this kit checks; another version
    is a warning, since its rules may differ (Concepts: Versions)."""
    protocol = descriptor_field(ev, "protocol")
    if not isinstance(protocol, str) or not PROTOCOL_PATTERN.fullmatch(protocol):
        return skipped("no X.Y.Z protocol to compare")
    if protocol_supported(protocol):
        return passed(f"{protocol} is 0.2.x")
    return warned(f"{protocol} is not 0.2.x; this kit checks the rules of 0.2, which may not all apply")


def descriptor_mode_0600(ev: Evidence) -> Outcome:
    """The descriptor file has permissions 0600 (Concepts: Security; design.md §3)."""
    if ev.file_mode is None:
        return skipped("the descriptor file could not be inspected")
    mode = ev.file_mode & 0o777
    if mode == 0o600:
        return passed("mode 0600")
    return failed(f"mode {mode:04o}; write the descriptor with mode 0600")


def descriptor_folder_0700(ev: Evidence) -> Outcome:
    """The providers folder has permissions 0700, is no symlink and is the user's own (Concepts:
    Security; design.md §3)."""
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
    pid = descriptor_field(ev, "pid")
    return passed(f"pid {pid} is running") if ev.process_running else failed(f"pid {pid} is not running")


def descriptor_bundle_id(ev: Evidence) -> Outcome:
    """`bundleId` is the bundle identifier of the process `pid` (Concepts: Discovery). Skipped when
    the kit cannot tell an app's bundle identifier from its executable."""
    bundle = descriptor_field(ev, "bundleId")
    if ev.expected_bundle_id is None or not isinstance(bundle, str):
        return skipped("the kit cannot tell this process's bundle identifier")
    if bundle == ev.expected_bundle_id:
        return passed(f"{bundle}")
    return failed(f"the descriptor says {short(bundle)}, the process is {ev.expected_bundle_id}")


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
    endpoint = descriptor_field(ev, "endpoint")
    if endpoint is None:
        return skipped("the descriptor has no endpoint")
    if endpoint_port(endpoint) is None:
        return failed(f"{short(endpoint)} is not http://127.0.0.1:<port><path>")
    return passed(endpoint if isinstance(endpoint, str) else "")


def descriptor_listener_loopback(ev: Evidence) -> Outcome:
    """Whatever listens on the endpoint's port listens on 127.0.0.1 only (Concepts: Security)."""
    if ev.listeners is None:
        return skipped("the endpoint has no port on 127.0.0.1 to look at")
    if not ev.listeners:
        return failed("nothing is listening on the endpoint's port")
    wide = sorted({lst.address for lst in ev.listeners if lst.address != "127.0.0.1"})
    if wide:
        return failed(f"the port is also bound on {listed(wide)}; bind 127.0.0.1 only")
    return passed("bound on 127.0.0.1 only")


def descriptor_listener_process(ev: Evidence) -> Outcome:
    """The process listening on the port is `pid` or a descendant of it
    (Concepts: Discovery; design.md §3)."""
    if ev.listeners is None:
        return skipped("the endpoint has no port on 127.0.0.1 to look at")
    if not ev.listeners:
        return failed("nothing is listening on the endpoint's port")
    strangers = sorted({lst.pid for lst in ev.listeners if not lst.is_provider})
    if strangers:
        return failed(f"the port is held by pid {listed(strangers)}, not the named process or a descendant")
    return passed(f"held by pid {listed(sorted({lst.pid for lst in ev.listeners}))}")


def descriptor_endpoint_as_given(ev: Evidence) -> Outcome:
    """MCP answers at the endpoint exactly as published, path included; the kit never assumes
    `/mcp` and follows no redirect (Concepts: Discovery)."""
    if ev.mcp_skipped is not None or not ev.eras:
        return skipped(ev.mcp_skipped or "no MCP connection was tried")
    if any(era.error is None for era in ev.eras):
        return passed("MCP answered at the published endpoint")
    return failed(f"no MCP connection at the published endpoint: {ev.eras[0].error}")


# ---------------------------------------------------------------------------------------------
# Security (Concepts: Security; design.md §1 "Request checks")


def _probe(ev: Evidence, name: str, expected: int | None) -> tuple[bool, str] | None:
    got = ev.probes.get(name)
    if got is None:
        return None
    if isinstance(got, int) and not isinstance(got, bool):
        ok = got == expected if expected is not None else 400 <= got < 500
        return ok, f"{name} → {got}"
    return False, f"{name} → {short(got)}"


def security_origin_403(ev: Evidence) -> Outcome:
    """A request with an `Origin` header is refused with 403, even with the right token (Concepts:
    Security; design.md §1)."""
    seen = _probe(ev, "origin", 403)
    if seen is None:
        return skipped("not probed (no usable endpoint and token)")
    return passed(seen[1]) if seen[0] else failed(f"{seen[1]}; refuse any Origin header with 403")


def security_bearer_401(ev: Evidence) -> Outcome:
    """No token, a wrong token, or the token in the query string → 401 (Concepts: Security; design.md §1)."""
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
    (design.md §1: 421, a DNS-rebinding guard; any 4xx passes)."""
    seen = _probe(ev, "bad_host", None)
    if seen is None:
        return skipped("not probed (no usable endpoint and token)")
    return passed(seen[1]) if seen[0] else failed(f"{seen[1]}; refuse a non-loopback Host (421)")


# ---------------------------------------------------------------------------------------------
# MCP (design.md §1)


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
        return failed(f"{what} negotiated {short(era.protocol_version)}, not {wanted}")
    return passed(f"{what}: MCP {era.protocol_version}")


def mcp_era_2025(ev: Evidence) -> Outcome:
    """The handshake era (`initialize`, MCP up to 2025-11-25) works (design.md §1)."""
    return _era_outcome(ev, "legacy", "initialize", None)


def mcp_era_2026(ev: Evidence) -> Outcome:
    """The stateless era (`server/discover`, MCP 2026-07-28) works (design.md §1)."""
    return _era_outcome(ev, "auto", "server/discover", ERA_2026)


def mcp_extension_declared(ev: Evidence) -> Outcome:
    """`capabilities.extensions["dev.context-providers/context"].protocol` is declared in every era
    and equals the descriptor's protocol (Concepts: Versions; design.md §1)."""
    connected = [era for era in ev.eras if era.error is None]
    if not connected:
        return skipped(ev.mcp_skipped or "no MCP connection")
    want = descriptor_field(ev, "protocol")
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
            return failed(f"MCP {era.protocol_version}: declares {short(got)}, the descriptor {short(want)}")
    return passed(f"protocol {want} in {len(connected)} era(s)")


def mcp_current_listed(ev: Evidence) -> Outcome:
    """`tools/list` offers `current` in every era (Concepts: Elements; design.md §1)."""
    connected = [era for era in ev.eras if era.error is None]
    if not connected:
        return skipped(ev.mcp_skipped or "no MCP connection")
    for era in connected:
        if not isinstance(era.tools, list) or "current" not in era.tools:
            return failed(f"MCP {era.protocol_version}: tools/list has no `current` ({short(era.tools)})")
    return passed("listed")


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
