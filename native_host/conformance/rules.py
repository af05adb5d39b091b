"""DATA: every conformance rule, as rule id → source → check (the table docs/conformance.md explains).

Sources: "Concepts: <section>" is a section of the provider protocol's concepts page;
"design.md §n" is webctx's design contract, which pins
what the concepts page leaves open. The order here is the order of the report. One reader
(`report.run_checks`) serves every row; a new rule is a new row and a new function in the module
of its concern: checks.py (descriptor, security, MCP, timing), tree_checks.py (the `current`
answer's shape and ids), state_checks.py (roles and states) or location_checks.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from native_host.conformance import checks, location_checks, state_checks, tree_checks
from native_host.conformance.evidence import Evidence, Outcome


@dataclass(frozen=True)
class Rule:
    """One rule: a stable dotted `id`, the `source` it comes from, what it `means` for a provider
    author, and the `check` that decides it."""

    id: str
    source: str
    means: str
    check: Callable[[Evidence], Outcome]


RULES: Final[tuple[Rule, ...]] = (
    # -- descriptor ------------------------------------------------------------------------------
    Rule(
        "descriptor.fields",
        "Concepts: Discovery; design.md §3",
        "The descriptor is a JSON object with protocol, bundleId, name, version, instance, endpoint "
        "and token as non-empty strings and pid (and listenerPid, if given) as positive integers.",
        checks.descriptor_fields,
    ),
    Rule(
        "descriptor.protocol_format",
        "Concepts: Versions",
        "The protocol version is a string of three numbers, X.Y.Z (e.g. 0.2.0).",
        checks.descriptor_protocol_format,
    ),
    Rule(
        "descriptor.protocol_supported",
        "Concepts: Versions",
        "The protocol's major.minor is 0.2, the version whose rules this kit checks. Another version "
        "is a warning: a host of 0.2 treats such an app as if it were not a provider.",
        checks.descriptor_protocol_supported,
    ),
    Rule(
        "descriptor.mode_0600",
        "Concepts: Security; design.md §3",
        "The descriptor file has permissions 0600, so other users cannot read the token.",
        checks.descriptor_mode_0600,
    ),
    Rule(
        "descriptor.folder_0700",
        "Concepts: Security; design.md §3",
        "The providers folder has permissions 0700, is not a symlink and belongs to the user.",
        checks.descriptor_folder_0700,
    ),
    Rule(
        "descriptor.pid_alive",
        "Concepts: Discovery",
        "The process the descriptor names is running; a provider removes its descriptor when it quits.",
        checks.descriptor_pid_alive,
    ),
    Rule(
        "descriptor.bundle_id",
        "Concepts: Discovery",
        "bundleId is the bundle identifier of that process (skipped where the kit cannot tell).",
        checks.descriptor_bundle_id,
    ),
    Rule(
        "descriptor.endpoint_loopback",
        "Concepts: Discovery, Security; design.md §1",
        "The endpoint is http://127.0.0.1:<port><path>: loopback address, no host name.",
        checks.descriptor_endpoint_loopback,
    ),
    Rule(
        "descriptor.listener_loopback",
        "Concepts: Security",
        "The endpoint's port is bound on 127.0.0.1 only (not 0.0.0.0 or another address).",
        checks.descriptor_listener_loopback,
    ),
    Rule(
        "descriptor.listener_process",
        "Concepts: Discovery; design.md §3",
        "The process listening on the port is the one the descriptor names, or a descendant of it.",
        checks.descriptor_listener_process,
    ),
    Rule(
        "descriptor.endpoint_as_given",
        "Concepts: Discovery",
        "MCP answers at the endpoint exactly as published, path included; hosts never assume /mcp.",
        checks.descriptor_endpoint_as_given,
    ),
    # -- security --------------------------------------------------------------------------------
    Rule(
        "security.origin_403",
        "Concepts: Security; design.md §1",
        "Any request with an Origin header is refused with 403, before the token is looked at.",
        checks.security_origin_403,
    ),
    Rule(
        "security.bearer_401",
        "Concepts: Security; design.md §1",
        "A request without the token, with a wrong token, or with the token only in the query "
        "string is refused with 401.",
        checks.security_bearer_401,
    ),
    Rule(
        "security.host_refused",
        "design.md §1",
        "A request whose Host header is not 127.0.0.1:<port> or localhost:<port> is refused "
        "(421; any 4xx passes), a guard against DNS rebinding.",
        checks.security_host_refused,
    ),
    # -- MCP -------------------------------------------------------------------------------------
    Rule(
        "mcp.era_2025",
        "design.md §1",
        "An MCP client of the handshake era (initialize, 2025-11-25) can connect.",
        checks.mcp_era_2025,
    ),
    Rule(
        "mcp.era_2026",
        "design.md §1",
        "An MCP client of the stateless era (server/discover) lands on 2026-07-28.",
        checks.mcp_era_2026,
    ),
    Rule(
        "mcp.extension_declared",
        "Concepts: Versions; design.md §1",
        'capabilities.extensions["dev.context-providers/context"].protocol is declared in both eras '
        "and equals the descriptor's protocol.",
        checks.mcp_extension_declared,
    ),
    Rule(
        "mcp.current_listed",
        "Concepts: Elements; design.md §1",
        "tools/list offers the `current` tool in both eras.",
        checks.mcp_current_listed,
    ),
    # -- current ---------------------------------------------------------------------------------
    Rule(
        "current.answers",
        "design.md §1.1",
        "Calling `current` gives a JSON object (structuredContent), not an error.",
        tree_checks.current_answers,
    ),
    Rule(
        "current.fields",
        "Concepts: Elements; design.md §1.1",
        "The answer has exactly three fields: protocol, instance, root.",
        tree_checks.current_fields,
    ),
    Rule(
        "current.instance",
        "Concepts: Discovery, Ids and instances",
        "The answer's instance equals the descriptor's (a host drops the answer otherwise).",
        tree_checks.current_instance,
    ),
    Rule(
        "current.protocol",
        "Concepts: Versions, Discovery",
        "The answer's protocol equals the descriptor's (a host drops the answer otherwise).",
        tree_checks.current_protocol,
    ),
    Rule(
        "current.elements",
        "Concepts: Elements; design.md §2",
        "Every element is an object with a string id and role; subrole, title and url are strings, "
        "the states booleans, children and content lists, attributes an object.",
        tree_checks.current_elements,
    ),
    Rule(
        "current.single_application",
        "Concepts: Elements",
        "The root is an Application, and it is the only Application in the tree.",
        tree_checks.current_single_application,
    ),
    Rule(
        "current.id_format",
        "Concepts: Ids and instances; design.md §2",
        "Every id matches ^[A-Za-z0-9_-]{1,128}$.",
        tree_checks.current_id_format,
    ),
    Rule(
        "current.ids_unique",
        "Concepts: Ids and instances",
        "No id appears twice in one answer.",
        tree_checks.current_ids_unique,
    ),
    Rule(
        "current.roles",
        "Concepts: Elements",
        "Roles are among the thirteen (Application, Window, Group, List, Table, Row, Cell, Text, "
        "Heading, Link, Image, Page, Document). Others are tolerated as Group, with a warning.",
        state_checks.current_roles,
    ),
    Rule(
        "current.content",
        "Concepts: Elements",
        "Every item of an element's content is a valid MCP content block (text, image, audio, "
        "resource_link, resource).",
        tree_checks.current_content,
    ),
    Rule(
        "current.focus_path",
        "Concepts: States",
        "focused is set on one unbroken path from a child of the root down to the user's position: "
        "no gaps, no branches, not on the root.",
        state_checks.current_focus_path,
    ),
    Rule(
        "current.hovered",
        "Concepts: States",
        "At most one element is hovered, and a hovered element is never an ancestor of another.",
        state_checks.current_hovered,
    ),
    Rule(
        "current.visible",
        "Concepts: States",
        "visible inherits the parent's value; no element inside a not-visible one says visible: true.",
        state_checks.current_visible,
    ),
    Rule(
        "current.default_states",
        "Concepts: States; design.md §2",
        "States are omitted when they hold their default (false; visible = the parent's). A warning only.",
        state_checks.current_default_states,
    ),
    # -- location --------------------------------------------------------------------------------
    Rule(
        "location.shape",
        "Concepts: Locations; design.md §1.2",
        "When `location` is offered, every id from `current` answers {state, rects, window?, avoid?, "
        "edge?}; state is visible, offscreen or gone, and rects is empty when gone.",
        location_checks.location_shape,
    ),
    Rule(
        "location.rects",
        "Concepts: Locations",
        "Every rectangle (and avoid) has a non-negative width and height.",
        location_checks.location_rects,
    ),
    Rule(
        "location.unknown_id",
        "Concepts: Locations; design.md §1.2",
        "An id the provider never issued is an error (isError), not a location.",
        location_checks.location_unknown_id,
    ),
    Rule(
        "location.malformed_id",
        "design.md §1.2",
        "A malformed id is an error (isError), not a location.",
        location_checks.location_malformed_id,
    ),
    Rule(
        "location.foreign_id",
        "Concepts: Ids and instances, Locations",
        "An id shaped like the provider's own but not issued by this instance is an error.",
        location_checks.location_foreign_id,
    ),
    # -- ids and timing --------------------------------------------------------------------------
    Rule(
        "ids.stable",
        "Concepts: Ids and instances",
        "Two `current` calls in a row, with nothing changed, give the same ids.",
        tree_checks.ids_stable,
    ),
    Rule(
        "timing.budget",
        'Concepts: What a host must do ("Never wait on a provider")',
        "Each MCP call answers within the budget (default 250 ms). Over budget is a warning.",
        checks.timing_budget,
    ),
)

RULES_BY_ID: Final[dict[str, Rule]] = {rule.id: rule for rule in RULES}
"""The rules by id (ids are unique; a unit test pins it)."""
