"""The provider protocol version, and the one rule for which versions speak together.

Standard library only: `early_hello` imports it before pydantic is loaded.
"""

from __future__ import annotations

from typing import Final

PROTOCOL_VERSION: Final = "0.2.0"
"""Provider protocol version (concepts page, "Versions"): the same in the descriptor, the
extension declaration, `current` and the native port's `hello`."""

SUPPORTED_PROTOCOL: Final = tuple(int(part) for part in PROTOCOL_VERSION.split(".")[:2])
"""(major, minor) of PROTOCOL_VERSION: what another side must speak for us to use it."""


def protocol_supported(version: str) -> bool:
    """True when `version` ("0.2.7") has the same major.minor as `SUPPORTED_PROTOCOL` (concepts page,
    "Versions": while major is 0, major and minor must agree; a patch only adds ignorable things).
    False for anything that is not at least `<int>.<int>`."""
    parts = version.split(".")
    if len(parts) < 2:
        return False
    try:
        return (int(parts[0]), int(parts[1])) == SUPPORTED_PROTOCOL
    except ValueError:
        return False


UPDATE_EXTENSION_FIX: Final = (
    "update the extension: in chrome://extensions load the folder `webctx extension-path` prints "
    "(or reload it there), so that it matches the installed webctx"
)
"""The fix when the extension is the older side of a VersionMismatch (the popup shows the same words)."""

UPDATE_HOST_FIX: Final = (
    "update the native host: upgrade the webctx package (as you installed it, e.g. "
    "`pip install -U webctx`), then run `webctx install`"
)
"""The fix when the native host is the older side of a VersionMismatch (the popup shows the same words)."""


def _release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version ("0.2.7rc1" → (0, 2, 7)), for ordering; () when none."""
    numbers: list[int] = []
    for part in version.split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        numbers.append(int(digits))
        if len(digits) != len(part):
            break
    return tuple(numbers)


class VersionMismatch:
    """The extension and the native host disagree: both sides' webctx and
    protocol versions, the side to update (`"extension"` or `"native host"`: the older one by webctx
    version, else by protocol version), `problem` (the sentence naming both), `fix` and `message`
    ("<problem>: <fix>.", the words the popup shows too: service_worker/native_port.js).
    (A plain class: the early hello path imports this module and `dataclasses` costs ~5 ms.)"""

    def __init__(
        self, *, extension_version: str | None, extension_protocol: str, host_version: str, host_protocol: str
    ) -> None:
        self.extension_version = extension_version
        self.extension_protocol = extension_protocol
        self.host_version = host_version
        self.host_protocol = host_protocol
        if extension_version is not None and _release(extension_version) != _release(host_version):
            older_extension = _release(extension_version) < _release(host_version)
        else:
            older_extension = _release(extension_protocol) < _release(host_protocol)
        self.update: Final = "extension" if older_extension else "native host"
        extension = f"webctx {extension_version or '?'} (protocol {extension_protocol})"
        host = f"webctx {host_version} (protocol {host_protocol})"
        self.problem: Final = f"The extension is {extension} but the native host is {host}"
        self.fix: Final = UPDATE_EXTENSION_FIX if older_extension else UPDATE_HOST_FIX
        self.message: Final = f"{self.problem}: {self.fix}."


def version_mismatch(
    extension_protocol: str,
    extension_version: str | None,
    *,
    host_protocol: str = PROTOCOL_VERSION,
    host_version: str | None = None,
) -> VersionMismatch | None:
    """None when the extension (its `hello.protocol` and manifest version; None: not said) and
    the native host (default: this one, PROTOCOL_VERSION and `native_host.__version__`) speak
    together: the same major.minor protocol (`protocol_supported`'s rule) and, when the extension
    says it, the same webctx version (extension and host ship together, one release).
    Else the VersionMismatch. Never raises."""
    from native_host import __version__

    host_version = host_version if host_version is not None else __version__
    ours = _major_minor(host_protocol)
    same_protocol = ours is not None and _major_minor(extension_protocol) == ours
    same_version = extension_version is None or extension_version == host_version
    if same_protocol and same_version:
        return None
    return VersionMismatch(
        extension_version=extension_version,
        extension_protocol=extension_protocol,
        host_version=host_version,
        host_protocol=host_protocol,
    )


def _major_minor(version: str) -> tuple[int, int] | None:
    """(major, minor) of "<int>.<int>[.…]", else None."""
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1])) if len(parts) >= 2 else None
    except ValueError:
        return None
