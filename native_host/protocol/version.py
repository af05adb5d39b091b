"""The provider protocol version: one constant, standard library only (early_hello imports it
before pydantic is loaded)."""

from __future__ import annotations

from typing import Final

PROTOCOL_VERSION: Final = "0.2.0"
"""Provider protocol version (concepts page, "Versions")."""
