"""Which providers are on this machine, and which one to ask (concepts page, "Discovery" and
"Ask the front app only"; design.md §3, §7).

```
discover(folder)                 every `*.json` in the providers folder → [ProviderInfo]
  ├─ check_folder / read_descriptor_file   who could have written it (refuse) or read it (warn)
  └─ check_descriptor                      the design.md §7 checks (host.checks)
choose_provider(providers, pid)  --pid, else the front app (X11), else the only usable provider
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import paths
from native_host.errors import ProviderRejected, ProviderUnavailable
from native_host.host.checks import check_descriptor
from native_host.host.descriptor_files import check_folder, read_descriptor_file
from native_host.host.processes import BundleIdLookup, expected_bundle_id, front_app_pid
from native_host.protocol.descriptor import Descriptor

__all__ = ["ProviderInfo", "choose_provider", "discover"]

log = logging.getLogger(__name__)


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
        """True when every design.md §7 check passed."""
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
    """Read every `*.json` in the providers folder (default `paths.providers_dir()`, design.md §3) and
    check each: first the folder and the file (`host.descriptor_files`: refused when another user
    could have written it, a `warning` when others can read it), then `check_descriptor`; sorted by
    file name. A missing folder gives []; an unreadable one raises ProviderUnavailable."""
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


def _listing(descriptors: Sequence[Descriptor]) -> str:
    if not descriptors:
        return "No usable provider is running."
    items = ", ".join(f"{d.name} (pid {d.pid})" for d in descriptors)
    return f"Usable: {items}."
