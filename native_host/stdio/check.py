"""`webctx mcp --check`, and the bridge's answer to a call while no browser is reached: can the
bridge find a browser? (docs/clients.md "Does the bridge find a browser?")

MCP clients show a stdio server as "Connected" as soon as it answers `initialize`, also when it
will never find a provider (the browser is not running, or the client started the bridge in an
environment that points at another providers folder). This module says what the bridge sees:

```
check_bridge(folder, pid)   provider_link.survey (host.discover + pick_provider: the bridge's own
                            folder, --pid and choice) → connect to the chosen one and list its
                            tools (host.open_session) → BridgeReport
BridgeReport.text()         the --check output: the folder and where it came from, each descriptor
                            (live / stale / refused / skipped, and why), the verdict and the fix
BridgeReport.no_browser()   the bridge's one-line `isError` text for a call while no browser is reached
```

No discovery of its own: every verdict on a descriptor is host.discover's (design.md §7 checks, file
checks); this module only sorts them into words and picks the fix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import anyio

from native_host.host import (
    BundleIdLookup,
    ProviderInfo,
    expected_bundle_id,
    front_app_pid,
    open_session,
)
from native_host.stdio.provider_link import (
    CONNECT_TIMEOUT_S,
    Survey,
    describe_failure,
    folder_source,
    is_browser_provider,
    survey,
)

State = Literal["live", "stale", "refused", "skipped"]
"""A descriptor as the bridge sees it: `live` (passes every check: the bridge may use it), `stale`
(its browser or native host has ended), `refused` (a check failed: not safe or not genuine),
`skipped` (usable, but not a browser's: native apps share the providers folder)."""

STALE_REASONS: Final = frozenset({"process_gone", "not_listening"})
"""host.checks reasons that mean "whoever wrote this has ended", not "this is not to be trusted"."""

MAX_TOOL_NAMES: Final = 20
"""The --check output names at most this many tools (a page may register hundreds)."""

START_BROWSER: Final = "Start the browser with the webctx extension (`webctx doctor` checks the install)."
CHECK_HINT: Final = "`webctx mcp --check` says more."


def state_of(info: ProviderInfo) -> tuple[State, str]:
    """`(state, why)` for one discovered descriptor (see State); `why` is host.discover's sentence."""
    descriptor = info.descriptor
    if info.usable and descriptor is not None:
        if is_browser_provider(descriptor):
            return "live", "passes every check (design.md §7)"
        return "skipped", f"{descriptor.bundle_id} is not a browser; the bridge serves browsers only"
    rejection = info.rejection
    if rejection is None:  # not usable and no rejection: discover never makes one, but say so
        return "refused", "cannot be read"
    return ("stale" if rejection.reason in STALE_REASONS else "refused"), rejection.message


def _who(info: ProviderInfo) -> str:
    d = info.descriptor
    if d is None:
        return info.path.name
    return f"{d.name} {d.version} (pid {d.pid}, {info.path.name})"


@dataclass(frozen=True)
class BridgeReport:
    """What the bridge found: `survey` (provider_link.Survey), `source` (how the folder was
    chosen, provider_link.folder_source), `pid` (--pid or None), and for the chosen provider either
    the names of the `tools` it lists (connected) or the `failure` sentence (could not connect).
    `ok` is True when the bridge reached a browser."""

    survey: Survey
    source: str
    pid: int | None = None
    tools: list[str] | None = None
    failure: str | None = None
    states: list[tuple[ProviderInfo, State, str]] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "states", [(info, *state_of(info)) for info in self.survey.found])

    @property
    def ok(self) -> bool:
        """True when a browser's provider was chosen and answered `tools/list`."""
        return self.survey.chosen is not None and self.tools is not None

    def problem(self) -> str | None:
        """Why the bridge cannot reach a browser, in one sentence (None when `ok`)."""
        chosen = self.survey.chosen
        if self.ok:
            return None
        if chosen is not None:
            if self.failure is None:
                return f"{chosen.name} (pid {chosen.pid}) was found but not connected yet."
            return f"{chosen.name} (pid {chosen.pid}) was found but did not answer: {self.failure}"
        if not self.states:
            if not self.survey.readable and self.survey.miss is not None:
                return self.survey.miss.message
            if not self.survey.folder.exists():
                return "No browser has published a descriptor: the providers folder does not exist."
            return "No browser has published a descriptor: the providers folder is empty."
        if self.pid is None and all(state != "live" for _info, state, _why in self.states):
            count = len(self.states)
            return f"None of the {count} descriptor(s) here is a browser provider the bridge can use."
        if self.survey.miss is not None:
            return self.survey.miss.message
        return "No usable browser provider."

    def fix(self) -> str | None:
        """The one thing to do about `problem()` (None when `ok`)."""
        if self.ok:
            return None
        if self.survey.chosen is not None:
            return "Restart the browser; if that does not help, run `webctx doctor`."
        if not self.survey.readable:
            folder = self.survey.folder
            return f"Make the providers folder yours and private (`chmod 700 {folder}`); restart the browser."
        kinds = {state for _info, state, _why in self.states}
        if self.pid is not None and "live" in kinds:
            return f"Start the browser whose main process is pid {self.pid}, or leave out --pid."
        if "refused" in kinds and "live" not in kinds:
            return "Do what the refused line above says, then restart the browser."
        if "stale" in kinds:
            return START_BROWSER + " It replaces the stale descriptor."
        return (
            f"{START_BROWSER} If the browser is running already, it publishes somewhere else: run "
            "`webctx providers` in a terminal of your desktop session, and if it names another "
            "folder, set CONTEXT_PROVIDERS_DIR to that folder in the `env` of webctx's entry in the "
            "MCP client's configuration."
        )

    def text(self) -> str:
        """The `webctx mcp --check` output (several lines, no trailing newline)."""
        folder = self.survey.folder
        where = "" if folder.is_dir() else "; it does not exist" if not folder.exists() else "; not a folder"
        lines = [f"Providers folder: {folder}, from {self.source}{where}"]
        if self.pid is not None:
            lines.append(f"Pinned to browser pid {self.pid} (--pid).")
        if not self.states:
            lines.append("  no descriptors")
        for info, state, why in self.states:
            lines.append(f"  {state:<8} {_who(info)}: {why}")
            if info.warning:
                lines.append(f"  {'warning':<8} {info.warning}")
        chosen = self.survey.chosen
        if self.ok and chosen is not None and self.tools is not None:
            names = ", ".join(self.tools[:MAX_TOOL_NAMES])
            more = f" and {len(self.tools) - MAX_TOOL_NAMES} more" if len(self.tools) > MAX_TOOL_NAMES else ""
            lines.append(
                f"OK: the bridge uses {chosen.name} {chosen.version} (pid {chosen.pid}), which lists "
                f"{len(self.tools)} tool(s): {names}{more}."
            )
        else:
            lines.append(f"Problem: {self.problem()}")
            lines.append(f"Fix: {self.fix()}")
        return "\n".join(lines)

    def no_browser(self) -> str:
        """What a bridged call answers while no browser is reached (one line): what is wrong,
        where the bridge looked and the fix, as --check says them."""
        looked = f"Looked in {self.survey.folder}, from {self.source}."
        return f"webctx cannot reach a browser: {self.problem()} {looked} {self.fix()} {CHECK_HINT}"


async def check_bridge(
    folder: Path | None = None,
    pid: int | None = None,
    *,
    identify: BundleIdLookup = expected_bundle_id,
    front_pid: Callable[[], int | None] = front_app_pid,
    timeout_s: float = CONNECT_TIMEOUT_S,
) -> BridgeReport:
    """Look for a browser exactly as `webctx mcp` would (provider_link.survey with `folder`, default
    the bridge's, and `pid`), then connect to the chosen one and list its tools, at most
    `timeout_s` seconds. Never raises for what it finds: the report says it."""
    found = await anyio.to_thread.run_sync(
        lambda: survey(folder, pid, identify=identify, front_pid=front_pid)
    )
    source = folder_source() if folder is None else "the caller"
    if found.chosen is None:
        return BridgeReport(found, source, pid)
    try:
        async with open_session(found.chosen, mode="auto", timeout_s=timeout_s) as session:
            tools = await session.list_tools()
    except Exception as exc:  # any failure to reach it is the report's finding, not a crash
        return BridgeReport(found, source, pid, failure=describe_failure(exc))
    return BridgeReport(found, source, pid, tools=[tool.name for tool in tools])
