"""The reference desktop host (SPEC §7): find a provider, check it, ask it, keep ids with it.

A desktop host follows the host rules of the concepts page ("Discovery", "Security", "Versions",
"What a host must do"). This module does exactly that, so tests and the `webctx` CLI talk to a
provider the way a real host would::

    discover()                  every descriptor in the providers folder, each usable or rejected
      └─ check_descriptor()     process alive · bundle id matches · protocol 0.2 · 127.0.0.1 ·
                                listener is the named pid or its descendant   (ProviderRejected)
    choose_provider(pid)        --pid, else the front app (X11), else the only usable provider
    open_session(descriptor)    MCP over Streamable HTTP: bearer token, no Origin, time limits
      └─ ProviderSession.current()   answer's instance/protocol must equal the descriptor's
      └─ ProviderSession.location()  where an element is (SPEC §1.2)
    IdBook                      (provider pid, instance) for every id seen; a restart forgets ids

`HostClient` bundles these for a host that keeps running; `current_sync` & co. are thin
blocking wrappers for the CLI. Nothing here prints, and the token is never logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeVar
from urllib.parse import urlsplit

import anyio
import httpx2
import psutil
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from native_host import paths
from native_host.errors import ProviderRejected, ProviderUnavailable, WebctxError
from native_host.host.descriptor_files import check_folder, read_descriptor_file
from native_host.protocol.answers import CurrentAnswer, Element, LocationAnswer
from native_host.protocol.browser_identity import kind_for
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.version import SUPPORTED_PROTOCOL, protocol_supported

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "SUPPORTED_PROTOCOL",
    "UNKNOWN_PID",
    "BundleIdLookup",
    "ConnectMode",
    "CurrentResult",
    "HostClient",
    "IdBook",
    "IdOwner",
    "ProviderInfo",
    "ProviderSession",
    "call_tool_sync",
    "check_answer",
    "check_descriptor",
    "choose_provider",
    "current_sync",
    "discover",
    "expected_bundle_id",
    "fetch_current",
    "front_app_pid",
    "iter_elements",
    "list_tools_sync",
    "listener_pids",
    "locate_sync",
    "open_session",
    "protocol_supported",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

DEFAULT_TIMEOUT_S: Final = 5.0
"""Time limit for connecting to a provider and for each call, in seconds ("Never wait on a provider")."""


ConnectMode = Literal["auto", "legacy"]
"""`"auto"`: the SDK probes `server/discover` and lands on 2026-07-28; `"legacy"`: the 2025-11-25
`initialize` handshake (SPEC §1: both eras must work)."""

BundleIdLookup = Callable[[psutil.Process], "str | None"]
"""Maps a running process to the bundle id it should publish, or None when it cannot tell."""

_HTTP_READ_TIMEOUT_S: Final = 300.0
"""httpx read timeout, long because a 2025-era session keeps a GET stream open; calls have their own limit."""

_LOOPBACK: Final = "127.0.0.1"

UNKNOWN_PID: Final = -1
"""Stands for a listening process whose pid the OS does not reveal (another user's)."""

# ---------------------------------------------------------------------------------------------
# Descriptor checks (concepts page, "Discovery" and "Security"; SPEC §3, §7)


def expected_bundle_id(process: psutil.Process) -> str | None:
    """The bundle id `process` should publish, derived from its executable; None when unknown.

    macOS: the `CFBundleIdentifier` of the enclosing `.app`. Elsewhere: the same table the native
    host fills `bundleId` from (`browser_identity.BROWSERS`, by executable file name; SPEC §3).
    Raises psutil.Error when the process vanished or cannot be inspected.
    """
    try:
        exe = process.exe() or ""
    except psutil.AccessDenied:
        exe = ""
    if sys.platform == "darwin" and exe:
        bundle = _macos_bundle_id(Path(exe))
        if bundle:
            return bundle
    kind = kind_for(exe or process.name())
    return kind.bundle_id if kind is not None else None


def _macos_bundle_id(exe: Path) -> str | None:
    for parent in exe.parents:
        if parent.suffix == ".app":
            try:
                with (parent / "Contents" / "Info.plist").open("rb") as fh:
                    value = plistlib.load(fh).get("CFBundleIdentifier")
            except (OSError, plistlib.InvalidFileException):
                return None
            return value if isinstance(value, str) else None
    return None


def listener_pids(port: int) -> set[int]:
    """Pids of the processes listening on TCP `port` (any local address); empty when nobody is.
    A listener the OS will not name (another user's process) is reported as UNKNOWN_PID.

    Uses `psutil.net_connections(kind="tcp")`; where the OS refuses that (macOS without root) it
    falls back to scanning this user's processes one by one.
    """
    found: set[int] = set()
    try:
        for sconn in psutil.net_connections(kind="tcp"):
            if sconn.status == psutil.CONN_LISTEN and sconn.laddr and sconn.laddr.port == port:
                found.add(sconn.pid if sconn.pid else UNKNOWN_PID)
        return found
    except psutil.AccessDenied:
        pass
    for proc in psutil.process_iter():
        try:
            for conn in proc.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                    found.add(proc.pid)
        except psutil.Error:
            continue
    return found


def _is_same_or_descendant(pid: int, ancestor: int) -> bool:
    if pid == UNKNOWN_PID:
        return False
    if pid == ancestor:
        return True
    try:
        return any(parent.pid == ancestor for parent in psutil.Process(pid).parents())
    except psutil.Error:
        return False


def check_descriptor(descriptor: Descriptor, *, identify: BundleIdLookup = expected_bundle_id) -> None:
    """Raise ProviderRejected (`.reason` below) unless a host may use `descriptor` (SPEC §7).

    Checks, in order: `unsupported_protocol` (major.minor ≠ 0.2), `process_gone` (`pid` not
    running), `bundle_id_mismatch` (`identify(process)` differs from `bundleId` or cannot tell),
    `endpoint_not_loopback` (not `http://127.0.0.1:<port>/…`), `not_listening` (nobody listens on
    the port), `listener_mismatch` (the listener is neither `pid` nor a descendant of it).
    `identify` is injectable for tests; the default derives the id from the executable.
    """
    name = descriptor.name or descriptor.bundle_id
    if not protocol_supported(descriptor.protocol):
        raise ProviderRejected(
            f"{name} speaks provider protocol {descriptor.protocol}; this host speaks "
            f"{SUPPORTED_PROTOCOL[0]}.{SUPPORTED_PROTOCOL[1]}.x. Update webctx or the provider.",
            reason="unsupported_protocol",
        )
    try:
        if not process_alive(descriptor.pid):
            raise psutil.NoSuchProcess(descriptor.pid)
        process = psutil.Process(descriptor.pid)
        expected = identify(process)
    except psutil.NoSuchProcess:
        raise ProviderRejected(
            f"{name} (pid {descriptor.pid}) is no longer running; its descriptor is stale.",
            reason="process_gone",
        ) from None
    except psutil.Error as exc:
        raise ProviderRejected(
            f"Cannot inspect pid {descriptor.pid} named by the {name} descriptor ({exc}).",
            reason="bundle_id_mismatch",
        ) from None
    if expected != descriptor.bundle_id:
        what = f"is {expected}" if expected else "is not an app this host knows"
        raise ProviderRejected(
            f"The descriptor says bundle id {descriptor.bundle_id}, but pid {descriptor.pid} "
            f"({_exe_name(process)}) {what}.",
            reason="bundle_id_mismatch",
        )
    port = _loopback_port(descriptor.endpoint)
    if port is None:
        raise ProviderRejected(
            f"The {name} endpoint {descriptor.endpoint!r} is not http://127.0.0.1:<port>/…; "
            "a host only talks to providers on 127.0.0.1.",
            reason="endpoint_not_loopback",
        )
    listeners = listener_pids(port)
    if not listeners:
        raise ProviderRejected(
            f"Nothing is listening on 127.0.0.1:{port} for {name} (pid {descriptor.pid}).",
            reason="not_listening",
        )
    strangers = sorted(p for p in listeners if not _is_same_or_descendant(p, descriptor.pid))
    if strangers:
        holder = "a process the OS will not name" if strangers[0] == UNKNOWN_PID else f"pid {strangers[0]}"
        raise ProviderRejected(
            f"Port {port} is held by {holder}, which is not {name} (pid {descriptor.pid}) "
            "or one of its child processes.",
            reason="listener_mismatch",
        )


def _exe_name(process: psutil.Process) -> str:
    try:
        return Path(process.exe()).name or process.name()
    except psutil.Error:
        return "unknown executable"


def _loopback_port(endpoint: str) -> int | None:
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or port is None or parts.netloc != f"{_LOOPBACK}:{port}":
        return None
    return port


# ---------------------------------------------------------------------------------------------
# Discovery and choice


@dataclass(frozen=True)
class ProviderInfo:
    """One descriptor file and the verdict on it.

    `descriptor` is None when the file could not be read as a descriptor (or was not read because
    the folder or file is unsafe); `rejection` is None when the provider is usable; `warning` is a
    sentence when it is usable but its token is readable by other users. `to_json()` leaves the
    token out.
    """

    path: Path
    descriptor: Descriptor | None
    rejection: ProviderRejected | None = None
    warning: str | None = None

    @property
    def usable(self) -> bool:
        """True when every SPEC §7 check passed."""
        return self.descriptor is not None and self.rejection is None

    def to_json(self) -> dict[str, Any]:
        """`{file, usable, reason?, message?, warning?, bundleId?, name?, version?, pid?, protocol?,
        instance?, endpoint?, listenerPid?}` — everything a person needs, never the token."""
        out: dict[str, Any] = {"file": str(self.path), "usable": self.usable}
        if self.rejection is not None:
            out["reason"] = self.rejection.reason
            out["message"] = self.rejection.message
        if self.warning is not None:
            out["warning"] = self.warning
        if self.descriptor is not None:
            d = self.descriptor
            out.update(
                bundleId=d.bundle_id,
                name=d.name,
                version=d.version,
                pid=d.pid,
                protocol=d.protocol,
                instance=d.instance,
                endpoint=d.endpoint,
            )
            if d.listener_pid is not None:
                out["listenerPid"] = d.listener_pid
        return out


def discover(
    folder: Path | None = None, *, identify: BundleIdLookup = expected_bundle_id
) -> list[ProviderInfo]:
    """Read every `*.json` in the providers folder (default `paths.providers_dir()`, SPEC §3) and
    check each: first the folder and the file (descriptor_safety: refused when another user could
    have written it, a `warning` when others can read it), then `check_descriptor`; sorted by file
    name. A missing folder gives []; an unreadable one raises ProviderUnavailable."""
    folder = paths.providers_dir() if folder is None else folder
    folder_rejection: ProviderRejected | None = None
    folder_warning: str | None = None
    try:
        try:
            folder_warning = check_folder(folder)
        except ProviderRejected as exc:
            folder_rejection = exc
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ProviderUnavailable(f"Cannot read the providers folder {folder}: {exc.strerror}.") from exc
    found: list[ProviderInfo] = []
    for path in files:
        if folder_rejection is not None:
            log.info("provider %s rejected: %s", path.name, folder_rejection.reason)
            found.append(ProviderInfo(path, None, folder_rejection))
            continue
        try:
            data, file_warning = read_descriptor_file(path)
            descriptor = Descriptor.model_validate_json(data)
        except ProviderRejected as unsafe:
            log.info("provider %s rejected: %s", path.name, unsafe.reason)
            found.append(ProviderInfo(path, None, unsafe))
            continue
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not a valid descriptor"
            rejection = ProviderRejected(f"{path.name} cannot be read: {reason}.", reason="unreadable")
            found.append(ProviderInfo(path, None, rejection))
            continue
        warning = " ".join(w for w in (folder_warning, file_warning) if w) or None
        try:
            check_descriptor(descriptor, identify=identify)
        except ProviderRejected as rejection:
            log.info("provider %s rejected: %s", path.name, rejection.reason)
            found.append(ProviderInfo(path, descriptor, rejection, warning))
        else:
            found.append(ProviderInfo(path, descriptor, None, warning))
    return found


def front_app_pid() -> int | None:
    """The pid of the app that owns the active window, where the OS tells us; else None.

    Linux/X11 only for now: `xprop -root _NET_ACTIVE_WINDOW`, then that window's `_NET_WM_PID`
    (needs `DISPLAY` and `xprop`; each call limited to 1 s). macOS/Windows/Wayland: None.
    """
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    xprop = shutil.which("xprop")
    if xprop is None:
        return None
    try:
        active = subprocess.run(
            [xprop, "-root", "_NET_ACTIVE_WINDOW"], capture_output=True, text=True, timeout=1, check=False
        ).stdout
        window = active.rsplit(" ", 1)[-1].strip()
        if not window.startswith("0x") or int(window, 16) == 0:
            return None
        owner = subprocess.run(
            [xprop, "-id", window, "_NET_WM_PID"], capture_output=True, text=True, timeout=1, check=False
        ).stdout
        return int(owner.rsplit("=", 1)[-1].strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def choose_provider(
    providers: Sequence[ProviderInfo],
    pid: int | None = None,
    *,
    front_pid: Callable[[], int | None] = front_app_pid,
) -> Descriptor:
    """Pick the descriptor to ask (concepts page, "Ask the front app only").

    `pid` given: the usable descriptor with that pid, else raise its ProviderRejected (when it was
    rejected) or ProviderUnavailable. No `pid`: the front app's (`front_pid()`) when it is a usable
    provider, else the only usable provider; none or several → ProviderUnavailable listing them.
    """
    usable = [p.descriptor for p in providers if p.usable and p.descriptor is not None]
    if pid is not None:
        for d in usable:
            if d.pid == pid:
                return d
        for p in providers:
            if p.descriptor is not None and p.descriptor.pid == pid and p.rejection is not None:
                raise p.rejection
        raise ProviderUnavailable(
            f"No provider runs as pid {pid}. {_listing(usable)} "
            "Run `webctx providers` to see every descriptor."
        )
    front = front_pid()
    if front is not None:
        for d in usable:
            if d.pid == front:
                return d
    if len(usable) == 1:
        return usable[0]
    if not usable:
        rejected = sum(1 for p in providers if p.rejection is not None)
        extra = f" ({rejected} descriptor(s) were rejected; `webctx providers` says why)" if rejected else ""
        raise ProviderUnavailable(
            f"No usable provider is running{extra}. Start a browser with the webctx extension, "
            "or try `webctx demo`."
        )
    raise ProviderUnavailable(
        f"{len(usable)} providers are running; pick one with --pid. {_listing(usable)}"
    )


def _echo_id(id_: str, limit: int = 80) -> str:
    """`id_` quoted for a message, cut to `limit` characters with "…" (ids can be any length)."""
    return repr(id_) if len(id_) <= limit else repr(id_[:limit]) + "…"


def _listing(descriptors: Sequence[Descriptor]) -> str:
    if not descriptors:
        return "No usable provider is running."
    items = ", ".join(f"{d.name} (pid {d.pid})" for d in descriptors)
    return f"Usable: {items}."


# ---------------------------------------------------------------------------------------------
# Ids (concepts page, "Keep the provider with the id")


@dataclass(frozen=True)
class IdOwner:
    """Who issued an id: the provider's pid and bundle id, and the instance it was running."""

    pid: int
    instance: str
    bundle_id: str


def iter_elements(root: Element) -> Iterator[Element]:
    """Every element of the tree under (and including) `root`, depth first, in document order."""
    stack = [root]
    while stack:
        element = stack.pop()
        yield element
        stack.extend(reversed(element.children or []))


@dataclass
class IdBook:
    """Remembers which (provider pid, instance) issued every id seen (concepts page, "What a host must do").

    Two providers may both issue `sel-23`, so ids are kept per provider pid. When a provider shows
    up with a new instance (it restarted) or is gone, its old ids are forgotten: `is_known` turns
    false and `owner_of` returns None for them.
    """

    _owners: dict[str, dict[int, IdOwner]] = field(default_factory=dict)

    def record(self, descriptor: Descriptor, answer: CurrentAnswer) -> int:
        """Note every id in `answer.root` as issued by `(descriptor.pid, answer.instance)`; forget the
        ids of any other instance of that pid. Returns how many ids the answer held."""
        self.forget(descriptor.pid, keep_instance=answer.instance)
        owner = IdOwner(descriptor.pid, answer.instance, descriptor.bundle_id)
        count = 0
        for element in iter_elements(answer.root):
            per_pid = self._owners.setdefault(element.id, {})
            per_pid.pop(owner.pid, None)  # re-insert so the latest issuer is last
            per_pid[owner.pid] = owner
            count += 1
        return count

    def forget(self, pid: int, *, keep_instance: str | None = None) -> None:
        """Drop the ids issued by provider `pid`, except those of `keep_instance` when given."""
        for id_ in list(self._owners):
            per_pid = self._owners[id_]
            owner = per_pid.get(pid)
            if owner is not None and owner.instance != keep_instance:
                del per_pid[pid]
            if not per_pid:
                del self._owners[id_]

    def refresh(self, providers: Iterable[ProviderInfo]) -> None:
        """Forget ids whose provider no longer has a usable descriptor with the same instance
        (it quit, restarted, or now fails a check)."""
        live = {
            (p.descriptor.pid, p.descriptor.instance)
            for p in providers
            if p.usable and p.descriptor is not None
        }
        for pid, instance in {(o.pid, o.instance) for per in self._owners.values() for o in per.values()}:
            if (pid, instance) not in live:
                self.forget(pid, keep_instance=None)

    def owner_of(self, id_: str, *, pid: int | None = None) -> IdOwner | None:
        """The provider that issued `id_` (from provider `pid` when given, else the latest issuer)."""
        per_pid = self._owners.get(id_)
        if not per_pid:
            return None
        if pid is not None:
            return per_pid.get(pid)
        return next(reversed(per_pid.values()))

    def is_known(self, id_: str, *, pid: int | None = None) -> bool:
        """True when `id_` was issued by a provider whose instance has not changed since."""
        return self.owner_of(id_, pid=pid) is not None

    def __len__(self) -> int:
        return sum(len(per) for per in self._owners.values())


# ---------------------------------------------------------------------------------------------
# Talking to a provider (concepts page, "Security"; SPEC §1)


def check_answer(descriptor: Descriptor, structured: Any) -> CurrentAnswer:
    """Validate a `current` answer (SPEC §1.1) against the descriptor it came from.

    Raises ProviderRejected: `invalid_answer` (not a `CurrentAnswer`), `instance_mismatch` or
    `protocol_mismatch` (differs from the descriptor: the answer is dropped, concepts page).
    """
    try:
        answer = CurrentAnswer.model_validate(structured)
    except ValidationError as exc:
        raise ProviderRejected(
            f"{descriptor.name} answered `current` with something that is not a context tree "
            f"({exc.error_count()} problem(s)); the answer was dropped.",
            reason="invalid_answer",
        ) from None
    if answer.instance != descriptor.instance:
        raise ProviderRejected(
            f"{descriptor.name} answered as instance {answer.instance!r}, but its descriptor says "
            f"{descriptor.instance!r}; the answer was dropped (the provider may have restarted).",
            reason="instance_mismatch",
        )
    if answer.protocol != descriptor.protocol:
        raise ProviderRejected(
            f"{descriptor.name} answered with protocol {answer.protocol}, but its descriptor says "
            f"{descriptor.protocol}; the answer was dropped.",
            reason="protocol_mismatch",
        )
    return answer


@dataclass(frozen=True)
class CurrentResult:
    """A checked `current` answer with the descriptor of the provider that gave it."""

    descriptor: Descriptor
    answer: CurrentAnswer
    raw: dict[str, Any]
    """The exact `structuredContent` the provider sent (what `webctx context --json` prints)."""


class ProviderSession:
    """An open MCP connection to one provider; made by `open_session`. Every call is time-limited."""

    def __init__(self, client: Client, descriptor: Descriptor, timeout_s: float, id_book: IdBook | None):
        self._client = client
        self.descriptor = descriptor
        self.timeout_s = timeout_s
        self.id_book = id_book

    @property
    def protocol_version(self) -> str:
        """The negotiated MCP protocol version, e.g. `"2026-07-28"` or `"2025-11-25"`."""
        return self._client.protocol_version

    @property
    def server_capabilities(self) -> types.ServerCapabilities:
        """The capabilities the provider declared (`initialize` or `server/discover`), e.g. for the
        conformance kit's look at `capabilities.extensions` (SPEC §1)."""
        return self._client.server_capabilities

    @property
    def client(self) -> Client:
        """The SDK client under this session, for what the helpers here do not cover (e.g.
        `client.listen(tools_list_changed=True)`, or a call with its own time limit). Calls on it
        are not time-limited by this session; the stdio bridge uses it."""
        return self._client

    async def current(self) -> CurrentResult:
        """Call `current` (SPEC §1.1) and check the answer (`check_answer`); record its ids.

        Raises ProviderUnavailable (no answer within `timeout_s`, transport failure, `isError`) or
        ProviderRejected (answer dropped).
        """
        result = await self.call_tool("current", {})
        if result.is_error:
            reason = _result_text(result) or "no reason given"
            raise ProviderUnavailable(f"{self.descriptor.name} could not answer `current`: {reason}.")
        structured = result.structured_content
        if structured is None:  # tolerate a provider that only sends the text block
            try:
                structured = json.loads(_result_text(result))
            except ValueError:
                structured = None
        raw = structured if isinstance(structured, dict) else {}
        answer = check_answer(self.descriptor, structured)
        if self.id_book is not None:
            self.id_book.record(self.descriptor, answer)
        return CurrentResult(self.descriptor, answer, raw)

    async def location(self, id_: str) -> LocationAnswer:
        """Call `location` for `id_` (SPEC §1.2) and return the checked answer (rects in points).

        Raises WebctxError with `.code` `unknown_id` / `invalid_id` when the provider refuses the id,
        ProviderUnavailable on other `isError` results or transport failures, ProviderRejected
        (`invalid_answer`) when the answer is not a location.
        """
        result = await self.call_tool("location", {"id": id_})
        structured = result.structured_content
        if result.is_error:
            error = structured.get("error") if isinstance(structured, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            if code in ("unknown_id", "invalid_id"):
                raise WebctxError(
                    f"{self.descriptor.name} does not know the id {_echo_id(id_)} ({code}); treat the "
                    "element as gone and ask `current` again.",
                    code=str(code),
                )
            reason = _result_text(result) or "no reason given"
            raise ProviderUnavailable(f"{self.descriptor.name} could not answer `location`: {reason}.")
        try:
            return LocationAnswer.model_validate(structured)
        except ValidationError as exc:
            raise ProviderRejected(
                f"{self.descriptor.name} answered `location` with something that is not a location "
                f"({exc.error_count()} problem(s)); the answer was dropped.",
                reason="invalid_answer",
            ) from None

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        """Call MCP tool `name` with `arguments` (an object); return the result as is (`isError`
        results included). Raises ProviderUnavailable on timeout/transport failure and WebctxError
        (code `mcp_error`) when the provider answers with a JSON-RPC error (e.g. unknown tool)."""
        return await self._limited(f"`{name}`", self._client.call_tool(
            name, arguments or {}, read_timeout_seconds=self.timeout_s
        ))

    async def list_tools(self) -> list[types.Tool]:
        """The provider's MCP tools (all pages of `tools/list`). Same errors as `call_tool`."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(100):  # a paginator that never ends cannot hang us
            page = await self._limited("tools/list", self._client.list_tools(cursor=cursor))
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _limited(self, what: str, call: Awaitable[_T]) -> _T:
        try:
            with anyio.fail_after(self.timeout_s + 0.5):
                return await call
        except TimeoutError:
            raise _timeout_error(self.descriptor, self.timeout_s, what) from None
        except MCPError as exc:
            if "timed out" in exc.error.message:
                raise _timeout_error(self.descriptor, self.timeout_s, what) from None
            raise WebctxError(
                f"{self.descriptor.name} refused {what}: {exc.error.message}", code="mcp_error"
            ) from None
        except (httpx2.HTTPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise _transport_error(self.descriptor, exc) from None


def _result_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _timeout_error(descriptor: Descriptor, timeout_s: float, what: str) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"{descriptor.name} (pid {descriptor.pid}) did not answer {what} within {timeout_s:g} s; "
        "carrying on without it. Try again, or raise the limit with --timeout."
    )


def _transport_error(descriptor: Descriptor, exc: BaseException) -> ProviderUnavailable:
    leaf = _first_leaf(exc)
    detail = str(leaf) or type(leaf).__name__
    if isinstance(leaf, MCPError):
        detail = leaf.error.message
    return ProviderUnavailable(
        f"Could not talk to {descriptor.name} (pid {descriptor.pid}) at {descriptor.endpoint}: "
        f"{detail.rstrip('. ')}."
    )


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


@asynccontextmanager
async def open_session(
    descriptor: Descriptor,
    *,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    id_book: IdBook | None = None,
) -> AsyncIterator[ProviderSession]:
    """Connect to `descriptor.endpoint` with its bearer token and no `Origin` header (SPEC §1).

    `mode="auto"` lands on MCP 2026-07-28, `"legacy"` does the 2025-11-25 handshake. Connecting is
    limited to `timeout_s` seconds, and so is every call on the yielded session. Raises
    ProviderUnavailable when the provider cannot be reached or does not answer in time. Does not
    re-check the descriptor: pass one from `discover()`/`choose_provider()`.
    """
    headers = {"Authorization": f"Bearer {descriptor.token}"}
    timeout = httpx2.Timeout(timeout_s, read=_HTTP_READ_TIMEOUT_S)
    connected = False
    body_error: BaseException | None = None
    body_done = False
    try:
        with anyio.fail_after(timeout_s) as deadline:
            async with (
                httpx2.AsyncClient(headers=headers, timeout=timeout, follow_redirects=False) as http,
                Client(
                    streamable_http_client(descriptor.endpoint, http_client=http),
                    mode=mode,
                    read_timeout_seconds=timeout_s,
                    cache=None,
                ) as client,
            ):
                connected = True
                deadline.deadline = math.inf  # connected: from here each call has its own limit
                log.debug("connected to pid %s over MCP %s", descriptor.pid, client.protocol_version)
                try:
                    yield ProviderSession(client, descriptor, timeout_s, id_book)
                except BaseException as exc:
                    body_error = exc
                    raise
                body_done = True
                deadline.deadline = anyio.current_time() + timeout_s  # closing is limited too
    except Exception as exc:
        if body_error is not None and _contains(exc, body_error):
            raise body_error from None  # the caller's own error, out of the SDK's task groups
        if body_done:  # the work is done; a failure while hanging up does not undo it
            log.debug("error while closing the session with pid %s", descriptor.pid, exc_info=True)
            return
        if isinstance(exc, TimeoutError) and not connected:
            raise _timeout_error(descriptor, timeout_s, "the connection") from None
        if isinstance(exc, WebctxError) or (connected and not _is_transport_failure(exc)):
            raise
        raise _transport_error(descriptor, exc) from None


def _contains(exc: BaseException, wanted: BaseException) -> bool:
    if exc is wanted:
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(_contains(inner, wanted) for inner in exc.exceptions)
    return False


def _is_transport_failure(exc: BaseException) -> bool:
    leaf = _first_leaf(exc)
    return isinstance(leaf, httpx2.HTTPError | OSError | MCPError | anyio.BrokenResourceError)


# ---------------------------------------------------------------------------------------------
# One object for a host that keeps running, and blocking helpers for the CLI


class HostClient:
    """A desktop host's view of the providers on this machine (SPEC §7), with one `IdBook`.

    `folder` defaults to `paths.providers_dir()`; `mode` and `timeout_s` apply to every connection.
    Each call re-reads the providers folder, so a provider that restarted is noticed.
    """

    def __init__(
        self,
        *,
        folder: Path | None = None,
        mode: ConnectMode = "auto",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        identify: BundleIdLookup = expected_bundle_id,
        front_pid: Callable[[], int | None] = front_app_pid,
    ) -> None:
        self.folder = folder
        self.mode: ConnectMode = mode
        self.timeout_s = timeout_s
        self.identify = identify
        self.front_pid = front_pid
        self.ids = IdBook()

    def providers(self) -> list[ProviderInfo]:
        """`discover()` the folder and forget ids of providers that quit or restarted."""
        found = discover(self.folder, identify=self.identify)
        self.ids.refresh(found)
        return found

    def choose(self, pid: int | None = None) -> Descriptor:
        """`choose_provider` over a fresh `providers()` listing."""
        return choose_provider(self.providers(), pid, front_pid=self.front_pid)

    @asynccontextmanager
    async def session(self, pid: int | None = None) -> AsyncIterator[ProviderSession]:
        """An open session to the chosen provider, recording ids into `self.ids`."""
        descriptor = self.choose(pid)
        async with open_session(descriptor, mode=self.mode, timeout_s=self.timeout_s, id_book=self.ids) as s:
            yield s

    async def current(self, pid: int | None = None) -> CurrentResult:
        """Ask the chosen provider for `current` (checked; ids recorded)."""
        async with self.session(pid) as s:
            return await s.current()

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, pid: int | None = None
    ) -> types.CallToolResult:
        """Call MCP tool `name` on the chosen provider; see `ProviderSession.call_tool`."""
        async with self.session(pid) as s:
            return await s.call_tool(name, arguments)

    async def list_tools(self, pid: int | None = None) -> list[types.Tool]:
        """The chosen provider's MCP tools."""
        async with self.session(pid) as s:
            return await s.list_tools()

    async def location(self, id_: str) -> LocationAnswer:
        """Locate `id_` on the provider that issued it (SPEC §7: the id goes only to its own
        provider, and only while that provider runs the same instance).

        An id no live provider issued (never seen, or its provider quit or restarted) is answered
        `gone` without asking anyone, as the concepts page's "Keep the provider with the id" asks.
        Other errors as `ProviderSession.location`.
        """
        try:
            owner = self.owner_of(id_)
        except ProviderRejected:
            return LocationAnswer(state="gone", rects=[])
        async with self.session(owner.pid) as s:
            if s.descriptor.instance != owner.instance:
                return LocationAnswer(state="gone", rects=[])
            return await s.location(id_)

    def owner_of(self, id_: str) -> IdOwner:
        """The live provider that issued `id_`, after re-reading the providers folder.

        Raises ProviderRejected (`unknown_id`) when no provider that is still running with the same
        instance issued it: the element is gone (concepts page, "Keep the provider with the id").
        """
        self.providers()
        owner = self.ids.owner_of(id_)
        if owner is None:
            raise ProviderRejected(
                f"Id {id_!r} was not issued by a provider that is still running with the same instance; "
                "treat the element as gone and ask `current` again.",
                reason="unknown_id",
            )
        return owner


async def fetch_current(
    pid: int | None = None,
    *,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> CurrentResult:
    """Discover, choose (`pid` or the front/only provider), connect and call `current` once."""
    return await HostClient(folder=folder, mode=mode, timeout_s=timeout_s).current(pid)


def current_sync(
    pid: int | None = None,
    *,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> CurrentResult:
    """Blocking `fetch_current` for the CLI (runs its own event loop)."""
    return asyncio.run(fetch_current(pid, folder=folder, mode=mode, timeout_s=timeout_s))


def call_tool_sync(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    pid: int | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> types.CallToolResult:
    """Blocking `HostClient.call_tool` for the CLI."""
    client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
    return asyncio.run(client.call_tool(name, arguments, pid=pid))


def list_tools_sync(
    *,
    pid: int | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> list[types.Tool]:
    """Blocking `HostClient.list_tools` for the CLI."""
    client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
    return asyncio.run(client.list_tools(pid))


def locate_sync(
    id_: str,
    *,
    pid: int | None = None,
    instance: str | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> tuple[Descriptor, LocationAnswer]:
    """Blocking `location` for the CLI (a one-shot process keeps no IdBook between runs).

    With `instance` (as `webctx context` printed it), the id is only sent when the chosen
    provider still runs that instance; otherwise the element is `gone` (SPEC §7). Without it,
    the id goes to the chosen provider as is, and an id it never issued is its `unknown_id` error.
    """

    async def run() -> tuple[Descriptor, LocationAnswer]:
        client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
        descriptor = client.choose(pid)
        if instance is not None and descriptor.instance != instance:
            return descriptor, LocationAnswer(state="gone", rects=[])
        async with open_session(descriptor, mode=mode, timeout_s=timeout_s) as session:
            return descriptor, await session.location(id_)

    return asyncio.run(run())
