"""Provider descriptors (design.md §3) for tests and benches."""

from __future__ import annotations

import os
from typing import Any

from native_host.protocol.descriptor import Descriptor
from native_host.protocol.version import PROTOCOL_VERSION


def make_descriptor(**fields: Any) -> Descriptor:
    """A valid Descriptor: Chromium's, as a provider of PROTOCOL_VERSION would write it, with
    `fields` (Descriptor field names, snake_case; any extra field is kept) replacing the defaults:

        protocol=PROTOCOL_VERSION, bundle_id="org.chromium.Chromium", name="Chromium",
        version="156.0.8078.114", pid=4242, instance="k3f9x2",
        endpoint="http://127.0.0.1:53817/mcp/Zx8", token="secret-token",
        listener_pid=os.getpid()  (this process; None leaves it out)

    Raises pydantic.ValidationError if a field has the wrong type."""
    defaults: dict[str, Any] = {
        "protocol": PROTOCOL_VERSION,
        "bundle_id": "org.chromium.Chromium",
        "name": "Chromium",
        "version": "156.0.8078.114",
        "pid": 4242,
        "instance": "k3f9x2",
        "endpoint": "http://127.0.0.1:53817/mcp/Zx8",
        "token": "secret-token",
        "listener_pid": os.getpid(),
    }
    return Descriptor(**{**defaults, **fields})
