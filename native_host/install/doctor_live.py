"""The doctor's last link, checked for real: a running provider answers `current` through the
reference host (its HTTP endpoint, its token), as a desktop host would ask it.

The reference host imports the MCP SDK, so it is imported only when this check runs: the other
checks, and `webctx doctor --no-live`, stay quick.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Final

from native_host import paths
from native_host.errors import WebctxError
from native_host.install.doctor_check import Check, broken, ok

CURRENT_TIMEOUT_S: Final = 5.0
"""How long the live provider may take to connect and answer `current`, in seconds."""


def check_live(folder: Path | None = None, *, timeout_s: float = CURRENT_TIMEOUT_S) -> Check:
    """A running provider answers `current` through the reference host (real HTTP, its token)."""
    from native_host.host import HostClient, discover  # imports mcp: only when needed

    folder = folder or paths.providers_dir()
    usable = [info for info in discover(folder) if info.usable and info.descriptor is not None]
    if not usable:
        return broken("provider.live", "No running browser has a live webctx provider.",
                      "start the browser with the extension loaded, switch the provider on in its popup, "
                      "and check the popup says connected")
    client = HostClient(folder=folder, timeout_s=timeout_s)
    for info in usable:
        d = info.descriptor
        assert d is not None
        try:
            asyncio.run(client.current(d.pid))
        except WebctxError as exc:
            return broken("provider.live", f"{d.name} (pid {d.pid}) did not answer current: {exc}",
                          "reload the extension in chrome://extensions, then run `webctx doctor` again")
    names = ", ".join(f"{i.descriptor.name} (pid {i.descriptor.pid})" for i in usable if i.descriptor)
    return ok("provider.live", f"{names} answered current with the descriptor's token.")
