"""The reply to the worker's `hello`, written once for both paths that answer it (SPEC §3, §4).

```
early_hello.answer_first_hello ─┐   (the first hello, before pydantic and mcp are imported)
app.NativeHost._on_hello ───────┴─► hello_result(instance, enabled=…) ─► {instance, protocol,
                                                                          listening[, problem]}
```

Standard library only (plus `paths`, `protocol.version`, `protocol.providers_folder`): the early
path imports it first thing. `protocol.native.HelloReply` describes the same object as a typed
model; a unit test holds the two equal.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from native_host import paths
from native_host.errors import ProvidersFolderError
from native_host.protocol.providers_folder import check_providers_folder
from native_host.protocol.version import PROTOCOL_VERSION


def mint_instance() -> str:
    """A new instance id: 16 random bytes from `os.urandom`, URL-safe base64 without padding (22
    characters), as `secrets.token_urlsafe(16)` makes it without importing `random` and `hmac`
    (concepts page, "Ids and instances")."""
    return base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")


def providers_folder_problem() -> str | None:
    """Why the providers folder is unsafe to publish in (the ProvidersFolderError sentence, which
    ends with the fix), or None when it is safe or does not exist yet (SPEC §3)."""
    folder = paths.providers_dir()
    try:
        if folder.exists() or folder.is_symlink():
            check_providers_folder(folder)
    except ProvidersFolderError as exc:
        return str(exc)
    return None


def hello_result(instance: str, *, enabled: bool, check_folder: bool = True) -> dict[str, Any]:
    """The `result` of a `hello` (wire names, HelloReply's shape): `instance`, our PROTOCOL_VERSION,
    and `listening`: `enabled` (the worker's `settings.enabled`), except that with `check_folder`
    an unsafe providers folder makes it false and adds `problem`, the sentence for the popup.
    The folder is refused before we say we listen (SPEC §3): the host stays connected without a
    port, so the extension shows why instead of restarting it. Never raises."""
    listening, problem = enabled, None
    if listening and check_folder:
        problem = providers_folder_problem()
        listening = problem is None
    result: dict[str, Any] = {"instance": instance, "protocol": PROTOCOL_VERSION, "listening": listening}
    if problem is not None:
        result["problem"] = problem
    return result
