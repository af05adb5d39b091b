"""The conformance runner: talk to one live provider, collect `Evidence`, run every rule.

```
find_descriptor(pid | file)          the descriptor to check (not pre-filtered: a bad one is checked)
collect(path)                        → Evidence
  ├─ file and folder modes, pid, bundle id, listeners on the port      (psutil, os.lstat)
  ├─ security probes: Origin / no token / wrong token / query token / bad Host   (raw HTTP)
  └─ MCP in both eras through host_client.open_session:
       auto   (server/discover): tools/list, current twice, location probes when offered
       legacy (initialize):      tools/list, current
run_checks(evidence)                 → [CheckResult] in rules.RULES order; a crashing check is a fail
```

Only loopback endpoints are ever contacted: a descriptor whose endpoint is not
`http://127.0.0.1:<port>…` is checked on paper and its network rules are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx2
import psutil
from mcp import types
from pydantic import ValidationError

from native_host import paths
from native_host.conformance.checks import endpoint_port
from native_host.conformance.evidence import (
    DEFAULT_BUDGET_MS,
    ERA_2025,
    Call,
    Era,
    Evidence,
    Listener,
    Status,
)
from native_host.conformance.rules import RULES
from native_host.conformance.tree_checks import ID_PATTERN, walk
from native_host.errors import ProviderUnavailable
from native_host.host import (
    DEFAULT_TIMEOUT_S,
    ProviderSession,
    choose_provider,
    discover,
    expected_bundle_id,
    is_same_or_descendant,
    listening_sockets,
    open_session,
)
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive

log = logging.getLogger(__name__)

MAX_LOCATED_IDS: Final = 50
"""At most this many ids from `current` are passed to `location` (`location.shape`)."""

MALFORMED_ID: Final = "not a valid id!"
"""The malformed id sent to `location` (spaces and `!` are outside the id pattern)."""


@dataclass(frozen=True)
class CheckResult:
    """One rule's verdict in a report."""

    rule: str
    source: str
    status: Status
    message: str

    def to_json(self) -> dict[str, str]:
        """`{rule, source, status, message}`."""
        return {"rule": self.rule, "source": self.source, "status": self.status, "message": self.message}


@dataclass
class Report:
    """A conformance run: which descriptor, which provider, and every rule's verdict."""

    descriptor_path: str | None
    provider: str
    results: list[CheckResult]

    def counts(self) -> dict[str, int]:
        """How many checks ended in each status: `{pass, warn, fail, skip}`."""
        out = {"pass": 0, "warn": 0, "fail": 0, "skip": 0}
        for result in self.results:
            out[result.status] += 1
        return out

    def ok(self, *, strict: bool = False) -> bool:
        """True when nothing failed (and, with `strict`, nothing warned)."""
        bad = ("fail", "warn") if strict else ("fail",)
        return not any(result.status in bad for result in self.results)

    def result(self, rule: str) -> CheckResult:
        """The verdict on `rule`; KeyError when the report has no such rule."""
        for result in self.results:
            if result.rule == rule:
                return result
        raise KeyError(rule)

    def failed_rules(self, *, strict: bool = False) -> set[str]:
        """Ids of the rules that failed (and warned, with `strict`)."""
        bad = ("fail", "warn") if strict else ("fail",)
        return {result.rule for result in self.results if result.status in bad}

    def to_json(self, *, strict: bool = False) -> dict[str, Any]:
        """`{descriptor, provider, ok, strict, counts, results: [CheckResult.to_json()]}`."""
        return {
            "descriptor": self.descriptor_path,
            "provider": self.provider,
            "ok": self.ok(strict=strict),
            "strict": strict,
            "counts": self.counts(),
            "results": [result.to_json() for result in self.results],
        }


def run_checks(evidence: Evidence) -> list[CheckResult]:
    """Every rule of `rules.RULES` over `evidence`, in order. A check that raises (a bug in the
    kit, never the provider's fault) is reported as a fail naming the exception, not raised."""
    results: list[CheckResult] = []
    for rule in RULES:
        try:
            outcome = rule.check(evidence)
            status, message = outcome.status, outcome.message
        except Exception as exc:  # the kit must report, never crash on a provider's answer
            log.exception("conformance check %s crashed", rule.id)
            status, message = "fail", f"the check could not judge the answer ({type(exc).__name__})"
        results.append(CheckResult(rule.id, rule.source, status, message))
    return results


# ---------------------------------------------------------------------------------------------
# Finding the descriptor


def find_descriptor(pid: int | None = None, *, folder: Path | None = None) -> Path:
    """The descriptor file to check: the one in the providers folder (default
    `paths.providers_dir()`) whose `pid` is `pid`, else the only one there, else the one
    `webctx context` would ask (`host_client.choose_provider`). Raises ProviderUnavailable when
    there is none, or several usable ones and none in front (pick one with --pid)."""
    folder = paths.providers_dir() if folder is None else folder
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        files = []
    if pid is None:
        if len(files) == 1:
            return files[0]
        if not files:
            raise ProviderUnavailable(
                f"No descriptor in {folder}: no provider is running. Start one, or pass --descriptor FILE."
            )
        # Several: the one `webctx context` would ask (host_client.choose_provider: the front app's
        # usable provider, else the only usable one), so unreadable or stale files do not get in the way.
        found = discover(folder)
        chosen = choose_provider(found)
        return next(info.path for info in found if info.descriptor is not None and info.descriptor == chosen)
    for path in files:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("pid") == pid:
                return path
    raise ProviderUnavailable(
        f"No descriptor in {folder} names pid {pid}. Run `webctx providers` to see every descriptor."
    )


# ---------------------------------------------------------------------------------------------
# Collecting evidence


