"""The provider descriptor model: the file `<bundleId>-<pid>.json` in the providers folder (design.md §3)."""

from __future__ import annotations

from pydantic import ConfigDict

from native_host.protocol.base import WireModel


class Descriptor(WireModel):
    """The provider descriptor file `<bundleId>-<pid>.json` (design.md §3).

    `pid` is the browser's main process; `listener_pid` (our addition) the native host's own pid,
    the process listening on the endpoint's port. Unknown fields are kept (others may add some).
    """

    model_config = ConfigDict(extra="allow")

    protocol: str
    bundle_id: str
    name: str
    version: str
    pid: int
    instance: str
    endpoint: str
    token: str
    listener_pid: int | None = None
    handoff: str | None = None
    """Our addition: `ws://127.0.0.1:<port>/handoff`, where the browser's other native hosts (other
    profiles) connect, with `token`, to hand their windows to this provider (design.md §3; handoff.py)."""
    host_version: str | None = None
    extension_version: str | None = None
    extension_protocol: str | None = None
    """Our addition: this native host's webctx version, and the webctx and protocol
    versions the extension that started it said in its `hello`, so that `webctx doctor` can compare
    the running pair (install/doctor_versions.py)."""
