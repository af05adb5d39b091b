"""May a host use this descriptor? The design.md §7 checks, in order (concepts page, "Discovery" and
"Security"; design.md §3, §7).

```
check_descriptor(descriptor)   protocol 0.2 · process alive · bundle id matches · 127.0.0.1 endpoint ·
                               someone listens · the listener is the named pid or its descendant
loopback_port(endpoint)        the port of `http://127.0.0.1:<port>/…`, else None
```

The folder and file checks that come before these (who could have written the file) are
`host.descriptor_files`; the process facts are `host.processes`.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

import psutil

from native_host.errors import ProviderRejected
from native_host.host.processes import (
    UNKNOWN_PID,
    BundleIdLookup,
    exe_name,
    expected_bundle_id,
    is_same_or_descendant,
    listener_pids,
)
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.version import SUPPORTED_PROTOCOL, protocol_supported

__all__ = ["check_descriptor", "loopback_port"]

_LOOPBACK: Final = "127.0.0.1"


def check_descriptor(descriptor: Descriptor, *, identify: BundleIdLookup = expected_bundle_id) -> None:
    """Raise ProviderRejected (`.reason` below) unless a host may use `descriptor` (design.md §7).

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
            f"({exe_name(process)}) {what}.",
            reason="bundle_id_mismatch",
        )
    port = loopback_port(descriptor.endpoint)
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
    strangers = sorted(p for p in listeners if not is_same_or_descendant(p, descriptor.pid))
    if strangers:
        holder = "a process the OS will not name" if strangers[0] == UNKNOWN_PID else f"pid {strangers[0]}"
        raise ProviderRejected(
            f"Port {port} is held by {holder}, which is not {name} (pid {descriptor.pid}) "
            "or one of its child processes.",
            reason="listener_mismatch",
        )


def loopback_port(endpoint: str) -> int | None:
    """The port of an `http://127.0.0.1:<port>/…` endpoint; None for any other scheme, host (also
    `localhost` or `[::1]`) or a missing/invalid port (concepts page, "Security": 127.0.0.1 only)."""
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or port is None or parts.netloc != f"{_LOOPBACK}:{port}":
        return None
    return port
