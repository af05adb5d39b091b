"""The reply to the worker's `hello`, written once for both paths that answer it (design.md §3, §4).

```
early_hello.answer_first_hello ─┐   (the first hello, before pydantic and mcp are imported)
app.NativeHost._on_hello ───────┴─► hello_result(instance, enabled=…) ─► {instance, protocol,
                                                                          version, listening[, problem]}
```

Standard library only (plus `paths`, `protocol.version`, `protocol.providers_folder`): the early
path imports it first thing. `protocol.native.HelloReply` describes the same object as a typed
model; a unit test holds the two equal.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from native_host import __version__, paths
from native_host.errors import ProvidersFolderError
from native_host.protocol.providers_folder import check_providers_folder, check_publishing_names
from native_host.protocol.version import PROTOCOL_VERSION


def mint_instance() -> str:
    """A new instance id: 16 random bytes from `os.urandom`, URL-safe base64 without padding (22
    characters), as `secrets.token_urlsafe(16)` makes it without importing `random` and `hmac`
    (concepts page, "Ids and instances")."""
    return base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")


MAX_ANCESTORS = 32
"""How far up `browser_pid_candidates` walks (a browser is a few levels above us at most)."""


def browser_pid_candidates() -> set[int]:
    """Every pid the browser's main process may have, before `protocol.browser_identity` (psutil)
    is loaded: our parent and, on Linux, its ancestors from `/proc/<pid>/stat`, up to
    MAX_ANCESTORS, pid 1 excluded. `find_browser_process` only ever walks up from our parent, so
    on Linux its answer is in this set; elsewhere it is the parent (the browser starts native
    hosts from its main process). Never raises."""
    pid = os.getppid()
    found: set[int] = set()
    while pid > 1 and pid not in found and len(found) < MAX_ANCESTORS:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat_file:
                # "<pid> (<comm>) <state> <ppid> …"; comm may hold spaces and parentheses
                pid = int(stat_file.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def providers_folder_problem() -> str | None:
    """Why the providers folder is unsafe to publish in (the ProvidersFolderError sentence, which
    ends with the fix), or None when it is safe or does not exist yet (design.md §3): the folder itself
    (`check_providers_folder`), then a directory, symlink or other non-file planted at this
    browser's descriptor or lock name (`check_publishing_names`), which would otherwise
    make the host exit after it said `listening: true`."""
    folder = paths.providers_dir()
    try:
        if folder.exists() or folder.is_symlink():
            check_providers_folder(folder)
            check_publishing_names(folder, browser_pid_candidates())
    except ProvidersFolderError as exc:
        return str(exc)
    return None


def hello_result(instance: str, *, enabled: bool, check_folder: bool = True) -> dict[str, Any]:
    """The `result` of a `hello` (wire names, HelloReply's shape): `instance`, our PROTOCOL_VERSION,
    our webctx `version` (the worker compares both with its own), and `listening`:
    `enabled` (the worker's `settings.enabled`), except that with `check_folder`
    an unsafe providers folder makes it false and adds `problem`, the sentence for the popup.
    The folder is refused before we say we listen (design.md §3): the host stays connected without a
    port, so the extension shows why instead of restarting it. Never raises."""
    listening, problem = enabled, None
    if listening and check_folder:
        problem = providers_folder_problem()
        listening = problem is None
    result: dict[str, Any] = {
        "instance": instance,
        "protocol": PROTOCOL_VERSION,
        "version": __version__,
        "listening": listening,
    }
    if problem is not None:
        result["problem"] = problem
    return result