def _inspect_files(ev: Evidence, path: Path) -> None:
    """Modes, owner and symlink-ness (POSIX only: on Windows, where ACLs govern access, the mode
    rules are skipped), then the descriptor's JSON."""
    folder = path.parent
    with contextlib.suppress(OSError):
        ev.folder_is_symlink = stat.S_ISLNK(os.lstat(folder).st_mode)
    if os.name == "posix":
        with contextlib.suppress(OSError):
            ev.file_mode = stat.S_IMODE(os.lstat(path).st_mode)
        with contextlib.suppress(OSError):
            info = os.lstat(folder)
            ev.folder_mode = stat.S_IMODE(info.st_mode)
            ev.folder_owned_by_user = info.st_uid == os.getuid()
    try:
        ev.descriptor = json.loads(path.read_bytes())
    except OSError as exc:
        ev.descriptor_error = exc.strerror or type(exc).__name__
    except ValueError:
        ev.descriptor_error = "not valid UTF-8 JSON"


def _listeners(port: int, provider_pid: int) -> list[Listener]:
    """Every listening socket on `port` with its address and pid, and whether that pid is the
    provider or its descendant (the host's own listener check: host.processes)."""
    return [
        Listener(sock.address, sock.pid, is_same_or_descendant(sock.pid, provider_pid))
        for sock in listening_sockets(port)
    ]


def _inspect_process(ev: Evidence) -> None:
    d = ev.descriptor if isinstance(ev.descriptor, dict) else {}
    pid = d.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return
    try:
        ev.process_running = process_alive(pid)
        if ev.process_running:
            ev.expected_bundle_id = expected_bundle_id(psutil.Process(pid))
    except psutil.NoSuchProcess:
        ev.process_running = False
    except psutil.Error:
        ev.process_running = True
    port = endpoint_port(d.get("endpoint"))
    if port is not None:
        ev.listeners = _listeners(port, pid)


_INITIALIZE: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": ERA_2025,
        "capabilities": {},
        "clientInfo": {"name": "webctx-conformance", "version": "0"},
    },
}


async def _probe(descriptor: Descriptor, timeout_s: float) -> dict[str, int | str]:
    """POST an `initialize` to the endpoint in five ways a provider must refuse; return the statuses."""
    port = endpoint_port(descriptor.endpoint)
    good = f"Bearer {descriptor.token}"
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    sep = "&" if "?" in descriptor.endpoint else "?"
    variants: dict[str, tuple[str, dict[str, str]]] = {
        "origin": (descriptor.endpoint, {"Authorization": good, "Origin": "http://127.0.0.1:9"}),
        "no_token": (descriptor.endpoint, {}),
        "wrong_token": (descriptor.endpoint, {"Authorization": f"Bearer x{secrets.token_urlsafe(16)}"}),
        "query_token": (
            f"{descriptor.endpoint}{sep}token={descriptor.token}&access_token={descriptor.token}",
            {},
        ),
        "bad_host": (descriptor.endpoint, {"Authorization": good, "Host": f"rebind.example:{port}"}),
    }
    statuses: dict[str, int | str] = {}
    async with httpx2.AsyncClient(timeout=timeout_s, follow_redirects=False) as http:
        for name, (url, headers) in variants.items():
            try:
                response = await http.post(url, json=_INITIALIZE, headers={**base, **headers})
                statuses[name] = response.status_code
            except httpx2.HTTPError as exc:
                statuses[name] = f"request failed ({type(exc).__name__})"
    return statuses


def _structured(result: types.CallToolResult) -> Any:
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


async def _session_era(ev: Evidence, descriptor: Descriptor, mode: Any, timeout_s: float) -> None:
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


async def collect(
    path: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S, budget_ms: float = DEFAULT_BUDGET_MS
) -> Evidence:
    """Everything the rules need about the provider whose descriptor is `path` (module docstring).
    Never raises because of what the provider wrote or answered."""
    ev = Evidence(descriptor_path=str(path), budget_ms=budget_ms)
    _inspect_files(ev, path)
    _inspect_process(ev)
    try:
        descriptor = Descriptor.model_validate(ev.descriptor)
    except ValidationError:
        ev.mcp_skipped = "the descriptor is not usable (see descriptor.fields)"
        return ev
    if endpoint_port(descriptor.endpoint) is None:
        ev.mcp_skipped = "the endpoint is not on 127.0.0.1; the kit contacts loopback only"
        return ev
    ev.probes = await _probe(descriptor, timeout_s)
    for mode in ("auto", "legacy"):
        await _session_era(ev, descriptor, mode, timeout_s)
    return ev


def _provider_label(ev: Evidence) -> str:
    d = ev.descriptor if isinstance(ev.descriptor, dict) else {}
    name, version, pid = d.get("name"), d.get("version"), d.get("pid")
    parts = [str(v) for v in (name, version) if isinstance(v, str) and v]
    label = " ".join(parts) or "unknown provider"
    return f"{label} (pid {pid})" if isinstance(pid, int) else label


async def check_provider(
    path: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S, budget_ms: float = DEFAULT_BUDGET_MS
) -> Report:
    """Collect evidence from the provider whose descriptor is `path` and judge it by every rule."""
    evidence = await collect(path, timeout_s=timeout_s, budget_ms=budget_ms)
    return Report(str(path), _provider_label(evidence), run_checks(evidence))


def check_provider_sync(
    path: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S, budget_ms: float = DEFAULT_BUDGET_MS
) -> Report:
    """Blocking `check_provider` for the CLI (runs its own event loop)."""
    return asyncio.run(check_provider(path, timeout_s=timeout_s, budget_ms=budget_ms))
