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
