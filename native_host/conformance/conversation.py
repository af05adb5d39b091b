"""The MCP conversation that collects evidence: one session per era, through the reference host.

```
auto   (server/discover): tools/list, current twice, then location probes when `location` is offered:
                          every issued id (up to MAX_LOCATED_IDS), an unknown, a malformed and a
                          foreign id
legacy (initialize):      tools/list, current
```

Every call is timed (`Call.elapsed_ms`); a failure, a timeout or nonsense from the provider is
written into `Evidence` as it came, never raised.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcp import types

from native_host.conformance.evidence import Call, Era, Evidence
from native_host.conformance.trees import ID_PATTERN, walk
from native_host.host import (
    ProviderSession,
    open_session,
)
from native_host.protocol.descriptor import Descriptor

MAX_LOCATED_IDS: Final = 50
"""At most this many ids from `current` are passed to `location` (`location.shape`)."""

MALFORMED_ID: Final = "not a valid id!"
"""The malformed id sent to `location` (spaces and `!` are outside the id pattern)."""


def _structured(result: types.CallToolResult) -> Any:
    # A provider may answer in a text block only; its JSON (or its text) is what the checks judge.
    if result.structured_content is not None:
        return result.structured_content
    for block in result.content:
        if isinstance(block, types.TextContent):
            try:
                return json.loads(block.text)
            except ValueError:
                return block.text
    return None


async def _timed(call: Call, run: Callable[[], Awaitable[Any]]) -> Any:
    start = time.perf_counter()
    try:
        return await run()
    except Exception as exc:  # a provider's failure is evidence, not a crash of the kit
        call.error = str(exc) or type(exc).__name__
        return None
    finally:
        call.elapsed_ms = (time.perf_counter() - start) * 1000


async def _call_tool(session: ProviderSession, call: Call) -> Call:
    result = await _timed(call, lambda: session.call_tool(call.tool, call.arguments))
    if isinstance(result, types.CallToolResult):
        call.is_error = bool(result.is_error)
        call.structured = _structured(result)
        call.content = [
            block.model_dump(by_alias=True, exclude_none=True, mode="json") for block in result.content
        ]
    return call


def _location_ids(answer: Any) -> tuple[list[str], str]:
    """Issued ids to locate (up to MAX_LOCATED_IDS) and a foreign id shaped like them."""
    root = answer.get("root") if isinstance(answer, dict) else None
    ids = [
        e["id"]
        for n in walk(root)
        if isinstance(e := n.element, dict) and isinstance(e.get("id"), str) and ID_PATTERN.fullmatch(e["id"])
    ]
    sample = ids[-1] if ids else "el-1"
    foreign = re.sub(r"[0-9]+$", "", sample)[:100] + "-987654321"
    while foreign in ids:
        foreign += "0"
    return ids[:MAX_LOCATED_IDS], foreign


async def converse(ev: Evidence, descriptor: Descriptor, mode: Any, timeout_s: float) -> None:
    """One MCP session with the provider in `mode` ("auto": `server/discover`, or "legacy":
    `initialize`; module diagram), each request limited to `timeout_s` seconds. Appends an `Era`
    and the calls to `ev`; a session that fails is recorded in `Era.error`, never raised."""
    era = Era(mode=mode)
    ev.eras.append(era)
    try:
        async with open_session(descriptor, mode=mode, timeout_s=timeout_s) as session:
            era.protocol_version = session.protocol_version
            era.capabilities = session.server_capabilities.model_dump(
                by_alias=True, exclude_none=True, mode="json"
            )
            listing = Call("tools/list", session.protocol_version)
            tools = await _timed(listing, session.list_tools)
            ev.listings.append(listing)
            era.tools = [tool.name for tool in tools] if isinstance(tools, list) else listing.error
            for _ in range(2 if mode == "auto" else 1):
                ev.currents.append(await _call_tool(session, Call("current", session.protocol_version)))
            if mode == "auto" and isinstance(era.tools, list) and "location" in era.tools:
                await _probe_locations(ev, session)
    except Exception as exc:  # a provider that cannot be reached or talks nonsense: evidence
        era.error = str(exc) or type(exc).__name__


async def _probe_locations(ev: Evidence, session: ProviderSession) -> None:
    # Issued ids come from the first `current` answer; then one id of each kind that must fail.
    first = next((c.structured for c in ev.currents if isinstance(c.structured, dict)), None)
    ids, foreign = _location_ids(first)
    unknown = f"conformance-never-issued-{secrets.token_hex(6)}"
    probes = [
        *((i, "issued") for i in ids),
        (unknown, "unknown"),
        (MALFORMED_ID, "malformed"),
        (foreign, "foreign"),
    ]
    for id_, probe in probes:
        call = Call("location", session.protocol_version, {"id": id_}, probe=probe)
        ev.locations.append(await _call_tool(session, call))
