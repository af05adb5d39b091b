"""The base of every wire model, and the element-id pattern.

Conventions (STYLE.md): snake_case in Python, camelCase on the wire (`listener_pid` ↔
`listenerPid`). Models for what others wrote (descriptors, elements) allow unknown fields
(design.md §2: receivers must not fail on fields they do not know); models we emit forbid them.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
"""Element ids (design.md §2; concepts page, "Ids and instances")."""


class WireModel(BaseModel):
    """Base of every wire model: camelCase aliases, construction by either name."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict with wire (camelCase) names and unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class IncomingFrame(WireModel):
    """Base of frames the worker writes: unknown fields are kept, not refused (a newer extension
    may add some; design.md §2 "receivers must not fail on fields they do not know")."""

    model_config = ConfigDict(extra="allow")
