"""Fakes for the hand-off between native hosts of one browser's profiles (design.md §3 "Several
profiles, one provider"; native_host/provider/profiles/).

  window(id_)          a Window element holding one Page, optionally on the focus path
  FakeExtension        one profile's extension: answers `current` with its windows
  RecordingConnection  stands in for a hand-off WebSocket connection: records what is sent
  served(handoff)      the requester serving.py gives the MCP endpoint over a ProfileHandoff
"""

from __future__ import annotations

from typing import Any

from native_host.provider.port.chain import RequestChain
from native_host.provider.profiles.handoff import ProfileHandoff
from tests.support import trees
from tests.support.requester import FakeRequester, SentRequest


def served(handoff: ProfileHandoff) -> RequestChain:
    """What our MCP clients' requests pass, as serving.py assembles it: the other profiles
    (`handoff.merge`) in front of our own extension (`handoff.own`)."""
    return RequestChain([handoff.merge], terminal=handoff.own)  # serving.py flattens `own` into it


def window(id_: str, *, focused: bool = False, tab: str = "tab-1") -> dict[str, Any]:
    """A Window element `id_` holding the Page `tab`; with `focused`, both are on the focus path."""
    return trees.window(id_, trees.page(tab, subrole=None, focused=focused or None), focused=focused or None)


class FakeExtension(FakeRequester):
    """Answers `current` with a root holding `windows`; `focused` is its `windowFocused`."""

    def __init__(self, *windows: dict[str, Any], focused: bool = False) -> None:
        super().__init__()
        self.windows = list(windows)
        self.focused = focused

    async def answer(self, sent: SentRequest) -> Any:
        assert sent.type == "current"
        root = {"id": "app", "role": "Application", "children": self.windows}
        return {"root": root, "windowFocused": self.focused}


class RecordingConnection:
    """Stands in for a WebSocket connection: records what is sent."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send(self, data: bytes) -> None:
        self.sent.append(data)
