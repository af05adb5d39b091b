"""The conformance runner: talk to one live provider, collect `Evidence`, run every rule.

```
find_descriptor(pid | file)          the descriptor to check (not pre-filtered: a bad one is checked)
collect(path)                        → Evidence
  ├─ inspection.py        file and folder modes, pid, bundle id, listeners on the port (psutil, os.lstat)
  ├─ security_probes.py   Origin / no token / wrong token / query token / bad Host     (raw HTTP)
  └─ conversation.py      MCP in both eras through host.open_session:
       auto   (server/discover): tools/list, current twice, location probes when offered
       legacy (initialize):      tools/list, current
report.run_checks(evidence)          → [CheckResult] in rules.RULES order; a crashing check is a fail
```

Only loopback endpoints are ever contacted: a descriptor whose endpoint is not
`http://127.0.0.1:<port>…` is checked on paper and its network rules are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

from pydantic import ValidationError

from native_host import paths
from native_host.conformance.checks import endpoint_port
from native_host.conformance.conversation import converse
from native_host.conformance.evidence import DEFAULT_BUDGET_MS, Evidence
from native_host.conformance.inspection import inspect_files, inspect_process
from native_host.conformance.report import Report, run_checks
from native_host.conformance.security_probes import probe_security
from native_host.errors import ProviderUnavailable
from native_host.host import (
    DEFAULT_TIMEOUT_S,
    choose_provider,
    discover,
)
from native_host.protocol.descriptor import Descriptor

# ---------------------------------------------------------------------------------------------
# Finding the descriptor


def find_descriptor(pid: int | None = None, *, folder: Path | None = None) -> Path:
    """The descriptor file to check: the one in the providers folder (default
    `paths.providers_dir()`) whose `pid` is `pid`, else the only one there, else the one
    `webctx context` would ask (`host.choose_provider`). Raises ProviderUnavailable when
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
        # Several: the one `webctx context` would ask (host.choose_provider: the front app's
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


async def collect(
    path: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S, budget_ms: float = DEFAULT_BUDGET_MS
) -> Evidence:
    """Everything the rules need about the provider whose descriptor is `path` (module docstring).
    Never raises because of what the provider wrote or answered."""
    ev = Evidence(descriptor_path=str(path), budget_ms=budget_ms)
    inspect_files(ev, path)
    inspect_process(ev)
    try:
        descriptor = Descriptor.model_validate(ev.descriptor)
    except ValidationError:
        ev.mcp_skipped = "the descriptor is not usable (see descriptor.fields)"
        return ev
    if endpoint_port(descriptor.endpoint) is None:
        ev.mcp_skipped = "the endpoint is not on 127.0.0.1; the kit contacts loopback only"
        return ev
    ev.probes = await probe_security(descriptor, timeout_s)
    for mode in ("auto", "legacy"):
        await converse(ev, descriptor, mode, timeout_s)
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
