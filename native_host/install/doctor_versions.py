"""The doctor's `versions` check: the extension and the native host are one release.

Two sources, because the extension the browser runs need not be the folder webctx ships:

- the **extension folder** (`webctx extension-path`, what Load unpacked should point at): its
  `manifest.json` version and `protocol.js` PROTOCOL_VERSION against this package's
  `__version__` and PROTOCOL_VERSION (a folder left over from another install, or a package
  upgraded without reloading the extension);
- every **running provider's descriptor** (usable or not, unless its host is gone): the running
  native host writes its own webctx version and what the extension that started it said in its
  `hello` (`hostVersion`, `extensionVersion`, `extensionProtocol`, our additions to design.md §3's
  descriptor), so a browser running another copy of the extension is caught too. Descriptors of
  hosts too old to write them are skipped.

Both are judged by protocol/version.py's `version_mismatch`, the rule the host logs and the popup
shows (service_worker/native_port.js).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Final

from native_host import __version__, paths
from native_host.install.doctor_check import Check, broken, ok
from native_host.protocol.version import PROTOCOL_VERSION, version_mismatch

PROTOCOL_LINE: Final = re.compile(r'^export const PROTOCOL_VERSION = "([^"]+)";', re.MULTILINE)
"""How extension/protocol.js declares its protocol version (one line, a string literal)."""


GONE: Final = frozenset({"process_gone", "not_listening", "listener_mismatch"})
"""Discovery's rejections (host/checks.py) of a descriptor whose host no longer runs: its versions
say nothing about what runs now (`providers.stale` reports those). Any other descriptor counts,
usable or not: "unsupported_protocol" is itself a version mismatch."""


def extension_versions(folder: Path) -> tuple[str, str]:
    """(manifest `version`, protocol.js PROTOCOL_VERSION) of the unpacked extension in `folder`.
    Raises OSError when a file is missing, ValueError when either cannot be read from it."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    version = manifest.get("version") if isinstance(manifest, dict) else None
    if not isinstance(version, str):
        raise ValueError("manifest.json has no version")
    found = PROTOCOL_LINE.search((folder / "protocol.js").read_text(encoding="utf-8"))
    if found is None:
        raise ValueError("protocol.js declares no PROTOCOL_VERSION")
    return version, found.group(1)


def check_versions(
    extension_dir: Path | None = None, providers: Path | None = None, *, live: bool = True
) -> Check:
    """`versions`: the extension folder, and (with `live`) every usable running provider, speak this
    package's protocol and are its webctx release. The message names both versions; the fix says
    which side to update."""
    folder = extension_dir or paths.extension_dir()
    try:
        ext_version, ext_protocol = extension_versions(folder)
    except (OSError, ValueError) as exc:
        problem = f"Cannot read the extension's versions in {folder}: {exc}."
        return broken("versions", problem, "reinstall webctx")
    found = version_mismatch(ext_protocol, ext_version)
    if found is not None:
        return broken("versions", f"In the extension folder {folder}: {found.problem}.", found.fix)
    release = f"webctx {__version__} (protocol {PROTOCOL_VERSION})"
    said = [f"The extension folder and the native host are {release}"]
    if live:
        from native_host.host.discovery import discover

        for info in discover(providers or paths.providers_dir()):
            d = info.descriptor
            gone = info.rejection is not None and info.rejection.reason in GONE
            if d is None or gone or d.extension_protocol is None:
                continue  # unreadable, no longer running, or a host too old to record the hello
            running = version_mismatch(
                d.extension_protocol, d.extension_version, host_protocol=d.protocol,
                host_version=d.host_version or __version__,
            )
            if running is not None:
                return broken("versions", f"In {d.name} (pid {d.pid}): {running.problem}.", running.fix)
            said.append(f"{d.name} (pid {d.pid}) runs that pair")
    return ok("versions", "; ".join(said) + ".")
