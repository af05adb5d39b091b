"""What the conformance runner collects from a provider, and what every check returns.

The runner (`runner.py`) talks to a live provider once and writes everything it saw into one
`Evidence`; the checks (`checks.py`, `tree_checks.py`, `state_checks.py`, `location_checks.py`)
are plain functions `Evidence -> Outcome` that never talk to anything. Every field that holds
something the provider wrote is typed `Any` on purpose: a provider may answer anything, and a
check must report a fail rather than raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

Status = Literal["pass", "warn", "fail", "skip"]
"""A check's verdict: `warn` fails only under `--strict`; `skip` means the rule did not apply."""

STATUSES: Final[tuple[Status, ...]] = ("pass", "warn", "fail", "skip")

DEFAULT_BUDGET_MS: Final = 250.0
"""Latency budget for each MCP call, in milliseconds (`timing.budget`)."""

ERA_2025: Final = "2025-11-25"
"""The handshake-era MCP version the kit asks for with `initialize` (design.md §1)."""

ERA_2026: Final = "2026-07-28"
"""The stateless-era MCP version the kit expects `server/discover` to land on (design.md §1)."""


@dataclass(frozen=True)
class Outcome:
    """One check's verdict and a sentence saying what was seen (and, on a fail, what to fix)."""

    status: Status
    message: str


def passed(message: str) -> Outcome:
    """A `pass` outcome."""
    return Outcome("pass", message)


def warned(message: str) -> Outcome:
    """A `warn` outcome (fails under `--strict`)."""
    return Outcome("warn", message)


def failed(message: str) -> Outcome:
    """A `fail` outcome."""
    return Outcome("fail", message)


def skipped(message: str) -> Outcome:
    """A `skip` outcome: the rule did not apply, or what it needs could not be collected."""
    return Outcome("skip", message)


@dataclass
class Call:
    """One MCP `tools/call` (or `tools/list`) and what came back.

    `era` is the negotiated MCP version; `elapsed_ms` the wall time of the call in milliseconds.
    `structured` is the result's `structuredContent` (or the JSON of its first text block when
    there is none); `content` the raw content blocks; `error` a JSON-RPC or transport failure (then
    there is no result). `probe` labels `location` calls: `issued`, `unknown`, `malformed`,
    `foreign`.
    """

    tool: str
    era: str
    arguments: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    structured: Any = None
    content: Any = None
    is_error: bool = False
    error: str | None = None
    probe: str = ""


@dataclass
class Era:
    """One MCP connection: `mode` `legacy` (2025-11-25 `initialize`) or `auto` (`server/discover`).

    `protocol_version` is what was negotiated, `capabilities` the server capabilities as wire JSON,
    `tools` the names from `tools/list`; `error` says why connecting failed (then the rest is None).
    """

    mode: Literal["legacy", "auto"]
    protocol_version: str | None = None
    capabilities: Any = None
    tools: Any = None
    error: str | None = None


@dataclass
class Listener:
    """A socket listening on the endpoint's port: its local address, the pid holding it (-1 when
    the OS will not say), and whether that pid is the descriptor's `pid` or a descendant of it."""

    address: str
    pid: int
    is_provider: bool


@dataclass
class Evidence:
    """Everything one conformance run saw. Checks read it; nothing in it is trusted.

    `descriptor` is the descriptor file parsed as JSON (anything), `descriptor_error` why it could
    not be read. Modes are `st_mode & 0o7777`. `probes` maps a security probe name (`origin`,
    `no_token`, `wrong_token`, `query_token`, `bad_host`) to the HTTP status it got, or to a
    sentence when the request failed. `mcp_skipped` says why no MCP connection was tried.
    """

    descriptor_path: str | None = None
    descriptor: Any = None
    descriptor_error: str | None = None
    file_mode: int | None = None
    folder_mode: int | None = None
    folder_is_symlink: bool = False
    folder_owned_by_user: bool | None = None
    process_running: bool | None = None
    expected_bundle_id: str | None = None
    listeners: list[Listener] | None = None
    probes: dict[str, int | str] = field(default_factory=dict)
    eras: list[Era] = field(default_factory=list)
    currents: list[Call] = field(default_factory=list)
    locations: list[Call] = field(default_factory=list)
    listings: list[Call] = field(default_factory=list)
    mcp_skipped: str | None = None
    budget_ms: float = DEFAULT_BUDGET_MS
